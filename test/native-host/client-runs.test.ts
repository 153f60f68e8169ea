/** docs/native-host-protocol.md §18 scenarios 13–39: models and run lifecycles, against the double. */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  HostExited,
  HostUnavailable,
  ProtocolViolation,
  RequestRejected,
  Timeout,
  UnsupportedProtocolVersion,
  type RunEvent,
} from "octet-native-host";
import type { Step } from "octet-native-host/testing";
import { ACCEPTED, events, FINAL, launchDouble, rejectionOf, STEP } from "./client-helpers.ts";

async function collect(run: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  for await (const event of run) seen.push(event);
  return seen;
}

/** A run whose script is `steps`, collected; returns the events and the result (or the error). */
async function scripted(steps: Step[], session_id?: string) {
  const { host, workspace } = await launchDouble({ runs: [steps] });
  const run = host.run({ workspace, model: "gpt-5.6", prompt: "hello", run_id: "run-1", session_id, allow_file_mutation: false });
  const seen: RunEvent[] = [];
  let error: Error | undefined;
  try {
    for await (const event of run) seen.push(event);
  } catch (e) {
    error = e as Error;
  }
  const result = error ? undefined : await run.result;
  return { host, workspace, run, seen, error, result, types: seen.map((e) => e.type) };
}

const HAPPY: Step[] = events(
  ["accepted", ACCEPTED()],
  ["started", { model: "gpt-5.6" }],
  ["model_delta", { channel: "text", text: "Hel" }],
  ["model_delta", { channel: "reasoning", text: "thinking" }],
  ["model_delta", { channel: "text", text: "lo" }],
  ["model_step", STEP()],
  ["settled", { status: "completed", head: "e1", error: "" }],
  ["final_result", FINAL("Hello")],
);

describe("models (§18 13–15)", () => {
  test("13: two models with an unknown key each are parsed in order", async () => {
    const model = (id: string) => ({
      id, provider: "p", api_name: id, display_name: null, protocol: "OpenAiChat", context_window: 1000, max_output_tokens: 100,
      tools: true, vision: false, audio: false, input_modalities: ["text"], reasoning: false, future_key: { x: 1 },
    });
    const { host, received } = await launchDouble({ models: events(["models", { models: [model("a/one"), model("b/two")] }]) });
    const models = await host.models({ offline: true });
    expect(models.map((m) => m.id)).toEqual(["a/one", "b/two"]);
    expect(models[0]!.context_window).toBe(1000);
    expect(received()[1]).toEqual({ protocol_version: 1, request_id: "models-2", command: "models", offline: true });
    await host.shutdown();
  });

  test("13: the double's default catalog is valid and sorted by id", async () => {
    const { host } = await launchDouble();
    const models = await host.models();
    expect(models.length).toBeGreaterThan(1);
    expect(models.map((m) => m.id)).toEqual(models.map((m) => m.id).sort());
    for (const m of models) expect(m.input_modalities[0]).toBe("text");
    await host.shutdown();
  });

  test("14: an oversize protocol_error for models, then exit 1: rejected, and the instance is dead", async () => {
    const { host } = await launchDouble({
      models: [{ event: "protocol_error", data: { error: "outbound event exceeded the protocol frame limit", discarded_type: "models" } }, { exit: 1 }],
    });
    const error = await rejectionOf(host.models());
    expect(error).toBeInstanceOf(RequestRejected);
    expect((error as RequestRejected).data.discarded_type).toBe("models");
    expect(await rejectionOf(host.models())).toBeInstanceOf(HostUnavailable);
    expect((await host.exited).code).toBe(1);
  });

  test("15: the host exits 1 silently while models is pending: HostExited with status and stderr tail", async () => {
    const { host } = await launchDouble({ models: [{ stderr: "catalog build failed: no HOME\n" }, { exit: 1 }] });
    const error = await rejectionOf(host.models());
    expect(error).toBeInstanceOf(HostExited);
    expect((error as HostExited).exitCode).toBe(1);
    expect((error as HostExited).stderrTail).toContain("catalog build failed");
  });
});

describe("run lifecycle (§18 16–24)", () => {
  test("16: a complete run streams in order and resolves with output, text and session file", async () => {
    const { host, types, result, run } = await scripted(HAPPY);
    expect(types).toEqual(["accepted", "started", "model_delta", "model_delta", "model_delta", "model_step", "settled", "final_result"]);
    expect(result!.status).toBe("completed");
    expect(result!.output).toBe("Hello");
    expect(result!.text).toBe("Hello");
    expect(result!.sessionFile).toBe("/tmp/ws/.octet/sessions/s.jsonl");
    expect(result!.accepted!.registered_tools).toEqual(["read"]);
    expect(result!.usage!.total_tokens).toBe(15);
    expect(run.runId).toBe("run-1");
    await host.shutdown();
  });

  test("16: the double's default run works end to end with a real session file", async () => {
    const { host, workspace } = await launchDouble();
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "ping", session_id: "chat-1" });
    const types = (await collect(run)).map((e) => e.type);
    const result = await run.result;
    expect(types[0]).toBe("accepted");
    expect(types.slice(-2)).toEqual(["settled", "final_result"]);
    expect(result.output).toBe("You said: ping");
    expect(result.text).toBe("You said: ping");
    expect(result.sessionFile.endsWith("/chat-1.jsonl")).toBe(true);
    expect(await Bun.file(result.sessionFile).exists()).toBe(true);
    await host.shutdown();
  });

  test("17: a validation failure (final_result error at seq 1) is a run failure, not a violation", async () => {
    const { host, workspace } = await launchDouble();
    const run = host.run({ workspace: join(workspace, "missing"), model: "gpt-5.6", prompt: "x" });
    const seen = await collect(run);
    const result = await run.result;
    expect(seen.map((e) => e.type)).toEqual(["final_result"]);
    expect(result.status).toBe("error");
    expect(result.error).toContain("is unavailable");
    expect(result.sessionFile).toBe("");
    expect(result.accepted).toBeUndefined();
    // Still usable.
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "y" }).result).status).toBe("completed");
    await host.shutdown();
  });

  test("18: accepted then final_result(error) for a media failure is a valid sequence", async () => {
    const { host, workspace } = await launchDouble();
    const run = host.run({ workspace, model: "gpt-5.6", prompt: "look", media: [{ type: "image", path: join(workspace, "nope.png") }] });
    const seen = await collect(run);
    const result = await run.result;
    expect(seen.map((e) => e.type)).toEqual(["accepted", "final_result"]);
    expect(result.status).toBe("error");
    expect(result.error).toContain("resolving image");
    expect(result.sessionFile).toBe("");
    await host.shutdown();
  });

  test("19: protocol_error 'run_id or session_id is invalid' without run_id: RequestRejected, host stays usable", async () => {
    const rejected: Step = { event: "protocol_error", data: { error: "run_id or session_id is invalid" }, envelope: { run_id: null } };
    const { host, workspace } = await launchDouble({ runs: [[rejected], [{ defaultRun: true }]] });
    const error = await rejectionOf(host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result);
    expect(error).toBeInstanceOf(RequestRejected);
    expect((error as RequestRejected).error).toBe("run_id or session_id is invalid");
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "again" }).result).status).toBe("completed");
    await host.shutdown();
  });

  test("20: an 'invalid' protocol_error while the run is in flight is that run's rejection", async () => {
    // The double reports unknown fields under request_id "invalid"; the client never sends one, so it is scripted.
    const invalid: Step = { event: "protocol_error", data: { error: 'invalid request: unknown request field "allow_file_mutations"' }, envelope: { request_id: "invalid", run_id: null } };
    const { host, workspace } = await launchDouble({ runs: [[invalid], [{ defaultRun: true }]] });
    const error = await rejectionOf(host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result);
    expect(error).toBeInstanceOf(RequestRejected);
    expect(error.message).toContain("unknown request field");
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result).status).toBe("completed");
    await host.shutdown();
  });

  test("21: an 'invalid' protocol_error while idle is a violation; the host is killed", async () => {
    const { host, workspace } = await launchDouble({
      runs: [[...HAPPY, { sleepMs: 50 }, { event: "protocol_error", data: { error: "invalid request: x" }, envelope: { request_id: "invalid", seq: 1, run_id: null } }, { stall: true }]],
    });
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result).status).toBe("completed");
    // Terminated: SIGTERM makes the double exit 143.
    expect(await host.exited).toEqual({ code: 143, signal: null });
    const error = await rejectionOf(host.models());
    expect(error).toBeInstanceOf(HostUnavailable);
    expect(error.message).toContain("while no request was in flight");
  });

  test("22: 'unsupported protocol version' surfaces as UnsupportedProtocolVersion", async () => {
    const { host, error } = await scripted([{ event: "protocol_error", data: { error: "unsupported protocol version", received: 2, supported: [1] }, envelope: { run_id: null } }]);
    expect(error).toBeInstanceOf(UnsupportedProtocolVersion);
    expect((error as UnsupportedProtocolVersion).supported).toEqual([1]);
    await host.shutdown();
  });

  test("23: final_result blocked resolves with status blocked", async () => {
    const { host, result } = await scripted(events(["accepted", ACCEPTED()], ["started", { model: "gpt-5.6" }], ["settled", { status: "blocked", head: "", error: "run reached the configured turn limit" }], ["final_result", FINAL("", { status: "blocked", error: "run reached the configured turn limit" })]));
    expect(result!.status).toBe("blocked");
    expect(result!.error).toBe("run reached the configured turn limit");
    await host.shutdown();
  });

  test("24: settled, extension_notification, final_result is accepted and the notification delivered", async () => {
    const { host, seen, result } = await scripted(events(["accepted", ACCEPTED()], ["extension_notification", { message: "before start" }], ["started", { model: "gpt-5.6" }], ["settled", { status: "completed", head: "h", error: "" }], ["extension_notification", { message: "after settle" }], ["final_result", FINAL("")]));
    expect(seen.filter((e) => e.type === "extension_notification").map((e) => (e.data as { message: string }).message)).toEqual(["before start", "after settle"]);
    expect(result!.status).toBe("completed");
    await host.shutdown();
  });
});

describe("run event checks (§18 25–33)", () => {
  const violation = async (steps: Step[], expected: string, session_id?: string) => {
    const { host, error, seen } = await scripted(steps, session_id);
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error!.message).toContain(expected);
    const exit = await host.exited;
    expect(exit.code === null || exit.code !== 0 || exit.signal !== null).toBe(true);
    expect(await rejectionOf(host.models())).toBeInstanceOf(HostUnavailable);
    return seen;
  };

  test("25: a different run_id is a mismatch violation", async () => {
    await violation([{ event: "accepted", data: ACCEPTED() }, { event: "started", data: { model: "gpt-5.6" }, envelope: { run_id: "run-2" } }, { stall: true }], 'run_id "run-2" does not match');
  });

  test("26: a run sent with session_id, an event without it: mismatch", async () => {
    await violation([{ event: "accepted", data: ACCEPTED(), envelope: { session_id: null } }, { stall: true }], "session_id missing does not match", "chat-7");
  });

  test("27: a run sent without session_id, an event with one: mismatch", async () => {
    await violation([{ event: "accepted", data: ACCEPTED(), envelope: { session_id: "chat-7" } }, { stall: true }], "session_id \"chat-7\" on an event of a run sent without one");
  });

  test("28: seq 1, 2, 4 is a gap", async () => {
    const seen = await violation([...events(["accepted", ACCEPTED()], ["started", { model: "gpt-5.6" }]), { event: "model_delta", data: { channel: "text", text: "x" }, envelope: { seq: 4 } }, { stall: true }], "seq 4 after 2");
    expect(seen.map((e) => e.type)).toEqual(["accepted", "started"]);
  });

  test("29: a repeated seq is a violation", async () => {
    await violation([...events(["accepted", ACCEPTED()], ["started", { model: "gpt-5.6" }]), { event: "model_delta", data: { channel: "text", text: "x" }, envelope: { seq: 2 } }, { stall: true }], "seq 2 after 2");
  });

  test("30: an event after final_result is a violation (the result itself stands)", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...HAPPY, { event: "extension_notification", data: { message: "late" } }, { stall: true }]] });
    const result = await host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result;
    expect(result.status).toBe("completed");
    await host.exited;
    const error = await rejectionOf(host.models());
    expect(error).toBeInstanceOf(HostUnavailable);
    expect(error.message).toContain("while no request was in flight");
  });

  test("31: an event for a request_id never sent is an unknown-request-id violation", async () => {
    await violation([{ event: "accepted", data: ACCEPTED(), envelope: { request_id: "req-999" } }, { stall: true }], 'unknown request_id "req-999"');
  });

  test("32: an unknown event type passes through and the run continues", async () => {
    const steps = [...HAPPY];
    steps.splice(3, 0, { event: "provider_inference", data: { metrics: { ttft_ms: 12 } } });
    const { host, seen, result } = await scripted(steps);
    const unknown = seen.find((e) => e.type === "unknown");
    expect(unknown).toMatchObject({ type: "unknown", hostType: "provider_inference", data: { metrics: { ttft_ms: 12 } }, seq: 4 });
    expect(result!.status).toBe("completed");
    await host.shutdown();
  });

  test("33: unknown keys in final_result.data and the envelope are ignored", async () => {
    const steps = HAPPY.slice(0, -1);
    steps.push({ event: "final_result", data: FINAL("Hello", { cache_hint: "warm" }), envelope: { trace_id: "abc" } });
    const { host, result } = await scripted(steps);
    expect(result!.output).toBe("Hello");
    expect(result!.cache_hint).toBe("warm");
    await host.shutdown();
  });
});

describe("provisional output, usage and tools (§18 34–39)", () => {
  test("34: provider_retry discards the provisional deltas; text is the post-retry text", async () => {
    const { host, seen, result, run } = await scripted(
      events(
        ["accepted", ACCEPTED()],
        ["started", { model: "gpt-5.6" }],
        ["model_delta", { channel: "text", text: "first " }],
        ["model_delta", { channel: "text", text: "try" }],
        ["provider_retry", { attempt: 1, max_attempts: 3, delay_ms: 10, error: "HTTP 529 overloaded" }],
        ["model_delta", { channel: "text", text: "second try" }],
        ["model_step", STEP()],
        ["settled", { status: "completed", head: "h", error: "" }],
        ["final_result", FINAL("second try")],
      ),
    );
    const discard = seen.find((e) => e.type === "client.discard_provisional");
    expect(discard?.data).toEqual({ reason: "provider_retry", text: "first try", reasoning: "", media: 0 });
    expect(seen.map((e) => e.type).indexOf("client.discard_provisional")).toBe(seen.map((e) => e.type).indexOf("provider_retry") + 1);
    expect(result!.text).toBe("second try");
    expect(run.text).toBe("second try");
    await host.shutdown();
  });

  test("35: candidate_rejected discards the same way; the run continues", async () => {
    const { host, seen, result } = await scripted(
      events(
        ["accepted", ACCEPTED()],
        ["started", { model: "gpt-5.6" }],
        ["model_delta", { channel: "text", text: "done!" }],
        ["output_media", { index: 0, kind: "image", media_type: "image/png", source: "inline", bytes: 10, payload_omitted: true }],
        ["candidate_rejected", { run_usage: { input_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, output_tokens: 1, reasoning_tokens: 0, total_tokens: 2 }, run_cost_microdollars: 3, session_cost_microdollars: 3, discard_provisional_output: true }],
        ["model_delta", { channel: "text", text: "real answer" }],
        ["model_step", STEP()],
        ["settled", { status: "completed", head: "h", error: "" }],
        ["final_result", FINAL("real answer")],
      ),
    );
    expect(seen.find((e) => e.type === "client.discard_provisional")?.data).toEqual({ reason: "candidate_rejected", text: "done!", reasoning: "", media: 1 });
    expect(result!.text).toBe("real answer");
    await host.shutdown();
  });

  test("36: 50 provider_waiting_for_network events keep the run live; no retry limit applies", async () => {
    const waits: Step[] = Array.from({ length: 50 }, (_, i) => ({ event: "provider_waiting_for_network", data: { attempt: i + 1, delay_ms: 1, error: "network unreachable" } }));
    const { host, seen, result } = await scripted([...HAPPY.slice(0, 2), ...waits, ...HAPPY.slice(2)]);
    expect(seen.filter((e) => e.type === "provider_waiting_for_network")).toHaveLength(50);
    expect(result!.status).toBe("completed");
    await host.shutdown();
  });

  test("36: a host waiting for the network forever is ended only by the caller's timeout", async () => {
    const { host, workspace } = await launchDouble({ runs: [[...HAPPY.slice(0, 2), { event: "provider_waiting_for_network", data: { attempt: 1, delay_ms: 1000, error: "offline" } }, { stall: true }]] });
    const error = await rejectionOf(host.run({ workspace, model: "gpt-5.6", prompt: "x" }, { timeoutMs: 400 }).result);
    expect(error).toBeInstanceOf(Timeout);
  });

  test("37: provider_usage_uncertain marks the result usage-uncertain", async () => {
    const steps = [...HAPPY];
    steps.splice(2, 0, { event: "provider_usage_uncertain", data: {} });
    const { host, result } = await scripted(steps);
    expect(result!.usageUncertain).toBe(true);
    expect(result!.usage!.total_tokens).toBe(15);
    await host.shutdown();
  });

  test("37: without it the result is not usage-uncertain", async () => {
    const { host, result } = await scripted(HAPPY);
    expect(result!.usageUncertain).toBe(false);
    await host.shutdown();
  });

  test("38: tool_start, denied confirmation, denied policy, failed finish are one correlated tool call", async () => {
    const policy = { effect_policy: { value: "controlled", source: "host_request" } };
    const { host, result } = await scripted(
      events(
        ["accepted", ACCEPTED()],
        ["started", { model: "gpt-5.6" }],
        ["tool_start", { toolCallId: "call-1", toolName: "write", input: { path: "a.txt", content: "x" } }],
        ["tool_progress", { toolCallId: "call-1", progress: { type: "confirmation_required", prompt: "Write a.txt?", detail: "", destructive: false, default: false, denied: true } }],
        ["tool_policy", { toolCallId: "call-1", toolName: "write", decision: { effect: "workspace_mutation", allowed: false, denial_code: "approval_denied", policy } }],
        ["tool_finish", { toolCallId: "call-1", ok: false, output: "", error: "approval denied" }],
        ["model_step", STEP()],
        ["settled", { status: "completed", head: "h", error: "" }],
        ["final_result", FINAL("could not write", { toolCalls: 1 })],
      ),
    );
    expect(result!.toolCalls).toBe(1);
    expect(result!.tools).toHaveLength(1);
    const call = result!.tools[0]!;
    expect(call.toolName).toBe("write");
    expect(call.input).toEqual({ path: "a.txt", content: "x" });
    expect(call.progress.map((p) => p.type)).toEqual(["confirmation_required"]);
    expect(call.decision?.denial_code).toBe("approval_denied");
    expect(call.finish).toEqual({ ok: false, output: "", error: "approval denied" });
    await host.shutdown();
  });

  test("39: output_media exposes metadata only", async () => {
    const steps = [...HAPPY];
    steps.splice(2, 0, { event: "output_media", data: { index: 0, kind: "audio", format: "wav", source: "inline", bytes: 4096, transcript: null, payload_omitted: true } });
    const { host, seen, result } = await scripted(steps);
    const media = seen.find((e) => e.type === "output_media");
    expect(media?.data).toEqual({ index: 0, kind: "audio", format: "wav", source: "inline", bytes: 4096, transcript: null, payload_omitted: true });
    expect(result!.status).toBe("completed");
    await host.shutdown();
  });
});

test("a workspace with a session dir is reused across runs of the same session_id", async () => {
  const { host, workspace } = await launchDouble();
  mkdirSync(join(workspace, "state"));
  writeFileSync(join(workspace, "note.txt"), "x");
  const first = await host.run({ workspace, model: "gpt-5.6", prompt: "one", session_id: "s-1", session_dir: join(workspace, "state") }).result;
  const second = await host.run({ workspace, model: "gpt-5.6", prompt: "two", session_id: "s-1", session_dir: join(workspace, "state") }).result;
  expect(second.sessionFile).toBe(first.sessionFile);
  expect(first.sessionFile.startsWith(join(workspace, "state"))).toBe(true);
  await host.shutdown();
});
