/**
 * `Connection` serves requests once the request side (the off-path chunk) has loaded. Should that
 * load fail, initialize is still answered, every request is refused `-32603` naming the failure,
 * the failure is logged, and shutdown and EOF still end the session. What it holds meanwhile is
 * bounded. In-process: the connection is fed decoded lines and its writer is read back.
 */
import { expect, test } from "bun:test";
import { Logger } from "../../src/log.ts";
import { SUPPORTED_FEATURES } from "../../src/protocol.ts";
import { Connection } from "../../src/runtime/connection.ts";
import { offPathModules, type RequestSide } from "../../src/runtime/lazy-host-calls.ts";
import { Registry } from "../../src/runtime/registry.ts";
import { FrameWriter } from "../../src/wire/frame-writer.ts";

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { api_version: "0.2", contributes: { tools: ["echo"] }, protocol: { version: "0.2", required_features: [], optional_features: [], limits: { max_concurrent_requests: 4 } } },
});
const call = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name: "echo", arguments: {} } });

function session(engine: Promise<RequestSide>) {
  const frames: Record<string, unknown>[] = [];
  const logs: Record<string, unknown>[] = [];
  const writer = new FrameWriter({ write: (chunk) => (frames.push(...String(chunk).split("\n").filter(Boolean).map((line) => JSON.parse(line))), 0), flush: () => 0 });
  const registry = new Registry("0.2");
  let handlerRan = false;
  registry.addTool({ name: "echo", description: "Echo" }, () => {
    handlerRan = true;
    return "ok";
  });
  registry.freeze();
  let stopped = false;
  const connection = new Connection({
    registry,
    logger: new Logger((line) => logs.push(JSON.parse(line))),
    writer,
    maxMessageBytes: 1 << 20,
    maxPendingRequests: 64,
    maxConcurrentRequests: 4,
    supportedFeatures: new Set(SUPPORTED_FEATURES),
    shutdownTimeoutMs: 1_000,
    cancellationGraceMs: 100,
    cancelledReplyMs: 500,
    onStop: () => (stopped = true),
    engine,
  });
  return { connection, frames, logs, handlerRan: () => handlerRan, stopped: () => stopped };
}

const refusal = { code: -32603, message: "the request side of the runtime could not be loaded: chunk missing" };

test("a request side that cannot load: initialize answered, requests refused -32603 naming why, shutdown still ends the session", async () => {
  const { promise, reject } = Promise.withResolvers<RequestSide>();
  const s = session(promise);
  s.connection.receive({ kind: "text", text: initialize });
  // Arrives before the load has failed: held, then refused in order.
  s.connection.receive({ kind: "text", text: call(2) });
  reject(new Error("chunk missing"));
  await Bun.sleep(5);
  s.connection.receive({ kind: "text", text: call(3) });
  s.connection.receive({ kind: "text", text: '{"jsonrpc":"2.0","id":4,"method":"shutdown"}' });
  await Bun.sleep(20);
  expect(s.frames.map((frame) => frame.id)).toEqual([1, 2, 3, 4]);
  expect((s.frames[0]!.result as { api_version: string }).api_version).toBe("0.2");
  expect(s.frames[1]!.error).toEqual(refusal);
  expect(s.frames[2]!.error).toEqual(refusal);
  expect(s.frames[3]!.result).toEqual({});
  expect(s.handlerRan()).toBe(false);
  expect(s.stopped()).toBe(true);
  expect(s.logs.filter((record) => record.level === "error").map((record) => record.message)).toContain("the request side of the runtime could not be loaded");
});

test("a request side that cannot load: EOF still ends the session", async () => {
  const s = session(Promise.reject(new Error("chunk missing")));
  s.connection.receive({ kind: "text", text: initialize });
  await s.connection.endOfInput();
  expect(s.frames.map((frame) => frame.id)).toEqual([1]);
  expect(s.stopped()).toBe(true);
});

test("held frames are bounded: past 4 MiB a request is refused as a full queue; the held ones are served once the request side is there", async () => {
  const { promise, resolve } = Promise.withResolvers<RequestSide>();
  const s = session(promise);
  s.connection.receive({ kind: "text", text: initialize });
  // 64 KiB frames: 64 of them fill the 4 MiB.
  const padded = (id: number) => {
    const frame = call(id);
    return frame.replace('"arguments":{}', `"arguments":{"pad":"${"x".repeat(65_536 - frame.length - 8)}"}`);
  };
  expect(padded(2).length).toBe(65_536);
  for (let id = 2; id <= 70; id++) s.connection.receive({ kind: "text", text: padded(id) });
  await Bun.sleep(5);
  // ids 66..70 did not fit: refused at once, before anything held is served.
  expect(s.frames.map((frame) => frame.id)).toEqual([1, 66, 67, 68, 69, 70]);
  for (const frame of s.frames.slice(1)) expect(frame.error).toEqual({ code: -32000, message: "extension request queue is full" });
  resolve(offPathModules());
  await Bun.sleep(20);
  const answered = s.frames.slice(6).map((frame) => frame.id);
  expect(answered).toEqual(Array.from({ length: 64 }, (_, i) => i + 2));
  for (const frame of s.frames.slice(6)) expect(frame.result).toEqual({ content: [{ type: "text", text: "ok" }], is_error: false, metadata: {} });
  expect(s.handlerRan()).toBe(true);
});
