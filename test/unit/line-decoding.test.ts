import { describe, expect, test } from "bun:test";
import { decodeLine } from "../../src/wire/decode.ts";
import { lineBytes } from "../../src/wire/line-bytes.ts";
import { LineSplitter, type SplitEvent } from "../../src/wire/line-splitter.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

function split(limit: number, chunks: Uint8Array[]): SplitEvent[] {
  const events: SplitEvent[] = [];
  const splitter = new LineSplitter(limit);
  for (const chunk of chunks) splitter.push(chunk, (e) => events.push(e));
  splitter.end((e) => events.push(e));
  return events;
}

describe("line splitting and decoding (src/wire)", () => {
  test("a character split across chunks decodes; invalid bytes fail that line only", () => {
    const whole = bytes('{"t":"β€"}\n');
    const events = split(64, [whole.subarray(0, 7), whole.subarray(7, 8), whole.subarray(8)]);
    expect(events.length).toBe(1);
    const line = events[0] as { kind: "line"; parts: Uint8Array[] };
    expect(line.parts.length).toBe(3);
    expect(decodeLine(line.parts)).toEqual({ ok: true, value: { t: "β€" } });
    const bad = decodeLine([new Uint8Array([0x7b, 0xce]), new Uint8Array([0x7d])]);
    expect(bad.ok).toBe(false);
    expect(decodeLine([bytes('{"after":'), bytes("1}")])).toEqual({ ok: true, value: { after: 1 } });
  });

  test("limit: content of exactly `limit` passes (with CR too), limit + 1 is oversize, the stream continues", () => {
    const events = split(8, [bytes("12345678\n12345678\r\n123456789\nok\n")]);
    expect(events.map((e) => e.kind)).toEqual(["line", "line", "oversize", "line"]);
    expect(lineBytes((events[1] as { parts: Uint8Array[] }).parts)).toEqual(bytes("12345678"));
    // Discarding does not buffer: the oversize is reported as soon as the limit is passed.
    const splitter = new LineSplitter(8);
    const seen: string[] = [];
    splitter.push(bytes("x".repeat(20)), (e) => seen.push(e.kind));
    expect(seen).toEqual(["oversize"]);
    expect(splitter.pending).toBe(0);
  });

  test("a final line without LF is delivered as unterminated; CR-only and empty lines carry no bytes", () => {
    expect(split(16, [bytes('{"a":1}')]).map((e) => e.kind)).toEqual(["unterminated"]);
    const events = split(16, [bytes("\r\n\n")]);
    expect(events.map((e) => (e as { parts: Uint8Array[] }).parts.length)).toEqual([0, 0]);
    expect(decodeLine([])).toEqual({ ok: "blank" });
  });
});

test("a real U+FFFD in valid input is kept; only invalid bytes are refused", () => {
  expect(decodeLine([bytes('{"t":"a\uFFFDb"}')])).toEqual({ ok: true, value: { t: "a\uFFFDb" } });
  expect(decodeLine([new Uint8Array([0x22, 0xff, 0x22])]).ok).toBe(false);
});

describe("lines that span chunks are joined once, in a reused buffer up to 1 MiB (issue 28)", () => {
  const chunked = (text: string, size: number) => {
    const whole = bytes(text);
    const parts: Uint8Array[] = [];
    for (let i = 0; i < whole.length; i += size) parts.push(whole.subarray(i, Math.min(whole.length, i + size)));
    return parts;
  };

  test("a later line never changes an earlier line's text (the buffer is reused, the strings are copies)", () => {
    const first = decodeLine(chunked(JSON.stringify({ t: "a".repeat(200_000) }), 65_536));
    const second = decodeLine(chunked(JSON.stringify({ t: "b".repeat(300_000) }), 65_536));
    const third = decodeLine(chunked(JSON.stringify({ t: "c".repeat(10) }), 4));
    expect(first).toEqual({ ok: true, value: { t: "a".repeat(200_000) } });
    expect(second).toEqual({ ok: true, value: { t: "b".repeat(300_000) } });
    expect(third).toEqual({ ok: true, value: { t: "c".repeat(10) } });
  });

  test("lines over 1 MiB, multi-byte characters cut at every chunk edge, a real U+FFFD, invalid bytes", () => {
    const big = "é€😀x".repeat(150_000); // 1.5 MB of UTF-8
    expect(decodeLine(chunked(JSON.stringify({ t: big }), 65_537))).toEqual({ ok: true, value: { t: big } });
    for (const size of [1, 2, 3, 5]) expect(decodeLine(chunked('{"t":"β€😀\uFFFD"}', size))).toEqual({ ok: true, value: { t: "β€😀\uFFFD" } });
    const invalid = [bytes('{"t":"' + "x".repeat(70_000)), new Uint8Array([0xf0, 0x9f]), bytes('"}')];
    const refused = decodeLine(invalid);
    expect(refused.ok).toBe(false);
    expect((refused as { message: string }).message).toStartWith("invalid UTF-8");
    // The strict decoder is left usable: the next split line decodes.
    expect(decodeLine(chunked('{"t":"ok€"}', 3))).toEqual({ ok: true, value: { t: "ok€" } });
  });
});
