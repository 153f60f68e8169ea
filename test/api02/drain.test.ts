import { afterEach, describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { callLine, killAll, launch, logsNamed, until } from "./helpers.ts";

/**
 * Outstanding extension→host requests when the extension stops (docs/protocol-0.2.md §1.7,
 * §8.5, §8.8; §5 -32000 texts). Requests a handler awaits are abandoned when
 * the handler's token is cancelled at the drain deadline ($/cancelRequest for
 * the child, then -32800 with the handler's reason); requests with no handler
 * (issued outside any handler) stay outstanding until the stop, and then fail
 * with -32000 "extension stopped" (shutdown) or "stdin closed while waiting
 * for host response" (EOF). An idle process does not sit out the drain budget.
 */

type Obj = Record<string, unknown>;

afterEach(killAll);

/** Launch with lifecycle events and a host that never answers `fixture/hold` or confirmations. */
async function silentHost(): Promise<TestHost> {
  const host = await launch();
  host.onRequest("fixture/hold", () => TestHost.noReply);
  host.onRequest("confirmation/request", () => TestHost.noReply);
  return host;
}

/** A lifecycle callback (no ambient request) issues `fixture/hold`, which the host never answers. */
async function startBackground(host: TestHost, tag: string): Promise<Obj> {
  host.lifecycle("session/started", { session_id: "s", run_id: null, background: tag });
  return host.waitForFrame((f) => f.method === "fixture/hold" && (f.params as Obj).tag === tag);
}

const backgroundFailures = (host: TestHost) => logsNamed(host, "fixture background failed");

/** stderr is read on its own pipe and may trail the exit: wait for a record before asserting on it. */
const stderrShows = (host: TestHost, message: string) => until(() => logsNamed(host, message).length > 0, 5_000, `stderr record "${message}"`);

describe("drain: reverse requests outstanding at the stop fail with -32000", () => {
  test("shutdown: an idle process acknowledges at once; the request issued outside any handler fails -32000 'extension stopped'", async () => {
    const host = await silentHost();
    const frame = await startBackground(host, "a");
    expect(frame.params).toEqual({ tag: "a" }); // no parent outside a handler
    expect(typeof frame.id).toBe("string");
    const started = performance.now();
    expect(await host.shutdown()).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_800); // outstanding reverse requests are not admitted work
    await stderrShows(host, "fixture background failed");
    expect(backgroundFailures(host)).toEqual([{ level: "info", message: "fixture background failed", tag: "a", code: -32000, error: "extension stopped" }]);
    expect(logsNamed(host, "fixture background settled")).toEqual([]);
    // The ack is the last frame: nothing (no $/cancelRequest, no late output) follows it.
    expect(host.extensionFrames().at(-1)).toMatchObject({ result: {} });
  });

  test("EOF: an idle process exits 0 at once; the request issued outside any handler fails -32000 'stdin closed while waiting for host response'", async () => {
    const host = await silentHost();
    await startBackground(host, "b");
    const frames = host.extensionFrames().length;
    const started = performance.now();
    expect(await host.closeStdin()).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_800);
    await stderrShows(host, "fixture background failed");
    expect(backgroundFailures(host)).toEqual([
      { level: "info", message: "fixture background failed", tag: "b", code: -32000, error: "stdin closed while waiting for host response" },
    ]);
    expect(logsNamed(host, "extension stdin closed")).toEqual([{ level: "info", message: "extension stdin closed" }]);
    expect(host.extensionFrames().length).toBe(frames);
    expect(host.violations).toEqual([]);
  });

  test("shutdown at the drain deadline: the awaited child is cancelled (reason shutdown) before the call's -32800, both before the ack; the handler-less request still fails -32000 'extension stopped'", async () => {
    const host = await silentHost();
    await startBackground(host, "c");
    host.sendRaw(callLine(20, "confirm_wait"));
    const child = await host.waitForFrame((f) => f.method === "confirmation/request");
    expect((child.params as Obj).parent_request_id).toBe(20);
    host.sendRaw('{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{"drain_timeout_ms":100}}');
    expect(await host.exited).toBe(0);
    const frames = host.extensionFrames();
    const cancel = frames.findIndex((f) => f.method === "$/cancelRequest" && (f.params as Obj).id === child.id);
    const reply = frames.findIndex((f) => f.id === 20);
    const ack = frames.findIndex((f) => f.id === 90);
    expect(frames[cancel]!.params).toEqual({ id: child.id, reason: "shutdown" });
    expect(frames[reply]!.error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "shutdown" } });
    expect(frames[ack]!.result).toEqual({});
    expect(cancel).toBeGreaterThan(-1);
    expect(cancel).toBeLessThan(reply);
    expect(reply).toBeLessThan(ack);
    expect(frames.filter((f) => f.id === 20).length).toBe(1);
    await stderrShows(host, "fixture background failed");
    expect(backgroundFailures(host)).toEqual([{ level: "info", message: "fixture background failed", tag: "c", code: -32000, error: "extension stopped" }]);
    expect(host.violations).toEqual([]);
  });

  test("EOF with a handler awaiting a child: child cancelled (transport_lost), call -32800 transport_lost; the handler-less request fails -32000 'stdin closed…' and is not failed at EOF itself", async () => {
    const host = await silentHost();
    await startBackground(host, "d");
    host.sendRaw(callLine(21, "confirm_wait"));
    const child = await host.waitForFrame((f) => f.method === "confirmation/request");
    const started = performance.now();
    const exited = host.closeStdin();
    // Outstanding requests are not failed when EOF is read (docs/protocol-0.2.md §1.7): nothing yet ~0.5 s after EOF.
    await Bun.sleep(500);
    expect(backgroundFailures(host)).toEqual([]);
    expect(await exited).toBe(0);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThan(1_800); // the 2 s EOF drain budget
    expect(elapsed).toBeLessThan(4_000);
    const frames = host.extensionFrames();
    const cancel = frames.findIndex((f) => f.method === "$/cancelRequest" && (f.params as Obj).id === child.id);
    const reply = frames.findIndex((f) => f.id === 21);
    expect(frames[cancel]!.params).toEqual({ id: child.id, reason: "transport_lost" });
    expect(frames[reply]!.error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "transport_lost" } });
    expect(cancel).toBeLessThan(reply);
    await stderrShows(host, "fixture background failed");
    expect(backgroundFailures(host)).toEqual([
      { level: "info", message: "fixture background failed", tag: "d", code: -32000, error: "stdin closed while waiting for host response" },
    ]);
    expect(host.violations).toEqual([]);
  });

  test("a host answer that arrives before the stop still settles the handler-less request (it is not failed early)", async () => {
    const host = await silentHost();
    const frame = await startBackground(host, "e");
    host.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: frame.id, result: { ok: true } }));
    await Bun.sleep(100);
    expect(await host.shutdown()).toBe(0);
    await stderrShows(host, "fixture background settled");
    expect(logsNamed(host, "fixture background settled")).toEqual([{ level: "info", message: "fixture background settled", tag: "e", result: { ok: true } }]);
    expect(backgroundFailures(host)).toEqual([]);
  });
});
