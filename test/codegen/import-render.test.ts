/**
 * manifest.toml text from an imported extension's data (codegen/toml-text.ts,
 * import-render.ts): whatever its keys and strings hold, the text reads back
 * as the same tables and holds no control character but LF.
 */
import { describe, expect, test } from "bun:test";
import { renderImportedManifest } from "../../codegen/import-render.ts";
import { tomlCannotHold, tomlString, tomlText, tomlValue } from "../../codegen/toml-text.ts";

const AWKWARD = ["", "a.b", "a b", 'q"uote', "back\\slash", "tab\there", "esc\x1b[2J", "del\x7f", "c1\x85\x9b", "nul\x00", "line\nbreak", "cr\r\n", '"""', "ünïcødé ✓ 😀", "$ref", "-", "1", "__proto__"];

/** A deterministic stream of awkward values (xorshift), for a few hundred shapes. */
function* shapes(seed: number, count: number) {
  let s = seed;
  const next = () => ((s ^= s << 13), (s ^= s >>> 17), (s ^= s << 5), (s >>> 0) / 2 ** 32);
  const pick = <T,>(list: T[]) => list[Math.floor(next() * list.length)]!;
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 3 || r < 0.3) return pick<unknown>([pick(AWKWARD), 0, -1, 1.5, 1e21, 2 ** 53 - 1, -0.25, true, false]);
    if (r < 0.55) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const table: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 4); i > 0; i--) Object.defineProperty(table, pick(AWKWARD) + i, { value: value(depth + 1), enumerable: true, configurable: true, writable: true });
    return table;
  };
  for (let i = 0; i < count; i++) yield { type: "object", properties: { [pick(AWKWARD)]: value(0), p: value(0) }, extra: value(0) };
}

describe("TOML literals", () => {
  test("every awkward string reads back exactly, with no raw control character", () => {
    for (const text of AWKWARD) {
      for (const literal of [tomlString(text), tomlText(text)]) {
        expect(literal.replace(/\n/g, "")).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
        expect((Bun.TOML.parse(`k = ${literal}`) as { k: string }).k).toBe(text);
      }
    }
  });

  test("null and big integers are named as what TOML cannot hold; floats beyond 2^53 are written as floats", () => {
    expect(tomlCannotHold({ a: [1, { b: null }] })).toBe("null");
    expect(tomlCannotHold({ a: 123456789012345678901234567890n })).toBe("an integer beyond ±(2^53−1)");
    expect(tomlCannotHold({ a: 1e300, b: "x", c: [true] })).toBeUndefined();
    expect((Bun.TOML.parse(`k = ${tomlValue([1e21, 1e20, 0.5, -0, 2 ** 53 - 1])}`) as { k: number[] }).k).toEqual([1e21, 1e20, 0.5, 0, 2 ** 53 - 1]);
  });
});

describe("an imported manifest.toml", () => {
  test("300 schemas with awkward keys and strings read back as the tables they came from, inline or as dotted tables", () => {
    for (const schema of shapes(0x2545f491, 300)) {
      const manifest = { name: "x", version: "0.1.0", api_version: "0.2", tools: { "a.b": { description: "d\n\"q\"", parameters: schema } } };
      const text = renderImportedManifest(manifest, ["# header"]);
      expect(text.replace(/\n/g, "")).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
      expect(Bun.TOML.parse(text)).toEqual(manifest);
    }
  });
});
