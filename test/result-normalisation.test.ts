/**
 * Result normalisation, process level (spec §8.4): API 0.1 `is_error` follows
 * Python truthiness. Fixture: test/fixtures/dispatch/.
 */
import { describe, expect, test } from "bun:test";
import { type Obj, V01 } from "./dispatch-fixture.ts";
import { expectCleanStreams, ready } from "./helpers.ts";

describe("API 0.1 is_error normalisation by Python truthiness (spec §8.4)", () => {
  test("falsy: [], {}, \"\", 0, null, false → false; truthy: [0], {a:0}, \"0\", \"false\", -1, 0.5 → true", async () => {
    const host = await ready(V01);
    const cases: [unknown, boolean][] = [
      [[], false],
      [{}, false],
      ["", false],
      [0, false],
      [null, false],
      [false, false],
      [[0], true],
      [{ a: 0 }, true],
      ["0", true],
      ["false", true],
      [-1, true],
      [0.5, true],
      [true, true],
    ];
    const got: [unknown, unknown][] = [];
    for (const [value] of cases) {
      const result = (await host.callTool("returns", { value: { content: "c", is_error: value } })) as Obj;
      expect(Object.keys(result).sort()).toEqual(["content", "is_error", "metadata"]);
      expect(result.content).toBe("c");
      got.push([value, result.is_error]);
    }
    expect(got).toEqual(cases);
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });
});
