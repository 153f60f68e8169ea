import { describe, expect, test } from "bun:test";
import { numberSource, parseJson, readInteger } from "../../src/wire/json.ts";

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
