import { afterEach, describe, expect, test } from "bun:test";
import { callRaw, DEFAULT_OPTIONAL, killAll, launch, logsNamed, payload, until } from "./helpers.ts";

/**
 * Lifecycle notifications (docs/protocol-0.2.md §3.10, §8.1, §8.2 step 7/9, §8.3, §8.9, §10 76–77):
 * `on_lifecycle` accepts `turn_settled` or `turn/settled` and rejects unknown
 * names at registration; subscriptions return (sorted, slash names) through
 * protocol.lifecycle_events; subscribed methods — tool/* included — reach their
 * handlers with the params object, never answered and without an ambient
 * request; a failing handler is logged (`lifecycle handler failed`, error).
 *
 * The fixture registers turn_started, turn/settled, tool_started, tool_settled and
 * session_started; session/settled has no handler.
 */

type Obj = Record<string, unknown>;
const SUBSCRIBED = ["session/started", "tool/settled", "tool/started", "turn/settled", "turn/started"];
const TOOL_STARTED = { session_id: "s1", run_id: "r1", turn_id: "t1", tool_call_id: "call-1", tool_name: "read" };
const TOOL_SETTLED = { ...TOOL_STARTED, outcome: "completed", duration_ms: 12, reason: null };
const TURN_STARTED = { session_id: "s1", run_id: "r1", turn_id: "t1" };
const TURN_SETTLED = { ...TURN_STARTED, outcome: "failed", duration_ms: 40, reason: "provider error" };

const lifecycleLog = async (host: Awaited<ReturnType<typeof launch>>, min: number, timeoutMs = 5_000) =>
  payload<Obj[]>(await callRaw(host, "lifecycle_log", { min, timeout_ms: timeoutMs }), "lifecycle");

afterEach(killAll);

describe("lifecycle registration", () => {
  test("underscore and slash names subscribe the slash methods; protocol.lifecycle_events lists them sorted", async () => {
    const host = await launch({}, false);
    const result = await host.initialize();
    const protocol = result.protocol as Obj;
    expect(protocol.features).toContain("lifecycle_events");
    expect(protocol.lifecycle_events).toEqual(SUBSCRIBED);
    expect(await host.shutdown()).toBe(0);
  });

  test("unknown event names (and a second handler for the same event) are rejected when registering; valid ones accepted", async () => {
    const host = await launch();
    const report = payload<{ accepted: string[]; rejected: { name: string; error: string }[] }>(await callRaw(host, "registration_report"), "registration");
    expect(report.accepted).toEqual(["turn_started", "turn/settled", "tool_started", "tool_settled", "session_started"]);
    expect(report.rejected.map((r) => r.name)).toEqual([
      "turn_finished",
      "turn/ended",
      "message/started",
      "session.started",
      "tool-started",
      "TURN_STARTED",
      "turn__started",
      "turn/started ",
      "",
      "turn_started",
    ]);
    for (const r of report.rejected) expect(r.error.length).toBeGreaterThan(0);
    expect(await host.shutdown()).toBe(0);
  });

  test("without lifecycle_events offered the feature and the list are absent and nothing is delivered", async () => {
    const host = await launch({ offer: { optional: DEFAULT_OPTIONAL.filter((f) => f !== "lifecycle_events") } }, false);
    const protocol = (await host.initialize()).protocol as Obj;
    expect(protocol.features).not.toContain("lifecycle_events");
    expect("lifecycle_events" in protocol).toBe(false);
    host.lifecycle("turn/started", TURN_STARTED);
    expect(await lifecycleLog(host, 1, 200)).toEqual([]);
    expect(await host.shutdown()).toBe(0);
    expect(logsNamed(host, "ignored unnegotiated lifecycle event")).toEqual([{ level: "warning", message: "ignored unnegotiated lifecycle event", method: "turn/started" }]);
  });
});

describe("lifecycle delivery", () => {
  test("tool/started, tool/settled, turn/*, session/started reach their handlers with the params object; no stdout frame; no ambient request", async () => {
    const host = await launch();
    const before = host.extensionFrames().length;
    host.lifecycle("tool/started", TOOL_STARTED);
    host.lifecycle("tool/settled", TOOL_SETTLED);
    host.lifecycle("turn/started", TURN_STARTED);
    host.lifecycle("turn/settled", TURN_SETTLED);
    host.lifecycle("session/started", { session_id: "s1", run_id: null });
    await Bun.sleep(50);
    expect(host.extensionFrames().length).toBe(before); // notifications are never answered
    const log = await lifecycleLog(host, 5);
    expect(log).toEqual([
      { method: "tool/started", params: TOOL_STARTED, ambient_request_id: null },
      { method: "tool/settled", params: TOOL_SETTLED, ambient_request_id: null },
      { method: "turn/started", params: TURN_STARTED, ambient_request_id: null },
      { method: "turn/settled", params: TURN_SETTLED, ambient_request_id: null },
      { method: "session/started", params: { session_id: "s1", run_id: null }, ambient_request_id: null },
    ]);
    expect(await host.shutdown()).toBe(0);
  });

  test("unsubscribed methods, underscore spellings on the wire and lifecycle methods sent as requests are not delivered", async () => {
    const host = await launch();
    host.lifecycle("session/settled", { session_id: "s1", run_id: null, outcome: "completed", duration_ms: 1, reason: null });
    host.lifecycle("tool_started", TOOL_STARTED); // wire methods use slashes
    host.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 77, method: "tool/started", params: TOOL_STARTED }));
    expect((await host.waitForReply(77)).error).toEqual({ code: -32601, message: "unknown method: tool/started" });
    host.lifecycle("turn/started", TURN_STARTED); // a marker that is delivered
    const log = await lifecycleLog(host, 1);
    await Bun.sleep(50);
    expect((await lifecycleLog(host, 1)).map((r) => r.method)).toEqual(["turn/started"]);
    expect(log.length).toBe(1);
    expect(await host.shutdown()).toBe(0);
    // A subscribed-but-unhandled method is ignored with a warning (docs/protocol-0.2.md §10 77 does not pin which of the two texts).
    const ignored = host.logs().filter((l) => l.method === "session/settled");
    expect(ignored.length).toBe(1);
    expect(ignored[0]).toMatchObject({ level: "warning" });
    expect(["ignored unnegotiated lifecycle event", "ignored unknown notification"]).toContain(ignored[0]!.message as string);
    expect(logsNamed(host, "ignored unknown notification").filter((l) => l.method === "tool_started")).toEqual([{ level: "warning", message: "ignored unknown notification", method: "tool_started" }]);
  });

  test("a throwing or rejecting handler is logged 'lifecycle handler failed' at level error; nothing on stdout; later events are delivered", async () => {
    const host = await launch();
    const before = host.extensionFrames().length;
    host.lifecycle("turn/settled", { ...TURN_SETTLED, fail: "sync" });
    host.lifecycle("tool/settled", { ...TOOL_SETTLED, fail: "async" });
    await until(() => logsNamed(host, "lifecycle handler failed").length === 2, 5_000, "two lifecycle failure logs");
    expect(host.extensionFrames().length).toBe(before);
    const failures = logsNamed(host, "lifecycle handler failed");
    for (const record of failures) expect(record.level).toBe("error");
    // The records identify the failure (the handler's error text appears in them).
    expect(failures.some((r) => JSON.stringify(r).includes("lifecycle boom turn/settled"))).toBe(true);
    expect(failures.some((r) => JSON.stringify(r).includes("lifecycle async boom tool/settled"))).toBe(true);
    host.lifecycle("tool/started", TOOL_STARTED);
    const log = await lifecycleLog(host, 3);
    expect(log.map((r) => r.method)).toEqual(["turn/settled", "tool/settled", "tool/started"]);
    expect(host.violations).toEqual([]); // every stderr line stayed structured
    expect(await host.shutdown()).toBe(0);
  });
});

describe("lifecycle callbacks are admitted work for the drain (docs/protocol-0.2.md §8.8 step 3, §1.7, §10 76)", () => {
  test("shutdown while a callback runs: the ack is written only after it returns", async () => {
    const host = await launch();
    // The callback's 300 ms start after the extension reads the notification, so after this clock starts.
    const started = performance.now();
    host.lifecycle("turn/started", { ...TURN_STARTED, hold_ms: 300 });
    await Bun.sleep(30);
    expect(await host.shutdown()).toBe(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    await until(() => logsNamed(host, "fixture lifecycle done").length === 1, 5_000, "the callback's completion log");
    expect(logsNamed(host, "fixture lifecycle done")).toEqual([{ level: "info", message: "fixture lifecycle done", method: "turn/started" }]);
  });

  test("a callback that never ends cannot hold shutdown beyond the budget plus the grace", async () => {
    const host = await launch();
    host.lifecycle("turn/started", { ...TURN_STARTED, hold_ms: 10_000 });
    await Bun.sleep(30);
    const started = performance.now();
    host.sendRaw('{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{"drain_timeout_ms":200}}');
    expect((await host.waitForReply(90)).result).toEqual({});
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThan(180);
    expect(elapsed).toBeLessThan(1_800); // 200 ms + 250 ms grace, below the default 2 s budget
    expect(await host.exited).toBe(0);
  });

  test("EOF while a callback runs: it completes within the drain budget and the process exits 0", async () => {
    const host = await launch();
    const started = performance.now();
    host.lifecycle("tool/started", { ...TOOL_STARTED, hold_ms: 300 });
    await Bun.sleep(30);
    expect(await host.closeStdin()).toBe(0);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(295);
    expect(elapsed).toBeLessThan(1_800); // below the 2 s EOF budget
    await until(() => logsNamed(host, "fixture lifecycle done").length === 1, 5_000, "the callback's completion log");
  });
});
