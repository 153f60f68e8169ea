/**
 * Result normalisation, process level (docs/protocol-0.2.md §8.4): API 0.1 `is_error` follows
 * Python truthiness. Fixture: test/fixtures/dispatch/.
 */
import { describe, expect, test } from "bun:test";
import { type Obj, V01, V02 } from "./dispatch-fixture.ts";
import { expectCleanStreams, ready } from "./helpers.ts";

describe("API 0.1 is_error normalisation by Python truthiness (docs/protocol-0.2.md §8.4)", () => {
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

describe("API 0.2 tool result bounds (docs/protocol-0.2.md §3.2, §7)", () => {
  const refusal = async (host: Awaited<ReturnType<typeof ready>>, value: unknown) =>
    (await host.request("tool/call", { name: "returns", arguments: { value }, context: host.executionContext() })).error as { code: number; message: string } | undefined;

  test("metadata the author returns, alone or with merged diagnostics, is held to 64 KiB; an absent one becomes {}", async () => {
    const host = await ready(V02);
    expect(await host.callTool("returns", { value: { content: "c" } })).toEqual({ content: [{ type: "text", text: "c" }], is_error: false, metadata: {} });
    // {"v":"…"} with 65,536 a's: 65,544 bytes.
    expect(await refusal(host, { content: "c", metadata: { v: "a".repeat(65_536) } })).toEqual({
      code: -32603,
      message: "metadata exceeds 64 KiB when JSON-encoded (65544 bytes)",
    });
    let deep: unknown = 1;
    for (let i = 1; i < 33; i++) deep = [deep];
    expect((await refusal(host, { content: "c", metadata: { deep } }))?.message).toContain("metadata exceeds 32 levels of nesting");
    // Each within its own limit; together, once the diagnostics are merged into metadata, over 64 KiB.
    const diagnostics = Array.from({ length: 8 }, (_, i) => ({ severity: "info", code: `note.n${i}`, message: "d".repeat(4_000) }));
    const ok = (await host.callTool("returns", { value: { content: "c", diagnostics } })) as Obj;
    expect(Object.keys(ok.metadata as Obj)).toEqual(["octet_diagnostics_v1"]);
    expect(await host.callTool("returns", { value: { content: "c", metadata: { pad: "p".repeat(40_000) } } })).toMatchObject({ is_error: false });
    expect((await refusal(host, { content: "c", metadata: { pad: "p".repeat(40_000) }, diagnostics }))?.message).toMatch(/^metadata exceeds 64 KiB when JSON-encoded \(\d+ bytes\)$/);
    // No metadata of the author's: a diagnostics list just under its own 64 KiB is over once wrapped in metadata.
    const full = Array.from({ length: 17 }, (_, i) => ({ severity: "info", code: `note.n${i}`, message: "d".repeat(4_000) }));
    full[16]!.message = "d".repeat(4_000 - (JSON.stringify(full).length - 65_530));
    expect(JSON.stringify(full).length).toBe(65_530);
    expect(await refusal(host, { content: "c", diagnostics: full })).toEqual({
      code: -32603,
      message: `metadata exceeds 64 KiB when JSON-encoded (${JSON.stringify({ octet_diagnostics_v1: full }).length} bytes)`,
    });
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });
});
