/**
 * What an application needs around the client, against the double: abort
 * signals for `launch()` and `models()`, each host stderr line forwarded to
 * the application's logger, and a run's turn boundaries in its result.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Cancelled, HostUnavailable, NativeHost } from "octet-native-host";
import { ACCEPTED, DOUBLE, doubleEnv, eventually, events, FINAL, launchDouble, processesWithEnv, readRecord, rejectionOf, STEP, survivors, tempDir } from "./client-helpers.ts";

/** A scenario's environment with a record file whose path is unique to this call (to find the double's processes). */
function recorded(scenario: Parameters<typeof doubleEnv>[0]) {
  const record = join(tempDir("octet-rec-"), "received.jsonl");
  return { record, env: doubleEnv(scenario, record), entry: `OCTET_HOST_DOUBLE_RECORD=${record}` };
}

describe("abort signals for launch() and models()", () => {
  test("launch with an aborted signal throws Cancelled and starts nothing", async () => {
    const { record, env, entry } = recorded({});
    const error = await rejectionOf(NativeHost.launch({ path: DOUBLE, cwd: tempDir(), env, signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(Cancelled);
    expect(existsSync(record)).toBe(false);
    expect(processesWithEnv(entry)).toEqual([]);
  });

  test("aborting during the handshake terminates the host's group and throws Cancelled before the handshake deadline", async () => {
    const { record, env, entry } = recorded({ hello: [{ stall: true }] });
    const controller = new AbortController();
    const started = Date.now();
    const launching = NativeHost.launch({ path: DOUBLE, cwd: tempDir(), env, graceMs: 500, handshakeTimeoutMs: 10_000, signal: controller.signal });
    await eventually(() => readRecord(record).length > 0);
    controller.abort();
    const error = await rejectionOf(launching);
    expect(error).toBeInstanceOf(Cancelled);
    expect(error.message).toContain("launch");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(readRecord(record).map((r) => r.command)).toEqual(["hello"]);
    await eventually(() => processesWithEnv(entry).length === 0);
    expect(processesWithEnv(entry)).toEqual([]);
  });

  test("models with an aborted signal throws Cancelled, writes nothing, and the host stays usable", async () => {
    const { host, received } = await launchDouble();
    expect(await rejectionOf(host.models({ signal: AbortSignal.abort() }))).toBeInstanceOf(Cancelled);
    expect(received().map((r) => r.command)).toEqual(["hello"]);
    expect(host.usable).toBe(true);
    expect((await host.models()).length).toBeGreaterThan(0);
    await host.shutdown();
  });

  test("aborting a pending models terminates the host's group: Cancelled, then the instance is unusable", async () => {
    const { host } = await launchDouble({ models: [{ stall: true }] });
    const controller = new AbortController();
    const pending = host.models({ signal: controller.signal });
    await Bun.sleep(100);
    controller.abort();
    const error = await rejectionOf(pending);
    expect(error).toBeInstanceOf(Cancelled);
    expect(error.message).toContain("models");
    expect(await host.exited).toEqual({ code: 143, signal: null }); // the double ends on SIGTERM with 128+15
    expect(host.usable).toBe(false);
    expect(await rejectionOf(host.models())).toBeInstanceOf(HostUnavailable);
    expect(await survivors(host.pid)).toEqual([]);
  });
});

describe("onStderrLine", () => {
  test("each stderr line reaches the hook once, whole across writes, with secrets masked; a partial last line is delivered at exit", async () => {
    const lines: string[] = [];
    const { host, workspace } = await launchDouble(
      {
        hello: [{ stderr: "warming up\nhalf a " }, { sleepMs: 30 }, { stderr: "line\r\n" }, { event: "hello" }],
        runs: [[{ stderr: "calling with sk-secret-key-123 now\n" }, { defaultRun: true }, { stderr: "last words" }, { exit: 0 }]],
      },
      { onStderrLine: (line) => void lines.push(line) },
    );
    // stderr is its own pipe: the lines may arrive just after the hello reply.
    await eventually(() => lines.length >= 2);
    expect(lines).toEqual(["warming up", "half a line"]);
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "hi", api_key: "sk-secret-key-123", base_url: "http://127.0.0.1:9/v1" });
    await run.result;
    await host.exited;
    await eventually(() => lines.length >= 4);
    expect(lines).toEqual(["warming up", "half a line", "calling with [redacted] now", "last words"]);
  });

  test("a hook that throws does not disturb the host or the stderr tail", async () => {
    let calls = 0;
    const { host, workspace } = await launchDouble(
      { runs: [[{ stderr: "one\ntwo\n" }, { defaultRun: true }]] },
      {
        onStderrLine: () => {
          calls++;
          throw new Error("logger broke");
        },
      },
    );
    const result = await host.run({ workspace, model: "gpt-5.6", prompt: "hi" }).result;
    expect(result.status).toBe("completed");
    await eventually(() => calls >= 2);
    expect(calls).toBe(2);
    expect(host.stderrTail).toBe("one\ntwo\n");
    await host.shutdown();
  });

  test("a line longer than stderrTailBytes reaches the hook in pieces of at most that many bytes", async () => {
    const lines: string[] = [];
    const { host, workspace } = await launchDouble({ runs: [[{ stderr: `${"x".repeat(2500)}\n` }, { defaultRun: true }]] }, { stderrTailBytes: 1000, onStderrLine: (l) => void lines.push(l) });
    await host.run({ workspace, model: "gpt-5.6", prompt: "hi" }).result;
    await eventually(() => lines.length >= 3);
    expect(lines.map((l) => l.length)).toEqual([1000, 1000, 500]);
    await host.shutdown();
  });
});

describe("turn boundaries", () => {
  test("result.turns holds the text of each committed turn (a turn ends at model_step); text stays the joined text", async () => {
    const { host, workspace } = await launchDouble({
      runs: [
        events(
          ["accepted", ACCEPTED()],
          ["started", { model: "gpt-5.6" }],
          ["model_delta", { channel: "text", text: "Let me " }],
          ["model_delta", { channel: "reasoning", text: "need the file" }],
          ["model_delta", { channel: "text", text: "look." }],
          ["tool_start", { toolCallId: "c1", toolName: "read", input: { path: "a" } }],
          ["tool_finish", { toolCallId: "c1", ok: true, output: "x", error: "" }],
          ["model_step", STEP(1)],
          ["model_step", STEP(2)],
          ["model_delta", { channel: "text", text: "draft" }],
          ["provider_retry", { attempt: 1, max_attempts: 3, delay_ms: 1, error: "overloaded" }],
          ["model_delta", { channel: "text", text: "Done." }],
          ["model_step", STEP(3)],
          ["settled", { status: "completed", head: "h", error: "" }],
          ["final_result", FINAL("Done.", { steps: 3, toolCalls: 1 })],
        ),
      ],
    });
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "hi" });
    const steps: number[] = [];
    for await (const event of run) if (event.type === "model_step") steps.push(event.data.step);
    const result = await run.result;
    expect(result.turns).toEqual(["Let me look.", "", "Done."]);
    expect(result.text).toBe("Let me look.Done.");
    expect(result.turns.at(-1)).toBe(result.output);
    expect(result.turns).toHaveLength(steps.length);
    expect(run.turns).toEqual(result.turns);
    await host.shutdown();
  });
});
