import { describe, expect, test } from "bun:test";
import { decodeLine, decodeText } from "../../src/wire/decode.ts";
import { type LineEvent, LineSplitter, TextLineSplitter } from "../../src/wire/line-splitter.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Every event as what the runtime reads from it: oversize, blank, a value, or the -32700 message. */
function read(events: LineEvent[]): string[] {
  return events.map((e) => {
    if (e.kind === "oversize") return "oversize";
    const decoded = e.kind === "text" ? decodeText(e.text) : decodeLine(e.parts);
    return `${e.kind === "unterminated" ? "unterminated " : ""}${JSON.stringify(decoded)}`;
  });
}

function run(splitter: { push(c: Uint8Array, emit: (e: LineEvent) => void): void; end(emit: (e: LineEvent) => void): void }, chunks: Uint8Array[]): LineEvent[] {
  const events: LineEvent[] = [];
  for (const chunk of chunks) splitter.push(chunk, (e) => events.push(e));
  splitter.end((e) => events.push(e));
  return events;
}

/** `input` cut at `cuts` (byte offsets). */
function chunked(input: Uint8Array, cuts: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...cuts, input.length]) {
    chunks.push(input.slice(at, cut));
    at = cut;
  }
  return chunks;
}

describe("TextLineSplitter (whole ASCII chunks decoded at once)", () => {
  const input = bytes(
    [
      '{"a":1}',
      '{"b":"x"}\r',
      "",
      "   ",
      "\r",
      '{"c":"β€ and 😀"}',
      "12345678901234567890123456789012", // 32 bytes: at the limit
      "123456789012345678901234567890123", // 33: over
      '{"d":"a\uFFFDb"}',
      '{"e":2}',
    ].join("\n") + "\n" + '{"tail":true}',
  );
  const bad = new Uint8Array([...bytes('{"ok":1}\n{"x":"'), 0xff, ...bytes('"}\n{"ok":2}\n')]);

  test("reads every line as the byte splitter does, however the input is cut", () => {
    for (const sample of [input, bad]) {
      const expected = read(run(new LineSplitter(32), [sample]));
      expect(read(run(new TextLineSplitter(32), [sample]))).toEqual(expected);
      for (let cut = 1; cut < sample.length; cut++) {
        expect(read(run(new TextLineSplitter(32), chunked(sample, [cut])))).toEqual(expected);
        expect(read(run(new TextLineSplitter(32), chunked(sample, [cut, Math.min(sample.length, cut + 7)])))).toEqual(expected);
      }
    }
    expect(read(run(new LineSplitter(32), [input]))).toContain("oversize");
  });

  test("ASCII lines come as text, the rest as bytes; a line over the limit is oversize", () => {
    const events = run(new TextLineSplitter(10), [bytes('{"a":1}\n{"b":"é"}\n12345678901\r\n1234567890\r\n')]);
    expect(events.map((e) => e.kind)).toEqual(["line", "line", "oversize", "line"]);
    const ascii = run(new TextLineSplitter(8), [bytes('{"a":1}\n\r\n123456789\n12345678\r\n{"b"')]);
    expect(ascii.map((e) => (e.kind === "text" ? `text:${e.text}` : e.kind))).toEqual(["text:{\"a\":1}", "text:", "oversize", "text:12345678", "unterminated"]);
  });
});
