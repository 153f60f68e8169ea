import { describe, expect, test } from "bun:test";
import { ready, spawnRaw } from "./helpers.ts";

describe("routing edge cases", () => {
  test("method names of Object.prototype members are unknown methods", async () => {
    const host = await ready();
    for (const method of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
      expect((await host.request(method, {})).error).toEqual({ code: -32601, message: `unknown method: ${method}` });
    }
    expect(await host.shutdown()).toBe(0);
  });

  test("absent params default to {}; catalog_revision on API 0.1 → -32602 before the name", async () => {
    const host = await ready();
    expect((await host.request("tool/call")).error).toEqual({ code: -32601, message: "unknown tool: None" });
    expect(await host.request("context/collect")).toMatchObject({ result: [{ label: "context", content: "undefined" }] });
    const reply = await host.request("tool/call", { name: "echo", arguments: {}, catalog_revision: 1 });
    expect(reply.error).toEqual({ code: -32602, message: "tool/call catalog_revision requires negotiated dynamic_tools" });
    expect(await host.shutdown()).toBe(0);
  });

  test("helpers: non-boolean confirm flags are argument errors; an oversized notification is -32603; nothing is written", async () => {
    const host = await ready();
    expect(await host.callTool("confirm", { options: { destructive: "yes" } })).toEqual({ content: "confirmation destructive must be a boolean", is_error: true, metadata: {} });
    const big = await host.request("tool/call", { name: "notify", arguments: { message: "x", repeat: 1_100_000 } });
    expect(big.error).toEqual({ code: -32603, message: "JSON-RPC message exceeds 1048576 bytes" });
    expect(host.extensionFrames().filter((f) => "method" in f)).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});

test("after EOF the process exits even when the host stopped reading stdout", async () => {
  const { proc } = spawnRaw();
  const frames = [{ jsonrpc: "2.0", id: 1, method: "initialize", params: { api_version: "0.1" } }];
  for (let id = 2; id < 6; id++) frames.push({ jsonrpc: "2.0", id, method: "tool/call", params: { name: "big", arguments: { size: 1_000_000 } } } as never);
  proc.stdin.write(frames.map((f) => JSON.stringify(f)).join("\n") + "\n");
  proc.stdin.end();
  const started = performance.now();
  const code = await Promise.race([proc.exited, Bun.sleep(8_000).then(() => "still running")]);
  expect(code).toBe(0);
  expect(performance.now() - started).toBeLessThan(7_000);
});
