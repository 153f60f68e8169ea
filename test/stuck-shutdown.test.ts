/**
 * A shutdown handler that never settles (issue 24 item 1). octet waits 2 s for
 * the shutdown reply and 2 s more for the exit, then kills the process group:
 * the `{}` reply must arrive within 2 s whatever the handler and the drain do,
 * the abandoned handler is one structured log line, and the process exits
 * within 2 s after the reply. Fixture: test/fixtures/stuck-shutdown/.
 */
import { describe, expect, test } from "bun:test";
import type { TestHost } from "octet-extension/testing";
import { waitLog } from "./dispatch-fixture.ts";
import { expectCleanStreams, ready } from "./helpers.ts";

const FIXTURE = new URL("./fixtures/stuck-shutdown/stuck-shutdown-v02", import.meta.url).pathname;
const SHUTDOWN = '{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{}}';
const ABANDONED = "shutdown handler did not settle: acknowledged without it";

/** Send shutdown; the reply and the exit, in ms after sending (the exit `undefined` if still running 6 s later). */
async function timeShutdown(host: TestHost, afterSend: () => void = () => {}, afterReply: () => void = () => {}) {
  const sent = performance.now();
  let exitedAt: number | undefined;
  void host.exited.then(() => (exitedAt = performance.now() - sent));
  host.sendRaw(SHUTDOWN);
  afterSend();
  const reply = await host.waitForReply(90, 6_000).catch(() => undefined);
  const replyAt = performance.now() - sent;
  if (reply) afterReply();
  await Promise.race([host.exited, Bun.sleep(reply ? 4_000 : 1)]);
  return { reply, replyMs: reply ? replyAt : undefined, exitMs: exitedAt };
}

function expectWithinOctet(name: string, t: { reply: unknown; replyMs?: number; exitMs?: number }) {
  console.log(`${name}: reply after ${t.replyMs?.toFixed(0) ?? "never (6 s)"} ms, exit after ${t.exitMs?.toFixed(0) ?? "none"} ms`);
  expect(t.reply).toEqual({ jsonrpc: "2.0", id: 90, result: {} });
  expect(t.replyMs!).toBeLessThan(2_000); // octet's wait for the reply
  expect(t.exitMs).toBeDefined();
  expect(t.exitMs! - t.replyMs!).toBeLessThan(2_000); // octet's wait for the exit after the reply
}

describe("an onShutdown handler that never settles", () => {
  test("idle: {} within 2 s (about 1 s), one log line, exit 0 within 2 s of the reply while stdin stays open", async () => {
    const host = await ready(FIXTURE);
    const t = await timeShutdown(host);
    expectWithinOctet("idle", t);
    expect(t.replyMs!).toBeGreaterThan(900); // the handler had its 1 s
    expect(await host.exited).toBe(0);
    await waitLog(host, (r) => r.message === ABANDONED);
    expect(host.logs().filter((r) => r.message === ABANDONED)).toEqual([{ level: "warning", message: ABANDONED, ms: 1_000 }]);
    expect(host.logs().filter((r) => r.message === "shutdown handler started")).toHaveLength(1);
    expect(host.extensionFrames().at(-1)).toEqual({ jsonrpc: "2.0", id: 90, result: {} });
    expectCleanStreams(host);
  }, 20_000);

  test("the host closes stdin once it has the reply: exit 0 within 2 s of the reply", async () => {
    const host = await ready(FIXTURE);
    const t = await timeShutdown(host, undefined, () => void host.closeStdin().catch(() => {}));
    expectWithinOctet("stdin closed after the reply", t);
    expect(await host.exited).toBe(0);
    await waitLog(host, (r) => r.message === ABANDONED);
  }, 20_000);

  test("the host closes stdin right after sending shutdown: the reply is still written within 2 s, then exit 0", async () => {
    const host = await ready(FIXTURE);
    const t = await timeShutdown(host, () => void host.closeStdin().catch(() => {}));
    expectWithinOctet("stdin closed after shutdown", t);
    expect(await host.exited).toBe(0);
    await waitLog(host, (r) => r.message === ABANDONED);
  }, 20_000);

  test("with a call and a lifecycle callback that ignore cancellation in flight: the call gets -32800 before {}, both within 2 s", async () => {
    const host = await ready(FIXTURE);
    host.lifecycle("turn/started", { session_id: "s1", run_id: "r1", turn_id: "t1" });
    host.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 10, method: "tool/call", params: { name: "stubborn", arguments: { ms: 20_000 }, context: host.executionContext() } }));
    await waitLog(host, (r) => r.message === "stubborn started");
    await waitLog(host, (r) => r.message === "lifecycle started");
    const t = await timeShutdown(host);
    expectWithinOctet("stuck call, lifecycle and handler", t);
    const frames = host.extensionFrames();
    const call = frames.findIndex((f) => f.id === 10);
    expect(frames[call]).toEqual({ jsonrpc: "2.0", id: 10, error: { code: -32800, message: "request cancelled", data: { reason: "shutdown" } } });
    expect(call).toBeLessThan(frames.findIndex((f) => f.id === 90));
    expect(await host.exited).toBe(0);
    await waitLog(host, (r) => r.message === ABANDONED);
    expect(host.logs().filter((r) => r.message === "shutdown handler started")).toHaveLength(1);
    expect(host.logs().filter((r) => r.message === "lifecycle handlers still running at the drain deadline: stopping without them")).toEqual([
      { level: "warning", message: "lifecycle handlers still running at the drain deadline: stopping without them", count: 1, reason: "shutdown" },
    ]);
  }, 20_000);
});
