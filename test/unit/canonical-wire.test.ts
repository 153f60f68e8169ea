import { describe, expect, test } from "bun:test";
import { CanonicalFrameError, decodeCanonicalFrame } from "../../src/wire/canonical-decode.ts";
import { CanonicalBoundError, CanonicalValueError, compareCodePoints, encodeCanonical, encodeCanonicalFrame, MAX_PORTABLE_INTEGER } from "../../src/wire/canonical-frame.ts";
import { CanonicalFramer } from "../../src/wire/canonical-framer.ts";
import { lineBytes } from "../../src/wire/line-bytes.ts";
import type { SplitEvent } from "../../src/wire/line-splitter.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const decodeText = (text: string) => decodeCanonicalFrame(bytes(text));

describe("octet-canonical-json-v1 encoding", () => {
  test("octet's canonical-value fixture: members by UTF-8 bytes (U+E000 before U+1F600), escapes only where required", () => {
    const value = {
      z: [0, -17, 9007199254740991],
      "\ue000": "private-use key sorts before emoji",
      "😀": "emoji key",
      é: "café",
      control: 'line\n\ttab\bbackspace\fpage\rreturn\\slash/quote"',
      nested: { β: "two", a: "one" },
    };
    expect(encodeCanonical(value)).toBe(
      '{"control":"line\\n\\ttab\\bbackspace\\fpage\\rreturn\\\\slash/quote\\"","nested":{"a":"one","β":"two"},"z":[0,-17,9007199254740991],"é":"café","\ue000":"private-use key sorts before emoji","😀":"emoji key"}',
    );
  });

  test("other controls are \\u00xx in lowercase; DEL, U+2028 and non-ASCII stay raw", () => {
    expect(encodeCanonical({ s: "\u0001\u001f\u007f\u2028ü" })).toBe('{"s":"\\u0001\\u001f\u007f\u2028ü"}');
  });

  test("refuses floats, NaN, out-of-range integers, lone surrogates, non-plain objects and depth over 32", () => {
    const refuse = (value: unknown) => expect(() => encodeCanonical(value)).toThrow(CanonicalValueError);
    refuse({ x: 1.5 });
    refuse({ x: Number.NaN });
    refuse({ x: Number.POSITIVE_INFINITY });
    refuse({ x: MAX_PORTABLE_INTEGER + 1 });
    refuse({ x: -MAX_PORTABLE_INTEGER - 1 });
    refuse({ x: 2n ** 53n });
    refuse({ x: "\ud800" });
    refuse({ "\udc00": 1 });
    refuse({ x: new Date(0) });
    refuse({ x: () => 1 });
    refuse([undefined]);
    let deep: unknown = 1;
    for (let i = 0; i < 33; i++) deep = [deep];
    refuse(deep);
    let ok: unknown = 1;
    for (let i = 0; i < 32; i++) ok = [ok];
    expect(encodeCanonical(ok)).toBe(`${"[".repeat(32)}1${"]".repeat(32)}`);
  });

  test("±(2^53−1) and bigints within it are integers; -0 is 0; undefined members are absent", () => {
    expect(encodeCanonical([MAX_PORTABLE_INTEGER, -MAX_PORTABLE_INTEGER, 5n, -0])).toBe("[9007199254740991,-9007199254740991,5,0]");
    expect(encodeCanonical({ a: undefined, b: null })).toBe('{"b":null}');
  });

  test("a frame is measured in UTF-8 bytes without its LF: exactly at the bound passes, one byte over is refused", () => {
    const text = encodeCanonical({ s: "é".repeat(10) }); // 8 ASCII + 10 × 2 bytes
    expect(Buffer.byteLength(text)).toBe(28);
    expect(encodeCanonicalFrame({ s: "é".repeat(10) }, 28)).toBe(`${text}\n`);
    expect(() => encodeCanonicalFrame({ s: "é".repeat(10) }, 27)).toThrow(CanonicalBoundError);
  });
});

describe("decoding a received frame", () => {
  test("a canonical frame decodes", () => {
    expect(decodeText('{"id":1,"jsonrpc":"2.0","method":"shutdown","params":{}}')).toEqual({ id: 1, jsonrpc: "2.0", method: "shutdown", params: {} });
  });

  const refused: [string, string | Uint8Array][] = [
    ["whitespace", '{"a": 1}'],
    ["member order", '{"b":1,"a":2}'],
    ["duplicate member", '{"a":1,"a":1}'],
    ["float", '{"a":1.5}'],
    ["1.0", '{"a":1.0}'],
    ["exponent", '{"a":1e3}'],
    ["-0", '{"a":-0}'],
    ["2^53", '{"a":9007199254740992}'],
    ["unneeded escape", '{"a":"\\u0041"}'],
    ["escaped solidus", '{"a":"\\/"}'],
    ["uppercase hex escape", '{"a":"\\u001F"}'],
    ["escaped non-ASCII", '{"a":"\\u00e9"}'],
    ["lone surrogate value", '{"a":"\\ud800"}'],
    ["lone surrogate key", '{"\\udc00":1}'],
    ["CR at the end", '{"a":1}\r'],
    ["empty frame", ""],
    ["not JSON", "{"],
    ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])],
    ["UTF-8 encoded lone surrogate", new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22])],
    ["BOM", "\ufeff{}"],
  ];
  for (const [name, frame] of refused) {
    test(`refuses ${name}`, () => {
      expect(() => decodeCanonicalFrame(typeof frame === "string" ? bytes(frame) : frame)).toThrow(CanonicalFrameError);
    });
  }

  test("depth 32 is accepted, 33 refused", () => {
    expect(() => decodeText(`${"[".repeat(32)}1${"]".repeat(32)}`)).not.toThrow();
    expect(() => decodeText(`${"[".repeat(33)}1${"]".repeat(33)}`)).toThrow(CanonicalFrameError);
  });
});

describe("framing: exactly one LF, the bound excludes it and can change between frames", () => {
  const run = (framer: CanonicalFramer, chunks: string[], end = true) => {
    const events: string[] = [];
    const emit = (event: SplitEvent) => events.push(event.kind === "oversize" ? "oversize" : `${event.kind}:${new TextDecoder().decode(lineBytes(event.parts))}`);
    for (const chunk of chunks) framer.push(bytes(chunk), emit);
    if (end) framer.end(emit);
    return events;
  };

  test("frames split across chunks and several per chunk; blank lines and CR are handed on (the decoder refuses them)", () => {
    expect(run(new CanonicalFramer(100), ['{"a"', ':1}\n{"b":2}\n\n', 'x\r\n'])).toEqual(['line:{"a":1}', 'line:{"b":2}', "line:", "line:x\r"]);
  });

  test("exactly at the bound is a frame; one byte over ends the stream at once", () => {
    expect(run(new CanonicalFramer(7), ['{"a":1}\n'])).toEqual(['line:{"a":1}']);
    expect(run(new CanonicalFramer(6), ['{"a":1}\n{"b":2}\n'])).toEqual(["oversize"]);
    expect(run(new CanonicalFramer(6), ['{"a":1', "}"])).toEqual(["oversize"]);
  });

  test("input ending without the LF is unterminated", () => {
    expect(run(new CanonicalFramer(100), ['{"a":1}\n{"b"'])).toEqual(['line:{"a":1}', 'unterminated:{"b"']);
  });

  test("a bound changed while a frame is emitted applies to the next frame of the same chunk", () => {
    const framer = new CanonicalFramer(100);
    const events: string[] = [];
    framer.push(bytes('{"a":1}\n{"bb":2}\n'), (event) => {
      events.push(event.kind);
      framer.bound = 7;
    });
    expect(events).toEqual(["line", "oversize"]);
  });
});

// ---- property tests: seeded random values -----------------------------------------

/** Small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ["a", "b", "z", "A", "0", " ", '"', "\\", "/", "\n", "\t", "\u0000", "\u001f", "\u007f", "é", "β", "\u2028", "\ue000", "\uffff", "😀", "𝄞", "\u{10ffff}"];

function randomString(next: () => number): string {
  let s = "";
  const n = Math.floor(next() * 6);
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return s;
}

function randomValue(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth >= 6 ? 5 : 7));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2: {
      const edge = [0, -1, 1, MAX_PORTABLE_INTEGER, -MAX_PORTABLE_INTEGER, 2 ** 31, -(2 ** 31)];
      return next() < 0.3 ? edge[Math.floor(next() * edge.length)] : Math.floor((next() - 0.5) * 2 ** 40);
    }
    case 3:
    case 4:
      return randomString(next);
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      const n = Math.floor(next() * 5);
      for (let i = 0; i < n; i++) object[randomString(next)] = randomValue(next, depth + 1);
      return object;
    }
  }
}

/** An independent reference: members sorted with Buffer.compare on their UTF-8 bytes. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

describe("properties over 3000 random values", () => {
  const values = (() => {
    const next = random(0x03c0ffee);
    return Array.from({ length: 3000 }, () => randomValue(next, 0));
  })();

  test("encoding agrees with a reference that sorts members by UTF-8 bytes", () => {
    for (const value of values) expect(encodeCanonical(value)).toBe(reference(value));
  });

  test("every encoded frame decodes to an equal value that re-encodes byte-identically", () => {
    for (const value of values) {
      const text = encodeCanonical(value);
      const decoded = decodeText(text);
      expect(decoded).toEqual(value as any);
      expect(encodeCanonical(decoded)).toBe(text);
    }
  });

  test("code point order equals UTF-8 byte order", () => {
    const next = random(7);
    for (let i = 0; i < 5000; i++) {
      const a = randomString(next);
      const b = randomString(next);
      expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
    }
  });

  test("any whitespace inserted after a structural character makes a frame non-canonical", () => {
    const next = random(11);
    let checked = 0;
    for (const value of values) {
      const text = encodeCanonical(value);
      const positions = [...text.matchAll(/[{[,:]/g)].map((m) => m.index!);
      // Only positions outside strings: re-encode test decides; count the ones that parse.
      if (positions.length === 0) continue;
      const at = positions[Math.floor(next() * positions.length)]! + 1;
      const mutated = `${text.slice(0, at)} ${text.slice(at)}`;
      let parses = true;
      try {
        JSON.parse(mutated);
      } catch {
        parses = false;
      }
      if (!parses || JSON.stringify(JSON.parse(mutated)) !== JSON.stringify(JSON.parse(text))) continue; // inside a string: a different value
      expect(() => decodeText(mutated)).toThrow(CanonicalFrameError);
      checked++;
    }
    expect(checked).toBeGreaterThan(500);
  });

  test("objects with two or more members are refused with their members reversed or one duplicated", () => {
    let checked = 0;
    for (const value of values) {
      if (value === null || typeof value !== "object" || Array.isArray(value)) continue;
      const entries = Object.entries(value);
      if (entries.length < 2) continue;
      const member = ([k, v]: [string, unknown]) => `${JSON.stringify(k)}:${encodeCanonical(v)}`;
      const sorted = entries.sort(([a], [b]) => compareCodePoints(a, b));
      expect(() => decodeText(`{${[...sorted].reverse().map(member).join(",")}}`)).toThrow(CanonicalFrameError);
      expect(() => decodeText(`{${[sorted[0]!, ...sorted].map(member).join(",")}}`)).toThrow(CanonicalFrameError);
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });
});
