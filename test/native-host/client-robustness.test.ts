/**
 * Client robustness beyond the scenario list of docs/native-host-protocol.md §18: exits hidden by an open stdout,
 * cancellation ownership, buffering and backpressure, secrets in stderr tails,
 * and what may never be written.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Cancelled, HostExited, InvalidRequest, NativeHost, ProtocolViolation, Timeout, type RunEvent } from "octet-native-host";
import { StderrTail } from "../../native-host/client/stderr-tail.ts";
import type { Step } from "octet-native-host/testing";
import { ACCEPTED, eventually, events, FINAL, groupMembers, launchDouble, survivors, rejectionOf, STEP, tempDir } from "./client-helpers.ts";

const START = events(["accepted", ACCEPTED()], ["started", { model: "gpt-5.6" }]);
const END = events(["model_step", STEP()], ["settled", { status: "completed", head: "h", error: "" }], ["final_result", FINAL("ok")]);
const HELLO_LINE = JSON.stringify({
  protocol_version: 1, request_id: "hello-1", seq: 1, type: "hello",
  data: { sdk_version: "0.8.0", protocol_version: 1, max_frame_bytes: 1048576, max_concurrent_runs: 1, commands: ["hello", "models", "run", "shutdown"], features: { process_group_abort: true, in_band_abort: false } },
});

/** A hand-written sh host: answers hello, then runs `afterRun` once the run request arrived. */
function shHost(afterRun: string): string {
  const path = join(tempDir(), "octet-host");
  writeFileSync(path, `#!/bin/sh\nread line\nprintf '%s\\n' '${HELLO_LINE}'\nread line\n${afterRun}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("the host's end is always noticed", () => {
  test("an exit while a grandchild keeps stdout open still fails the run with HostExited, and the group is swept", async () => {
    const path = shHost("sleep 30 &\necho $! >&2\nkill -9 $$");
    const host = await NativeHost.launch({ path, cwd: tempDir(), graceMs: 300 });
    const started = Date.now();
    const error = await rejectionOf(host.run({ workspace: "/tmp", model: "gpt-5.6", prompt: "x" }).result);
    expect(error).toBeInstanceOf(HostExited);
    expect((error as HostExited).signal).toBe("SIGKILL");
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await survivors(host.pid)).toEqual([]);
  });

  test("a crash leaves no member of the host's group behind", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...START, { spawn: ["sleep", "600"] }, { sleepMs: 100 }, { exit: 101 }]] });
    const error = await rejectionOf(host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result);
    expect(error).toBeInstanceOf(HostExited);
    expect((error as HostExited).exitCode).toBe(101);
    expect(await survivors(host.pid)).toEqual([]);
  });

  test("invalid UTF-8 on stdout is a violation", async () => {
    const path = shHost("printf '\\377\\376\\n'\nsleep 30");
    const host = await NativeHost.launch({ path, cwd: tempDir(), graceMs: 300 });
    const error = await rejectionOf(host.run({ workspace: "/tmp", model: "gpt-5.6", prompt: "x" }).result);
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error.message).toContain("not valid UTF-8");
  });

  test("a host held to a smaller announced frame limit: a longer line is a violation", async () => {
    const long = "y".repeat(5000);
    const { host, workspace } = await launchDouble({ helloData: { max_frame_bytes: 4096 }, runs: [[...START, { event: "model_delta", data: { channel: "text", text: long } }, { stall: true }]] });
    const error = await rejectionOf(host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result);
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error.message).toContain("over the 4096-byte frame limit");
  });

  test("a scoped run event without run_id is a violation", async () => {
    const { host, workspace } = await launchDouble({ runs: [[{ event: "accepted", data: ACCEPTED(), envelope: { run_id: null } }, { stall: true }]] });
    const error = await rejectionOf(host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result);
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error.message).toContain("accepted event (seq 1) lacks run_id");
  });
});

describe("cancellation belongs to its run", () => {
  test("cancel() of a finished run does not touch the next request", async () => {
    const { host, workspace } = await launchDouble({ runs: [[{ defaultRun: true }], [...START, { sleepMs: 400 }, ...END]] });
    const first = host.run({ workspace, model: "gpt-5.6", prompt: "one" });
    expect((await first.result).status).toBe("completed");
    const second = host.run({ workspace, model: "gpt-5.6", prompt: "two" });
    await first.cancel();
    expect((await second.result).status).toBe("completed");
    await host.shutdown();
  });

  test("a finished run's deadline does not fire on a later request", async () => {
    const { host, workspace } = await launchDouble({ runs: [[{ defaultRun: true }], [...START, { sleepMs: 2_000 }, ...END]] });
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "one" }, { timeoutMs: 1_500 }).result).status).toBe("completed");
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "two" }).result).status).toBe("completed");
    await host.shutdown();
  });

  test("an already aborted signal throws Cancelled and writes nothing; the host stays usable", async () => {
    const { host, workspace, received } = await launchDouble();
    const controller = new AbortController();
    controller.abort();
    expect(() => host.run({ workspace, model: "gpt-5.6", prompt: "x" }, { signal: controller.signal })).toThrow(Cancelled);
    expect(received().map((r) => r.command)).toEqual(["hello"]);
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "y" }).result).status).toBe("completed");
    await host.shutdown();
  });

  test("kill() with a run in flight rejects it with Cancelled", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...START, { stall: true }]] });
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "x" });
    for await (const event of run) if (event.type === "started") break;
    const exit = await host.kill();
    expect(exit).toEqual({ code: 143, signal: null });
    expect(await rejectionOf(run.result)).toBeInstanceOf(Cancelled);
  });

  test("a host that ignores SIGTERM: cancellation reaches every member of its group", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...START, { spawn: ["sleep", "600"] }, { stall: true }]], ignoreSigterm: true }, { graceMs: 300 });
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "x" });
    for await (const event of run) if (event.type === "started") break;
    await eventually(() => groupMembers(host.pid).length >= 2);
    expect(groupMembers(host.pid).length).toBe(2);
    await run.cancel();
    expect(await rejectionOf(run.result)).toBeInstanceOf(Cancelled);
    expect((await host.exited).signal).toBe("SIGKILL");
    expect(await survivors(host.pid)).toEqual([]);
  });
});

describe("events are buffered for the consumer, within bounds", () => {
  const deltas = (n: number): Step[] => Array.from({ length: n }, (_, i) => ({ event: "model_delta", data: { channel: "text", text: `${i % 10}` } }));

  test("with maxBacklog, a slow iterator gets all 10,000 events in order (reading pauses above the bound)", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...START, ...deltas(10_000), ...END]] });
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "x" }, { maxBacklog: 1000 });
    // Let the host write ahead before consuming.
    await Bun.sleep(500);
    let text = "";
    let count = 0;
    for await (const event of run) {
      if (event.type === "model_delta") text += event.data.text;
      if (++count % 1000 === 0) await Bun.sleep(10);
    }
    expect(text).toBe(Array.from({ length: 10_000 }, (_, i) => `${i % 10}`).join(""));
    expect((await run.result).status).toBe("completed");
    await host.shutdown();
  }, 30_000);

  test("with maxBacklog, leaving the loop early releases the reader; the run still completes", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...START, ...deltas(10_000), ...END]] });
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "x" }, { maxBacklog: 1000 });
    await Bun.sleep(500);
    for await (const event of run) if (event.type === "model_delta") break;
    expect((await run.result).text.length).toBe(10_000);
    await host.shutdown();
  }, 30_000);

  test("without maxBacklog, awaiting result inside the loop works whatever the backlog", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...START, ...deltas(6_000), ...END]] });
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "x" });
    let text = "";
    for await (const event of run) {
      if (event.type === "started") text = (await run.result).text;
    }
    expect(text.length).toBe(6_000);
    await host.shutdown();
  }, 30_000);

  test("with maxBacklog, an iterator that stops pulling cannot hide the host's exit", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...START, ...deltas(6_000), { stall: true }]] });
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "x" }, { maxBacklog: 100 });
    const iterator = run[Symbol.asyncIterator]();
    await iterator.next();
    await Bun.sleep(300);
    process.kill(host.pid, "SIGKILL");
    const error = await rejectionOf(run.result);
    expect(error).toBeInstanceOf(HostExited);
    expect((error as HostExited).signal).toBe("SIGKILL");
  }, 30_000);

  test("retainEvents: false keeps no events; result and text still work", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...START, ...deltas(2_000), ...END]] });
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "x" }, { retainEvents: false });
    expect((await run.result).text.length).toBe(2_000);
    expect(run.backlog).toBe(0);
    await expect(async () => {
      for await (const _ of run) break;
    }).toThrow("retainEvents: false");
    await host.shutdown();
  });

  test("a run's events can be iterated once", async () => {
    const { host, workspace } = await launchDouble();
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "x" });
    const seen: RunEvent[] = [];
    const first = (async () => {
      for await (const event of run) seen.push(event);
    })();
    await expect(async () => {
      for await (const _ of run) break;
    }).toThrow("already being iterated");
    await first;
    expect(seen.at(-1)?.type).toBe("final_result");
    await host.shutdown();
  });
});

test("kill() during a cancellation's grace period sends no second SIGTERM", async () => {
  const { host, workspace } = await launchDouble({ runs: [[...START, { stall: true }]], ignoreSigterm: true }, { graceMs: 1_000 });
  const run = host.run({ workspace, model: "gpt-5.6", prompt: "x" }, { timeoutMs: 300 });
  for await (const event of run) if (event.type === "started") break;
  // The timeout's SIGTERM lands at ~300 ms; wait until the host has seen it rather than for a fixed time.
  await eventually(() => host.stderrTail.includes("ignoring SIGTERM"));
  const exit = await host.kill();
  expect(exit.signal).toBe("SIGKILL");
  expect(host.stderrTail.split("ignoring SIGTERM").length - 1).toBe(1);
  expect(await rejectionOf(run.result)).toBeInstanceOf(Timeout);
});

describe("secrets and what is never written", () => {
  test("an api key in the host's stderr is masked in the tail", async () => {
    const secret = "sk-live-ABCDEFGHIJKLMNOP";
    const { host, workspace } = await launchDouble({ runs: [[{ stderr: `auth failed for ${secret} (401)\n` }, { exit: 1 }]] });
    const error = await rejectionOf(host.run({ workspace, model: "gpt-5.6", prompt: "x", base_url: "http://127.0.0.1:9/v1", api_key: secret }).result);
    expect(error).toBeInstanceOf(HostExited);
    expect((error as HostExited).stderrTail).toContain("auth failed for [redacted] (401)");
    expect(error.message).not.toContain("ABCDEFGH");
  });

  test("a secret cut by the start of the tail is masked as well", async () => {
    const secret = "sk-live-ABCDEFGHIJKLMNOP";
    for (let cut = 1; cut < secret.length; cut++) {
      const text = `xx ${secret} (401)\n`;
      const stream = new Blob([text]).stream();
      const limit = Buffer.byteLength(text) - 3 - cut;
      const tail = new StderrTail(stream, limit, () => [secret]);
      await tail.done;
      expect(tail.text()).not.toContain(secret.slice(-Math.max(4, secret.length - cut)));
      expect(Buffer.byteLength(tail.text())).toBeLessThanOrEqual(limit);
      expect(tail.retained).toBeLessThanOrEqual(limit + secret.length);
    }
  });

  test("a lone surrogate (text cut inside an emoji) is refused locally", async () => {
    const { host, workspace, received } = await launchDouble();
    expect(() => host.run({ workspace, model: "gpt-5.6", prompt: "smile 😀".slice(0, -1) })).toThrow(InvalidRequest);
    expect(() => host.run({ workspace, model: "gpt-5.6", prompt: "x", custom_headers: { "x-a": "b" }, base_url: "http://h/v1", api_key: "k\udc00ey" })).toThrow("lone UTF-16 surrogate");
    expect(received().map((r) => r.command)).toEqual(["hello"]);
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "smile 😀" }).result).output).toBe("You said: smile 😀");
    await host.shutdown();
  });
});
