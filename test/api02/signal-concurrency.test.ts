import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestHost } from "octet-extension/testing";
import { callLine, callRaw, killAll, launch, logsNamed, payload, resultText, until } from "./helpers.ts";

/**
 * ctx.signal (docs/protocol-0.2.md §8.5: every admitted API 0.2 request has a cancellation
 * token; $/cancelRequest cancels it, first reason wins, default "cancelled";
 * the reply is -32800 with the reason even if the handler then returns) and
 * negotiated concurrency (docs/protocol-0.2.md §8.1 accessor, §8.2 step 8: min(requested,
 * local max 8), `limits.max_concurrent_requests` defaulting to 1).
 */

type Obj = Record<string, unknown>;
const cancelled = (reason: string) => ({ code: -32800, message: "request cancelled", data: { reason } });
const signalLogs = (host: TestHost) => logsNamed(host, "fixture signal");
/** The fixture's handler for request `id` has started (it logs before it waits). */
const started = (host: TestHost, id: number) => logsNamed(host, "fixture handler started").some((l) => l.request_id === id);

afterEach(killAll);

describe("ctx.signal aborts on $/cancelRequest", () => {
  test("a signal read before the cancel fires 'abort' with the -32800 error carrying the host's reason; the reply is -32800", async () => {
    const host = await launch();
    host.sendRaw(callLine(10, "signal_wait"));
    await until(() => signalLogs(host).some((l) => l.where === "before"), 5_000, "the handler to start");
    expect(signalLogs(host).find((l) => l.where === "before")).toMatchObject({ aborted: false, reason_code: null, token_reason: null, request_id: 10 });
    host.cancel(10, "user");
    host.cancel(10, "second reason ignored");
    expect((await host.waitForReply(10)).error).toEqual(cancelled("user"));
    await until(() => signalLogs(host).some((l) => l.where === "abort-event"), 5_000, "the abort event");
    expect(signalLogs(host).find((l) => l.where === "abort-event")).toEqual({
      level: "info",
      message: "fixture signal",
      where: "abort-event",
      request_id: 10,
      aborted: true,
      reason_is_rpc_error: true,
      reason_code: -32800,
      reason_data: { reason: "user" },
      token_reason: "user",
    });
    await Bun.sleep(50);
    expect(host.extensionFrames().filter((f) => f.id === 10).length).toBe(1); // the handler's normal return is discarded
    expect(await host.shutdown()).toBe(0);
  });

  test("a signal first read after the cancel is already aborted; a cancel without a reason means 'cancelled'", async () => {
    const host = await launch();
    host.sendRaw(callLine(11, "signal_late"));
    // A cancel read before the handler starts settles the call without running it: wait until it runs.
    await until(() => started(host, 11), 5_000, "the handler to start");
    host.notify("$/cancelRequest", { id: 11 });
    expect((await host.waitForReply(11)).error).toEqual(cancelled("cancelled"));
    await until(() => signalLogs(host).some((l) => l.where === "late"), 5_000, "the late read");
    expect(signalLogs(host).find((l) => l.where === "late")).toMatchObject({ aborted: true, reason_is_rpc_error: true, reason_code: -32800, reason_data: { reason: "cancelled" }, token_reason: "cancelled" });
    expect(await host.shutdown()).toBe(0);
  });

  test("the signal aborts a platform timer (node:timers/promises) at once, not after its 10 s", async () => {
    const host = await launch();
    host.sendRaw(callLine(12, "signal_timer"));
    await until(() => started(host, 12), 5_000, "the handler to start");
    const sent = performance.now();
    host.cancel(12, "timeout");
    expect((await host.waitForReply(12)).error).toEqual(cancelled("timeout"));
    expect(performance.now() - sent).toBeLessThan(3_000);
    await until(() => signalLogs(host).some((l) => l.where === "timer"), 5_000, "the timer record");
    const timer = signalLogs(host).find((l) => l.where === "timer")!;
    expect(timer.error_name).toBe("AbortError");
    expect(timer.elapsed_ms as number).toBeLessThan(5_000);
    expect(await host.shutdown()).toBe(0);
  });

  test("the shutdown drain deadline aborts the signal too (reason shutdown); the call's -32800 precedes the ack", async () => {
    const host = await launch();
    host.sendRaw(callLine(13, "signal_wait"));
    await until(() => signalLogs(host).some((l) => l.where === "before"), 5_000, "the handler to start");
    host.sendRaw('{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{"drain_timeout_ms":0}}');
    expect(await host.exited).toBe(0);
    const frames = host.extensionFrames();
    const reply = frames.findIndex((f) => f.id === 13);
    expect(frames[reply]!.error).toEqual(cancelled("shutdown"));
    expect(reply).toBeLessThan(frames.findIndex((f) => f.id === 90));
    await until(() => signalLogs(host).some((l) => l.where === "abort-event"), 5_000, "the abort event");
    expect(signalLogs(host).find((l) => l.where === "abort-event")).toMatchObject({ aborted: true, reason_code: -32800, reason_data: { reason: "shutdown" }, token_reason: "shutdown" });
  });

  test("a call that is not cancelled sees a signal that is not aborted; cancels aimed at other ids do not touch it", async () => {
    const host = await launch();
    const id = host.peekNextId();
    const reply = callRaw(host, "signal_plain");
    host.cancel(id + 1000, "user");
    host.notify("$/cancelRequest", { id: String(id), reason: "user" }); // "7" is not 7 (type-sensitive)
    expect(payload(await reply, "signal_plain")).toEqual({ where: "plain", request_id: id, aborted: false, reason_is_rpc_error: false, reason_code: null, reason_data: null, token_reason: null });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("negotiatedConcurrency after initialize", () => {
  const stats = async (host: TestHost) => payload<{ concurrency: number; features: string[]; max_running: number; entered: string[] }>(await callRaw(host, "stats"), "stats");

  test.each([
    [64, 8],
    [9, 8],
    [8, 8],
    [3, 3],
    [1, 1],
  ])("host limit %i → negotiatedConcurrency %i (min with the local max 8), equal to the advertised limit", async (offered, expected) => {
    const host = await launch({ offer: { maxConcurrentRequests: offered } }, false);
    const protocol = (await host.initialize()).protocol as Obj;
    expect(protocol.limits).toEqual({ max_concurrent_requests: expected });
    const report = await stats(host);
    expect(report.concurrency).toBe(expected);
    expect(report.features).toEqual(protocol.features as string[]);
    expect(await host.shutdown()).toBe(0);
  });

  test("limits without max_concurrent_requests → 1", async () => {
    const host = await launch({}, false);
    const params = host.initializeParams();
    (params.protocol as Obj).limits = {};
    const protocol = (await host.initialize(params)).protocol as Obj;
    expect(protocol.limits).toEqual({ max_concurrent_requests: 1 });
    expect((await stats(host)).concurrency).toBe(1);
    expect(await host.shutdown()).toBe(0);
  });

  test("max_concurrent_requests is read lexically: 1.0, 1e1, true, \"4\", 0, -3 → -32602 (still uninitialised); a 21-digit integer → 8", async () => {
    const host = await launch({}, false);
    const line = (id: number, lexeme: string) => {
      const params = host.initializeParams();
      (params.protocol as Obj).limits = { max_concurrent_requests: "__N__" };
      return JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params }).replace('"__N__"', lexeme);
    };
    const bad = ["1.0", "1e1", "true", '"4"', "0", "-3"];
    for (const [i, lexeme] of bad.entries()) {
      host.sendRaw(line(10 + i, lexeme));
      expect(((await host.waitForReply(10 + i)).error as Obj).code).toBe(-32602);
    }
    host.sendRaw(callLine(30, "stats"));
    expect((await host.waitForReply(30)).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    host.sendRaw(line(31, "100000000000000000000"));
    expect(((await host.waitForReply(31)).result as Obj).protocol).toMatchObject({ limits: { max_concurrent_requests: 8 } });
    host.sendRaw(callLine(32, "stats"));
    expect(payload(await host.waitForReply(32), "stats")).toMatchObject({ concurrency: 8 });
    expect(await host.shutdown()).toBe(0);
  });

  test("the negotiated value is what runs: with 3, exactly 3 of 6 blocked calls run at once; the rest start as slots free", async () => {
    const host = await launch({ offer: { maxConcurrentRequests: 3 } });
    host.sendRaw(Array.from({ length: 6 }, (_, i) => callLine(30 + i, "gate", { name: "three" })).join("\n"));
    const entered = () => logsNamed(host, "fixture gate entered").length;
    await until(() => entered() === 3, 5_000, "three running handlers");
    await Bun.sleep(150);
    expect(entered()).toBe(3);
    expect(logsNamed(host, "fixture gate entered").map((l) => l.request_id)).toEqual([30, 31, 32]);
    writeFileSync(join(host.scratch, "three"), "");
    for (let i = 0; i < 6; i++) expect(resultText(await host.waitForReply(30 + i))).toBe("gate:three");
    const report = await stats(host);
    expect(report.max_running).toBe(3);
    expect(report.entered.length).toBe(6);
    expect(await host.shutdown()).toBe(0);
  });
});
