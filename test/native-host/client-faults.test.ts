/** docs/native-host-protocol.md §18 scenarios 40–56: framing faults, process faults and cancellation, against the double. */
import { describe, expect, test } from "bun:test";
import { Cancelled, HostExited, HostUnavailable, ProtocolViolation, Timeout } from "octet-native-host";
import type { Step } from "octet-native-host/testing";
import { ACCEPTED, eventually, events, FINAL, groupAlive, groupMembers, launchDouble, survivors, rejectionOf, STEP } from "./client-helpers.ts";

const START = events(["accepted", ACCEPTED()], ["started", { model: "gpt-5.6" }]);
const END = events(["model_step", STEP()], ["settled", { status: "completed", head: "h", error: "" }], ["final_result", FINAL("ok")]);

/** Run `steps` as the script of the first run (request req-2, run run-1) and return what happened. */
async function runScript(steps: Step[], options: { ignoreSigterm?: boolean; timeoutMs?: number; stderrTailBytes?: number } = {}) {
  const launched = await launchDouble({ runs: [steps], ignoreSigterm: options.ignoreSigterm }, { stderrTailBytes: options.stderrTailBytes });
  const run = launched.host.run({ workspace: launched.workspace, model: "gpt-5.6", prompt: "x", run_id: "run-1" }, { timeoutMs: options.timeoutMs });
  const seen: { type: string; data: Record<string, unknown> }[] = [];
  let error: Error | undefined;
  try {
    for await (const event of run) seen.push(event as { type: string; data: Record<string, unknown> });
  } catch (e) {
    error = e as Error;
  }
  return { ...launched, run, seen, error };
}

/** The raw line of a run event as the real host would write it for req-2/run-1. */
const line = (seq: number, type: string, data: unknown) => JSON.stringify({ protocol_version: 1, request_id: "req-2", run_id: "run-1", seq, type, data }) + "\n";

describe("framing faults (§18 40–46)", () => {
  test("40: half a line then exit 0 is a truncated-frame violation", async () => {
    const { error, seen } = await runScript([...START, { raw: '{"protocol_version":1,"request_id":"req-2","run_id":"run-1","seq":3,"ty' }, { exit: 0 }]);
    expect(seen.map((e) => e.type)).toEqual(["accepted", "started"]);
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error!.message).toContain("truncated frame");
  });

  test("41: a 1,048,577-byte line is an oversize violation; the group is killed", async () => {
    const { error, host } = await runScript([...START, { paddedEvent: "model_delta", bytes: 1_048_577 }, { stall: true }]);
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error!.message).toContain("over the 1048576-byte frame limit");
    await host.exited;
    expect(groupAlive(host.pid)).toBe(false);
  });

  test("42: a line of exactly 1,048,576 bytes (with its LF) is accepted", async () => {
    const { error, seen, run, host } = await runScript([...START, { paddedEvent: "model_delta", bytes: 1_048_576 }, ...END]);
    expect(error).toBeUndefined();
    const delta = seen.find((e) => e.type === "model_delta")!;
    const bytes = Buffer.byteLength(JSON.stringify({ protocol_version: 1, request_id: "req-2", run_id: "run-1", seq: 3, type: "model_delta", data: delta.data })) + 1;
    expect(bytes).toBe(1_048_576);
    expect((await run.result).status).toBe("completed");
    await host.shutdown();
  });

  test("43: two events in one chunk, then one split in three chunks inside a 4-byte character", async () => {
    const text = "smile 😀 done";
    const split = line(3, "model_delta", { channel: "text", text });
    const emoji = Buffer.from(split).indexOf(Buffer.from("😀"));
    const { error, seen, run, host } = await runScript([
      { raw: line(1, "accepted", ACCEPTED()) + line(2, "started", { model: "gpt-5.6" }) },
      { event: "model_delta", data: { channel: "text", text }, envelope: { seq: 3 }, splitAt: [emoji + 1, emoji + 3] },
      ...END,
    ]);
    expect(error).toBeUndefined();
    expect(seen.map((e) => e.type).slice(0, 3)).toEqual(["accepted", "started", "model_delta"]);
    expect(seen[2]!.data.text).toBe(text);
    expect((await run.result).text).toBe(text);
    await host.shutdown();
  });

  for (const raw of ["[1,2]", '"x"', "null"]) {
    test(`44: a ${raw} line is a non-object violation`, async () => {
      const { error } = await runScript([...START, { raw: raw + "\n" }, { stall: true }]);
      expect(error).toBeInstanceOf(ProtocolViolation);
      expect(error!.message).toContain("not a JSON object");
    });
  }

  test("45: a duplicated key is a violation", async () => {
    const { error } = await runScript([...START, { raw: '{"protocol_version":1,"request_id":"req-2","run_id":"run-1","seq":3,"seq":4,"type":"model_delta","data":{"channel":"text","text":"x"}}\n' }, { stall: true }]);
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error!.message).toContain('duplicate JSON member "seq"');
  });

  test("45: a duplicated key deep inside data is a violation too", async () => {
    const { error } = await runScript([...START, { raw: line(3, "tool_start", { toolCallId: "c", toolName: "read", input: { path: "a", path2: { k: 1, k2: 2 } } }).replace('"k2"', '"k"') }, { stall: true }]);
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error!.message).toContain('duplicate JSON member "k"');
  });

  for (const raw of ["\n", "thread 'main' panicked at src/host.rs:42:9:\n"]) {
    test(`46: ${JSON.stringify(raw)} on stdout is a violation`, async () => {
      const { error } = await runScript([...START, { raw }, { stall: true }]);
      expect(error).toBeInstanceOf(ProtocolViolation);
      expect(error!.message).toContain("not JSON");
    });
  }
});

describe("process faults and cancellation (§18 47–56)", () => {
  test("47: SIGKILL after started: HostExited with the signal and stderr tail; later calls fail fast", async () => {
    const { error, host, seen } = await runScript([...START, { stderr: "provider connection reset\n" }, { sleepMs: 50 }, { signal: "SIGKILL" }]);
    expect(seen.map((e) => e.type)).toEqual(["accepted", "started"]);
    expect(error).toBeInstanceOf(HostExited);
    expect((error as HostExited).signal).toBe("SIGKILL");
    expect((error as HostExited).stderrTail).toContain("provider connection reset");
    const started = Date.now();
    expect(await rejectionOf(host.models())).toBeInstanceOf(HostUnavailable);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test("47: exit 101 (a panic) after started: HostExited with code 101", async () => {
    const { error } = await runScript([...START, { stderr: "thread 'main' panicked\n" }, { exit: 101 }]);
    expect(error).toBeInstanceOf(HostExited);
    expect((error as HostExited).exitCode).toBe(101);
    expect((error as HostExited).stderrTail).toContain("panicked");
  });

  test("48: 50 MB of stderr while streaming 1,000 events: no deadlock, every event, bounded tail", async () => {
    const steps: Step[] = [...START];
    for (let block = 0; block < 10; block++) {
      steps.push({ stderr: `${"e".repeat(1023)}\n`, repeat: 5 * 1024 });
      for (let i = 0; i < 100; i++) steps.push({ event: "model_delta", data: { channel: "text", text: "." } });
    }
    steps.push(...END);
    const { error, seen, run, host } = await runScript(steps, { stderrTailBytes: 16 * 1024 });
    expect(error).toBeUndefined();
    expect(seen.filter((e) => e.type === "model_delta")).toHaveLength(1000);
    expect((await run.result).text).toBe(".".repeat(1000));
    await host.shutdown();
    expect(host.stderrBytes).toBe(50 * 1024 * 1024);
    expect(Buffer.byteLength(host.stderrTail)).toBeLessThanOrEqual(16 * 1024);
    expect(host.stderrTail.endsWith("e\n")).toBe(true);
  }, 60_000);

  test("49: a silent host mid-run: the run timeout terminates the group (TERM, then KILL) and rejects with Timeout", async () => {
    const { error, host } = await runScript([...START, { stall: true }], { ignoreSigterm: true, timeoutMs: 300 });
    expect(error).toBeInstanceOf(Timeout);
    expect(error!.message).toContain("run run-1 timed out after 300 ms");
    expect((await host.exited).signal).toBe("SIGKILL");
  });

  test("50: cancel mid-run: the group gets SIGTERM, the double exits 143, the run is Cancelled", async () => {
    const launched = await launchDouble({ runs: [[...START, { stall: true }]] });
    const run = launched.host.run({ workspace: launched.workspace, model: "gpt-5.6", prompt: "x" });
    const seen: string[] = [];
    const iterated = await rejectionOf(
      (async () => {
        for await (const event of run) {
          seen.push(event.type);
          if (event.type === "started") void run.cancel();
        }
      })(),
    );
    expect(iterated).toBeInstanceOf(Cancelled);
    expect(seen).toEqual(["accepted", "started"]);
    const error = await rejectionOf(run.result);
    expect(error).toBeInstanceOf(Cancelled);
    expect(await launched.host.exited).toEqual({ code: 143, signal: null });
    expect(await rejectionOf(launched.host.models())).toBeInstanceOf(HostUnavailable);
  });

  test("50: an AbortSignal cancels the same way", async () => {
    const launched = await launchDouble({ runs: [[...START, { stall: true }]] });
    const controller = new AbortController();
    const run = launched.host.run({ workspace: launched.workspace, model: "gpt-5.6", prompt: "x" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(await rejectionOf(run.result)).toBeInstanceOf(Cancelled);
  });

  test("51: a host that traps SIGTERM is killed after the grace period; still Cancelled", async () => {
    const launched = await launchDouble({ runs: [[...START, { stall: true }]], ignoreSigterm: true }, { graceMs: 300 });
    const run = launched.host.run({ workspace: launched.workspace, model: "gpt-5.6", prompt: "x" });
    setTimeout(() => void run.cancel(), 100);
    expect(await rejectionOf(run.result)).toBeInstanceOf(Cancelled);
    expect((await launched.host.exited).signal).toBe("SIGKILL");
  });

  test("52: a grandchild in the host's group is gone after cancellation", async () => {
    const launched = await launchDouble({ runs: [[...START, { spawn: ["sleep", "600"] }, { sleepMs: 100 }, { stall: true }]] });
    const run = launched.host.run({ workspace: launched.workspace, model: "gpt-5.6", prompt: "x" });
    for await (const event of run) if (event.type === "started") break;
    await eventually(() => /child-pid \d+/.test(launched.host.stderrTail));
    const child = Number(/child-pid (\d+)/.exec(launched.host.stderrTail)?.[1]);
    expect(child).toBeGreaterThan(0);
    expect(groupMembers(launched.host.pid).sort()).toEqual([launched.host.pid, child].sort());
    await run.cancel();
    expect(await rejectionOf(run.result)).toBeInstanceOf(Cancelled);
    expect(await survivors(launched.host.pid)).toEqual([]);
  });

  test("53: shutdown: the reply, then exit 0", async () => {
    const { host, received } = await launchDouble();
    expect(await host.shutdown()).toEqual({ code: 0, signal: null });
    expect(received().map((r) => r.command)).toEqual(["hello", "shutdown"]);
  });

  test("53: a non-zero exit after the shutdown reply is reported", async () => {
    const { host } = await launchDouble({ shutdown: [{ event: "shutdown", data: { accepted: true } }, { exit: 3 }] });
    const error = await rejectionOf(host.shutdown());
    expect(error).toBeInstanceOf(HostExited);
    expect((error as HostExited).exitCode).toBe(3);
  });

  test("54: closing stdin while idle: the host exits 0, a clean stop", async () => {
    const { host } = await launchDouble();
    host.endInput();
    expect(await host.exited).toEqual({ code: 0, signal: null });
    expect(await rejectionOf(host.models())).toBeInstanceOf(HostUnavailable);
  });

  test("55: closing stdin mid-run: the run still completes, then the host exits 0", async () => {
    const launched = await launchDouble({ runs: [[...START, { sleepMs: 300 }, ...END]] });
    const run = launched.host.run({ workspace: launched.workspace, model: "gpt-5.6", prompt: "x" });
    launched.host.endInput();
    expect((await run.result).status).toBe("completed");
    expect(await launched.host.exited).toEqual({ code: 0, signal: null });
  });

  test("56: exit 0 while a run is pending is still an error for that run", async () => {
    const { error } = await runScript([...START, { exit: 0 }]);
    expect(error).toBeInstanceOf(HostExited);
    expect((error as HostExited).exitCode).toBe(0);
    expect(error!.message).toContain("while req-2 was pending");
  });
});
