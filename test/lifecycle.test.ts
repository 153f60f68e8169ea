import { describe, expect, test } from "bun:test";
import { waitLog } from "./dispatch-fixture.ts";
import { expectCleanStreams, ready, spawnRaw, startHost } from "./helpers.ts";

const call = (id: number, name: string, args: object = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name, arguments: args } });

describe("shutdown (docs/protocol-0.2.md §3.8, §8.8)", () => {
  test("idle shutdown: hook runs before the ack, {} at once, exit 0 while stdin stays open", async () => {
    const host = await ready();
    const started = performance.now();
    expect(await host.shutdown()).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_800);
    const frames = host.extensionFrames();
    expect(frames.at(-1)).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect(frames.at(-2)).toEqual({ jsonrpc: "2.0", method: "notification", params: { level: "info", message: "shutting down" } });
    expect(host.logs().filter((l) => l.message === "shutdown hook ran").length).toBe(1);
    expectCleanStreams(host);
  });

  test("in-flight work finishes first; second shutdown → -32000 already draining; new requests → -32000 draining", async () => {
    const host = await ready();
    host.sendRaw(call(10, "hold", { ms: 300 }));
    host.sendRaw('{"jsonrpc":"2.0","id":11,"method":"shutdown","params":{}}');
    host.sendRaw('{"jsonrpc":"2.0","id":12,"method":"shutdown","params":{}}');
    host.sendRaw(call(13, "echo", { text: "late" }));
    await host.exited;
    const byId = (id: number) => host.extensionFrames().find((f) => f.id === id);
    expect(byId(12)!.error).toEqual({ code: -32000, message: "extension is already draining" });
    expect(byId(13)!.error).toEqual({ code: -32000, message: "extension is draining" });
    expect(byId(10)!.result).toMatchObject({ content: "held 300" });
    const order = host.extensionFrames().map((f) => f.id);
    expect(order.indexOf(10)).toBeLessThan(order.indexOf(11));
    expect(byId(11)!.result).toEqual({});
    expect(await host.exited).toBe(0);
  });

  test("drain_timeout_ms 0: running work is cancelled with reason shutdown, replied before the ack", async () => {
    const host = await ready();
    host.sendRaw(call(10, "hold", { ms: 5_000 }));
    await waitLog(host, (l) => l.message === "hold started"); // the handler is running when shutdown arrives
    host.sendRaw('{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{"drain_timeout_ms":0}}');
    expect(await host.exited).toBe(0);
    const frames = host.extensionFrames();
    const cancelled = frames.findIndex((f) => f.id === 10);
    const ack = frames.findIndex((f) => f.id === 90);
    expect(frames[cancelled]!.error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "shutdown" } });
    expect(cancelled).toBeLessThan(ack);
    expect(frames[ack]!.result).toEqual({});
  });

  test("drain_timeout_ms only shortens the 2 s budget; 1.0, \"0\" and -1 are not non-negative integers and are ignored", async () => {
    const longer = await ready();
    longer.sendRaw(call(10, "hold", { ms: 2_600 }));
    longer.sendRaw('{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{"drain_timeout_ms":60000}}');
    expect(await longer.exited).toBe(0);
    expect(longer.extensionFrames().find((f) => f.id === 10)!.error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "shutdown" } });
    await Promise.all(
      ["1.0", '"0"', "-1"].map(async (value) => {
        const host = await ready();
        host.sendRaw(call(10, "hold", { ms: 400 }));
        host.sendRaw(`{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{"drain_timeout_ms":${value}}}`);
        expect(await host.exited).toBe(0);
        expect(host.extensionFrames().find((f) => f.id === 10)!.result).toMatchObject({ content: "held 400" });
        expect(host.extensionFrames().find((f) => f.id === 90)!.result).toEqual({});
      }),
    );
  });

  test("a stuck handler cannot hold shutdown beyond budget + grace; it still gets exactly one -32800", async () => {
    const host = await ready();
    host.sendRaw(call(10, "stuck", { ms: 20_000 }));
    await waitLog(host, (l) => l.message === "stuck started"); // the handler is running when shutdown arrives
    const started = performance.now();
    host.sendRaw('{"jsonrpc":"2.0","id":20,"method":"shutdown","params":{"drain_timeout_ms":300}}');
    expect(await host.exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_800);
    expect(host.extensionFrames().filter((f) => f.id === 10)).toEqual([
      { jsonrpc: "2.0", id: 10, error: { code: -32800, message: "request cancelled", data: { reason: "shutdown" } } },
    ]);
  });

  test("closing stdin right after shutdown does not lose the acknowledgement", async () => {
    const host = await ready();
    host.sendRaw('{"jsonrpc":"2.0","id":5,"method":"shutdown","params":{}}');
    expect(await host.closeStdin()).toBe(0);
    expect(host.extensionFrames().at(-1)).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
  });

  test("a failing shutdown hook → -32603 shutdown failed, and the process still exits 0", async () => {
    const host = await ready();
    await host.callTool("arm");
    const reply = await host.request("shutdown", {});
    expect(reply.error).toEqual({ code: -32603, message: "shutdown failed" });
    expect(await host.exited).toBe(0);
  });

  test("shutdown notification (no id) is ignored with a warning", async () => {
    const host = await ready();
    host.notify("shutdown", {});
    expect(await host.callTool("echo", { text: "alive" })).toMatchObject({ content: "alive" });
    expect(await host.shutdown()).toBe(0);
    expect(host.logs().some((l) => l.level === "warning" && l.message === "ignored shutdown notification")).toBe(true);
  });
});

describe("stdin EOF (docs/protocol-0.2.md §1.7)", () => {
  test("idle: logs 'extension stdin closed' and exits 0 at once", async () => {
    const host = await ready();
    const started = performance.now();
    expect(await host.closeStdin()).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_800);
    expect(host.logs()).toContainEqual({ level: "info", message: "extension stdin closed" });
  });

  test("never initialised, or after a failed initialize: still exit 0", async () => {
    const fresh = await startHost();
    expect(await fresh.closeStdin()).toBe(0);
    const failed = await startHost();
    const reply = await failed.request("initialize", { ...failed.initializeParams(), api_version: "0.2" });
    expect(reply.error).toMatchObject({ code: -32000 });
    expect(await failed.closeStdin()).toBe(0);
  });

  test("work in flight: finished work is answered; work at the deadline gets -32800 transport_lost; exit within ≈2.25 s", async () => {
    const host = await ready();
    host.sendRaw(call(10, "hold", { ms: 200 }));
    host.sendRaw(call(11, "stuck", { ms: 20_000 }));
    const started = performance.now();
    await Bun.sleep(20);
    expect(await host.closeStdin()).toBe(0);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThan(1_900);
    expect(elapsed).toBeLessThan(4_000);
    const byId = (id: number) => host.extensionFrames().filter((f) => f.id === id);
    expect(byId(10)).toEqual([{ jsonrpc: "2.0", id: 10, result: { content: "held 200", is_error: false, metadata: {} } }]);
    expect(byId(11)).toEqual([{ jsonrpc: "2.0", id: 11, error: { code: -32800, message: "request cancelled", data: { reason: "transport_lost" } } }]);
  });

  test("a tool blocked in confirm when stdin closes is answered -32800 transport_lost (no $/cancelRequest on 0.1)", async () => {
    const { TestHost } = await import("octet-extension/testing");
    const host = await ready();
    host.onRequest("confirmation/request", () => TestHost.noReply);
    host.sendRaw(call(10, "confirm", { prompt: "wait" }));
    await host.waitForFrame((f) => f.method === "confirmation/request");
    expect(await host.closeStdin()).toBe(0);
    expect(host.extensionFrames().find((f) => f.id === 10)!.error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "transport_lost" } });
    expect(host.extensionFrames().some((f) => f.method === "$/cancelRequest")).toBe(false);
  });
});

describe("scheduling on API 0.1 (docs/protocol-0.2.md §8.3, §8.10)", () => {
  test("pipelined requests are answered sequentially in arrival order", async () => {
    const host = await ready();
    host.sendRaw([call(10, "hold", { ms: 100 }), call(11, "echo", { text: "b" }), call(12, "hold", { ms: 10 }), call(13, "echo", { text: "d" })].join("\n"));
    await host.waitForReply(13);
    expect(host.extensionFrames().map((f) => f.id).slice(1)).toEqual([10, 11, 12, 13]);
    expect(await host.shutdown()).toBe(0);
  });

  test("admission: 64 admitted requests are all answered; the 65th gets -32000 queue full at once and never runs", async () => {
    const host = await ready();
    const lines = [call(100, "hold", { ms: 400 })];
    for (let i = 1; i < 64; i++) lines.push(call(100 + i, "echo", { text: String(i) }));
    lines.push(call(164, "echo", { text: "65th" }));
    host.sendRaw(lines.join("\n"));
    const rejected = await host.waitForReply(164);
    expect(rejected.error).toEqual({ code: -32000, message: "extension request queue is full" });
    await host.waitForReply(163);
    // Refused at once: written before the first admitted request (held 400 ms) was answered.
    const order = host.extensionFrames().map((f) => f.id);
    expect(order.indexOf(164)).toBeLessThan(order.indexOf(100));
    for (let i = 0; i < 64; i++) expect(host.extensionFrames().filter((f) => f.id === 100 + i).length).toBe(1);
    // Once they settled, admission is open again.
    expect(await host.callTool("echo", { text: "again" })).toMatchObject({ content: "again" });
    expect(await host.shutdown()).toBe(0);
  });

  test("a duplicate active id → -32600 duplicate active request id; the first still completes", async () => {
    const host = await ready();
    host.sendRaw(call(10, "hold", { ms: 200 }));
    host.sendRaw(call(10, "echo", { text: "dup" }));
    const frames = await host.waitForFrame((f) => f.id === 10 && "error" in f);
    expect(frames.error).toEqual({ code: -32600, message: "duplicate active request id" });
    await host.waitForFrame((f) => f.id === 10 && "result" in f);
    expect(host.extensionFrames().filter((f) => f.id === 10).length).toBe(2);
    expect(await host.shutdown()).toBe(0);
  });

  test("host responses with unknown ids are ignored with a warning; nothing is written", async () => {
    const host = await ready();
    host.sendRaw('{"jsonrpc":"2.0","id":999,"result":{}}');
    host.sendRaw('{"jsonrpc":"2.0","id":true,"result":{}}');
    expect(await host.callTool("echo", { text: "x" })).toMatchObject({ content: "x" });
    expect(host.extensionFrames().length).toBe(2);
    expect(await host.shutdown()).toBe(0);
    expect(host.logs().some((l) => l.message === "ignored late or unknown response" && l.response_id === 999)).toBe(true);
    expect(host.logs().some((l) => l.message === "ignored response with invalid id")).toBe(true);
  });
});

describe("writer (docs/protocol-0.2.md §1.1, §8.10)", () => {
  test("a 900 KB frame followed by shutdown arrives whole through a slow pipe", async () => {
    const { manifest, proc } = spawnRaw();
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { api_version: "0.1", contributes: { tools: manifest.contributes.tools, commands: manifest.contributes.commands } } };
    proc.stdin.write(JSON.stringify(init) + "\n" + call(2, "big", { size: 900_000 }) + "\n" + '{"jsonrpc":"2.0","id":3,"method":"shutdown","params":{}}\n');
    proc.stdin.flush();
    await Bun.sleep(300); // let the pipe fill while nobody reads
    const chunks: Uint8Array[] = [];
    for await (const chunk of proc.stdout) {
      chunks.push(chunk);
      await Bun.sleep(2);
    }
    expect(await proc.exited).toBe(0);
    const lines = Buffer.concat(chunks).toString("utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    const frames = lines.slice(0, -1).map((l) => JSON.parse(l));
    expect(frames.map((f) => f.id)).toEqual([1, 2, 3]);
    expect(frames[1].result.content.length).toBe(900_000);
    expect(frames[2].result).toEqual({});
  });
});

describe("failures around the edges", () => {
  test("EOF right after shutdown while a handler ignores cancellation: the call's -32800 and the ack are both written", async () => {
    const host = await ready();
    host.sendRaw(call(10, "stuck", { ms: 20_000 }));
    await waitLog(host, (l) => l.message === "stuck started"); // the handler is running when shutdown arrives
    host.sendRaw('{"jsonrpc":"2.0","id":9,"method":"shutdown","params":{}}');
    expect(await host.closeStdin()).toBe(0);
    const frames = host.extensionFrames();
    expect(frames.filter((f) => f.id === 10)).toEqual([{ jsonrpc: "2.0", id: 10, error: { code: -32800, message: "request cancelled", data: { reason: "shutdown" } } }]);
    expect(frames.filter((f) => f.id === 9)).toEqual([{ jsonrpc: "2.0", id: 9, result: {} }]);
  });

  test("a registration error at load is one structured stderr line and exit status 1, not a raw trace", async () => {
    const host = await startHost(new URL("./fixtures/broken-registration", import.meta.url).pathname);
    expect(await host.exited).toBe(1);
    const lines = host.stderr.filter((l) => l.trim() !== "");
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", message: "uncaught exception" });
    expect(lines[0]).toContain("tool `twice` is already registered");
    expect(host.violations).toEqual([]);
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
