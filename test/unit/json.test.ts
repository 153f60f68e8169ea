import { describe, expect, test } from "bun:test";
import { laterFrameMayHoldNonCanonicalNumber, mayHoldNonCanonicalNumber, NON_CANONICAL_NUMBER, numberSource, parseJson, readInteger } from "../../src/wire/json.ts";

describe("lossless JSON decoding (src/wire/json.ts)", () => {
  test("integers that do not round-trip keep their source; ordinary frames take the fast path unchanged", () => {
    const cases: [string, unknown][] = [
      ['{"jsonrpc":"2.0","id":7}', 7],
      ['{"id":1.0}', undefined],
      ['{"id": 1e3}', undefined],
      ['{"id":\n-0}', 0],
      ['{"id":18446744073709551615}', 18446744073709551615n],
      ['{"id":-123456789012345678}', -123456789012345678n],
      ['{"a":[1,2],"id":1.5}', undefined],
      ['{"id":9007199254740991}', 9007199254740991],
    ];
    for (const [text, expected] of cases) {
      const value = parseJson(text) as Record<string, unknown>;
      expect(readInteger(value, "id")).toBe(expected as never);
    }
    const frame = parseJson('{"jsonrpc":"2.0","id":3,"params":{"text":"v2.0 at 10:1.5"}}') as Record<string, unknown>;
    expect(frame).toEqual({ jsonrpc: "2.0", id: 3, params: { text: "v2.0 at 10:1.5" } });
    expect(numberSource(parseJson('{"x":2.50}') as object, "x")).toBe("2.50");
    expect(numberSource(parseJson('{"x":2}') as object, "x")).toBe("2");
  });
});

test("frames above the pre-check size keep number sources too", () => {
  const pad = "y".repeat(70 * 1024);
  const value = parseJson(`{"id":1.0,"pad":"${pad}","n":18446744073709551615}`) as Record<string, unknown>;
  expect(readInteger(value, "id")).toBeUndefined();
  expect(readInteger(value, "n")).toBe(18446744073709551615n);
  expect((value.pad as string).length).toBe(70 * 1024);
});

describe("the pre-check that picks the lossless path (mayHoldNonCanonicalNumber)", () => {
  // The regular expression the loop replaces; over JSON text the two must agree on every number token.
  const REFERENCE = /[:,[][ \t\n\r]*(?:-?[0-9]+[.eE]|-?[0-9]{16}|-0\b)/;

  test("hits the numbers whose JS value loses its source, and nothing every frame carries", () => {
    for (const text of ['{"a":1.0}', '{"a": 1e5}', '{"a":[2E-3]}', '{"a":-0}', '{"a":[1,-0]}', '{"a":1234567890123456}', '{"a":-12345678901234567890}', '{"a":\t\r\n 0.5}']) {
      expect({ text, hit: mayHoldNonCanonicalNumber(text) }).toEqual({ text, hit: true });
    }
    for (const text of ['{"jsonrpc":"2.0","id":1,"method":"x"}', '{"a":123456789012345}', '{"a":-1}', '{"a":[0,-10]}', '{"a":"1.5"}', '{"a":true,"b":null}', "", "-0", "1.5", '{"a":-0x}']) {
      expect({ text, hit: mayHoldNonCanonicalNumber(text) }).toEqual({ text, hit: false });
    }
  });

  test("agrees with the regular expression it replaces on random JSON-ish text", () => {
    const alphabet = ['"', ":", ",", "[", "]", "{", "}", " ", "\t", "\n", "-", "0", "1", "9", ".", "e", "E", "x", "_", "a"];
    let seed = 42;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let n = 0; n < 20_000; n++) {
      let text = "";
      const length = 1 + Math.floor(next() * 24);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      if (next() < 0.3) text += ":" + "1".repeat(14 + Math.floor(next() * 4));
      expect({ text, hit: mayHoldNonCanonicalNumber(text) }).toEqual({ text, hit: REFERENCE.test(text) });
    }
  });

  test("the check later frames use agrees with the reference, with and without the usual frame start", () => {
    const alphabet = ['"', ":", ",", "[", "]", "{", "}", " ", "\t", "\n", "-", "0", "1", "9", ".", "e", "E", "x", "_", "a"];
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let hits = 0;
    for (let n = 0; n < 20_000; n++) {
      let text = next() < 0.5 ? '{"jsonrpc":"2.0"' : "";
      const length = 1 + Math.floor(next() * 24);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      if (next() < 0.3) text += ":" + "1".repeat(14 + Math.floor(next() * 4));
      const expected = REFERENCE.test(text);
      if (expected) hits++;
      expect({ text, hit: laterFrameMayHoldNonCanonicalNumber(text) }).toEqual({ text, hit: expected });
      // Called twice in a row: the global expressions' positions are reset, not carried over.
      expect({ text, hit: laterFrameMayHoldNonCanonicalNumber(text) }).toEqual({ text, hit: expected });
    }
    expect(hits).toBeGreaterThan(1_000);
    // Digits before a dot inside strings are no number token: the fast path stays.
    expect(laterFrameMayHoldNonCanonicalNumber('{"jsonrpc":"2.0","id":3,"params":{"text":"v2.0 and x3.5e2"}}')).toBe(false);
    expect(laterFrameMayHoldNonCanonicalNumber('{"jsonrpc":"2.0","id":3.0}')).toBe(true);
    expect(laterFrameMayHoldNonCanonicalNumber('{"jsonrpc":"2.0","id":1,"n":[7,-0]}')).toBe(true);
  });

  test("the expression later frames use is the reference, and parsing keeps sources on every frame, not only the first", () => {
    expect(NON_CANONICAL_NUMBER.source).toBe(REFERENCE.source);
    for (let n = 0; n < 3; n++) {
      const value = parseJson('{"jsonrpc":"2.0","id":1.0,"n":18446744073709551615,"m":[-0,2e3]}') as Record<string, unknown>;
      expect(readInteger(value, "id")).toBeUndefined();
      expect(numberSource(value, "id")).toBe("1.0");
      expect(value.n).toBe(18446744073709551615n);
      expect(numberSource(value.m as object, "1")).toBe("2e3");
    }
  });

  test("a frame whose only number lexemes are canonical still parses to the same values either way", () => {
    const text = '{"jsonrpc":"2.0","id":7,"method":"tool/call","params":{"arguments":{"n":[1,-2,3],"s":"1.5e3"}}}';
    expect(mayHoldNonCanonicalNumber(text)).toBe(false);
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });
});
