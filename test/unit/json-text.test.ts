import { describe, expect, test } from "bun:test";
import { checkResultBounds } from "../../src/runtime/structured/result-bounds.ts";
import { validateStructured } from "../../src/runtime/structured/validate-structured.ts";
import { canonicalJson } from "../../src/wire/canonical-json.ts";
import { encodeFrame } from "../../src/wire/encode.ts";

/** Two different lone surrogates: on the wire both become U+FFFD (docs/protocol-0.2.md §1.1). */
const HIGH = "\ud800";
const LOW = "\udfff";

/** The compact JSON text the encoder writes for `value` (without the LF). */
const encoded = (value: object): string => encodeFrame(value).slice(0, -1);

describe("ill-formed strings: canonical JSON and the result bounds use the encoder's JSON text", () => {
  test("canonical JSON replaces lone surrogates in member names with U+FFFD, as the encoder does", () => {
    const value = { [`a${HIGH}`]: 1, b: [{ [LOW]: "x" }] };
    expect(canonicalJson(value)).toBe('{"a\ufffd":1,"b":[{"\ufffd":"x"}]}');
    expect(canonicalJson(value)).toBe(encoded(value));
  });

  test("member names that become equal on the wire collapse as in the encoder (the later one wins)", () => {
    const value = { [HIGH]: 1, [LOW]: 2 };
    expect(canonicalJson(value)).toBe(encoded(value));
  });

  test("string values are written well-formed too", () => {
    const value = { a: `x${HIGH}`, b: [LOW] };
    expect(canonicalJson(value)).toBe(encoded(value));
  });

  test("uniqueItems compares member names as the host receives them", () => {
    const schema = { type: "array", uniqueItems: true };
    expect(validateStructured([{ [HIGH]: 1 }, { [LOW]: 1 }], schema)).toBe("$: items 0 and 1 are equal (uniqueItems)");
  });

  test("the 256 KiB bound is measured on the text the encoder writes, ill-formed member names included", () => {
    const content: Record<string, number> = {};
    for (let i = 0; i < 4000; i++) content[`${HIGH.repeat(10)}-${i}`] = i;
    expect(Buffer.byteLength(encoded(content))).toBeLessThanOrEqual(256 * 1024);
    expect(JSON.stringify(content).length).toBeGreaterThan(256 * 1024); // `\ud800` escapes would not fit
    expect(checkResultBounds({ structured_content: content })).toBeUndefined();
  });
});
