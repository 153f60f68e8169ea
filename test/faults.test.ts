/**
 * Faults a real author produces (issue 11): large synchronous writes to fds 1
 * and 2 behind the runtime's back. Fixture: test/fixtures/faults/.
 */
import { describe, expect, test } from "bun:test";
import { expectCleanStreams, ready } from "./helpers.ts";

const V02 = new URL("./fixtures/faults/faults-v02", import.meta.url).pathname;
const MiB = 1024 * 1024;

/** Lines the fixture's payload has for `bytes` (100-byte lines), or fold's 99-character lines for children. */
const expectedLines = (path: string, bytes: number) => (path.includes("spawn") ? Math.ceil(bytes / 99) : Math.ceil(bytes / 100));

describe("synchronous writes of any size to fds 1 and 2 become log lines; the extension keeps serving", () => {
  const cases: [string, number][] = [
    ["fs1", MiB],
    ["fs2", MiB],
    ["bun-stdout", MiB],
    ["spawn-sync", MiB],
    ["node-spawn-sync", MiB],
    ["fs1", 16 * MiB],
    ["fs2", 16 * MiB],
    ["bun-stdout", 16 * MiB],
    ["spawn-sync", 16 * MiB],
  ];
  test.each(cases)("%s, %d bytes", async (path, bytes) => {
    const host = await ready(V02);
    expect(await host.callTool("flood", { path, bytes })).toEqual({ content: [{ type: "text", text: `flooded ${path}` }], is_error: false, metadata: {} });
    // Still serving: the next call, and a cancellation, are answered.
    expect(await host.callTool("echo", { text: "after" })).toMatchObject({ content: [{ text: "after" }] });
    const waiting = host.request("tool/call", { name: "wait", arguments: {}, context: host.executionContext() }, { id: 9001 });
    host.cancel(9001);
    expect(await waiting).toMatchObject({ id: 9001 });
    expect(await host.shutdown()).toBe(0);
    // Every line arrived on stderr as a structured record, in order, with its source (the last
    // partial line of a child's output by the time the extension exited).
    const mark = path.includes("spawn") ? (path === "spawn-sync" ? "z" : "n") : `${path} `;
    const lines = host.logs().filter((r) => typeof r.message === "string" && (r.message as string).startsWith(mark));
    expect(lines.length).toBe(expectedLines(path, bytes));
    if (!path.includes("spawn")) expect(lines.map((r) => (r.message as string).split(" ")[1])).toEqual(Array.from({ length: lines.length }, (_, i) => String(i)));
    expect(new Set(lines.map((r) => r.source))).toEqual(new Set([path === "fs2" ? "stderr" : "stdout"]));
    expectCleanStreams(host);
  }, 60_000);
});
