/** Unit checks of the client's pure parts: strict JSON, the per-request rules, hello validation. */
import { describe, expect, test } from "bun:test";
import { findDuplicateKey, parseEventLine } from "../../native-host/client/strict-json.ts";
import { RequestTracker } from "../../native-host/client/request-tracker.ts";
import { validateHello } from "../../native-host/client/hello.ts";
import { HandshakeError } from "../../native-host/client/errors.ts";
import { minimalEnv, PROVIDER_CREDENTIAL_VARS, providerEnv } from "octet-native-host";

describe("strict JSON", () => {
  test("duplicates are found at any depth, and only within one object", () => {
    expect(findDuplicateKey('{"a":1,"a":2}')).toBe("a");
    expect(findDuplicateKey('{"a":{"b":1,"c":{"d":[{"e":1,"e":2}]}}}')).toBe("e");
    expect(findDuplicateKey('{"a":{"x":1},"b":{"x":1},"c":[{"x":1},{"x":2}]}')).toBeUndefined();
    expect(findDuplicateKey('{"a":"{\\"a\\":1,\\"a\\":2}","b":["a","a"]}')).toBeUndefined();
    // Escaped spellings of the same name are the same member.
    expect(findDuplicateKey('{"a\\u0062":1,"ab":2}')).toBe("ab");
    expect(findDuplicateKey('{"q\\\\":1,"q\\\\\\"":2}')).toBeUndefined();
    expect(findDuplicateKey('{"e":{},"f":[],"g":"}","e2":1,"e":3}')).toBe("e");
  });

  test("non-objects and invalid JSON are refused with a reason", () => {
    expect(parseEventLine("[1]")).toEqual({ ok: false, reason: "not a JSON object (array)" });
    expect(parseEventLine("null")).toEqual({ ok: false, reason: "not a JSON object (null)" });
    expect(parseEventLine('"x"')).toEqual({ ok: false, reason: "not a JSON object (string)" });
    expect(parseEventLine("{\"a\":NaN}").ok).toBe(false);
    expect(parseEventLine("{} x").ok).toBe(false);
    expect(parseEventLine('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe("request tracker", () => {
  const ev = (seq: number, type: string, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({ protocol_version: 1, request_id: "req-1", run_id: "run-1", seq, type, data, ...extra });
  const ACCEPTED = { model: "m", resolved_model: "m", session_file: "/s.jsonl", registered_tools: [], extensions: [] };
  const USAGE = { input_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, output_tokens: 1, reasoning_tokens: 0, total_tokens: 2 };
  const FINAL = { status: "error", output: "", error: "x", filesChanged: [], toolCalls: 0, steps: 0, sessionFile: "" };
  /** Feed `events` (type, data) to a fresh run tracker; the first refusal, or "ok". */
  const feed = (...events: [string, Record<string, unknown>?][]) => {
    const t = new RequestTracker("run", "req-1", "run-1");
    for (const [i, [type, data]] of events.entries()) {
      const checked = t.check(ev(i + 1, type, data ?? {}));
      if (!checked.ok) return checked.violation;
    }
    return "ok";
  };

  test("seq must start at 1 and grow by one", () => {
    const t = new RequestTracker("run", "req-1", "run-1");
    expect(t.check(ev(2, "accepted", ACCEPTED)).ok).toBe(false);
    const u = new RequestTracker("run", "req-1", "run-1");
    expect(u.check(ev(1, "accepted", ACCEPTED)).ok).toBe(true);
    expect(u.check(ev(3, "extension_notification", { message: "m" }))).toEqual({ ok: false, violation: 'seq 3 after 1 for request "req-1" (gap or repeat)' });
  });

  test("terminal types per command, and nothing after the terminal", () => {
    const hello = new RequestTracker("hello", "h-1");
    expect(hello.check({ protocol_version: 1, request_id: "h-1", seq: 1, type: "models", data: { models: [] } })).toEqual({ ok: false, violation: "hello request answered with a models event" });
    const run = new RequestTracker("run", "req-1", "run-1");
    expect(run.check(ev(1, "hello", {})).ok).toBe(false);
    const done = new RequestTracker("run", "req-1", "run-1");
    expect(done.check(ev(1, "final_result", FINAL))).toMatchObject({ ok: true, terminal: true });
    expect(done.check(ev(2, "extension_notification", { message: "m" })).ok).toBe(false);
  });

  test("known payloads are shape-checked; extra keys are fine", () => {
    expect(feed(["final_result", { ...FINAL, status: "done" }])).toBe('final_result.data.status is "done", expected completed|blocked|error');
    expect(feed(["accepted", { ...ACCEPTED, extra: 1 }], ["extension_notification", { message: "m", extra: 1 }])).toBe("ok");
    expect(feed(["accepted", ACCEPTED], ["started", { model: "m" }], ["candidate_rejected", { run_usage: USAGE, run_cost_microdollars: 1, discard_provisional_output: "no" }])).toContain("discard_provisional_output");
    expect(feed(["accepted", ACCEPTED], ["started", { model: "m" }], ["provider_lifecycle", { state: 7, detail: null }])).toContain("provider_lifecycle.data.state");
    expect(feed(["accepted", ACCEPTED], ["started", { model: "m" }], ["model_step", { step: 1, turn_usage: USAGE, run_usage: { ...USAGE, input_tokens: "lots" }, session_cost_microdollars: null, run_cost_microdollars: 0 }])).toContain("run_usage.input_tokens");
    expect(feed(["accepted", ACCEPTED], ["started", { model: "m" }], ["output_media", { index: 0, kind: "image", payload_omitted: false }])).toContain("payload_omitted");
    expect(feed(["accepted", { ...ACCEPTED, extensions: null }])).toContain("accepted.data.extensions");
  });

  test("the protocol_version must be the integer 1", () => {
    for (const v of [true, "1", 1.5, 2, undefined]) {
      const t = new RequestTracker("hello", "h-1");
      expect(t.check({ protocol_version: v, request_id: "h-1", seq: 1, type: "hello", data: {} }).ok).toBe(false);
    }
  });

  test("run order: open, accepted, started, settled, terminal (docs/native-host-protocol.md §8)", () => {
    expect(feed(["model_delta", { channel: "text", text: "x" }])).toBe("a run must open with accepted or a terminal event, not model_delta (seq 1)");
    expect(feed(["started", { model: "m" }])).toContain("a run must open with accepted");
    expect(feed(["accepted", ACCEPTED], ["accepted", ACCEPTED])).toBe("accepted twice (seq 2)");
    expect(feed(["accepted", ACCEPTED], ["started", { model: "m" }], ["started", { model: "m" }])).toBe("started in phase started (seq 3)");
    expect(feed(["accepted", ACCEPTED], ["started", { model: "m" }], ["settled", { status: "completed", head: "", error: "" }], ["settled", { status: "completed", head: "", error: "" }])).toBe("settled twice (seq 4)");
    expect(feed(["accepted", ACCEPTED], ["started", { model: "m" }], ["settled", { status: "completed", head: "", error: "" }], ["model_delta", { channel: "text", text: "x" }])).toBe("model_delta after settled (seq 4)");
    // The orders the spec allows.
    expect(feed(["accepted", ACCEPTED], ["extension_notification", { message: "a" }], ["started", { model: "m" }], ["model_delta", { channel: "text", text: "x" }], ["settled", { status: "completed", head: "", error: "" }], ["extension_notification", { message: "b" }], ["final_result", FINAL])).toBe("ok");
    expect(feed(["accepted", ACCEPTED], ["final_result", FINAL])).toBe("ok");
    expect(feed(["accepted", ACCEPTED], ["started", { model: "m" }], ["protocol_error", { error: "outbound event exceeded the protocol frame limit", discarded_type: "model_delta" }])).toBe("ok");
    expect(feed(["accepted", ACCEPTED], ["started", { model: "m" }], ["provider_inference", { metrics: {} }], ["final_result", FINAL])).toBe("ok");
  });

  test("rules the spec only infers do not kill a host: reused tool call ids, settled without started", () => {
    const start = (id: string) => ["tool_start", { toolCallId: id, toolName: "read", input: null }] as [string, Record<string, unknown>];
    const finish = (id: string) => ["tool_finish", { toolCallId: id, ok: true, output: "", error: "" }] as [string, Record<string, unknown>];
    const open: [string, Record<string, unknown>][] = [["accepted", ACCEPTED], ["started", { model: "m" }]];
    expect(feed(...open, start("call_0"), finish("call_0"), start("call_0"), finish("call_0"))).toBe("ok");
    expect(feed(...open, finish("c1"))).toBe("ok");
    expect(feed(["accepted", ACCEPTED], ["settled", { status: "error", head: "", error: "x" }], ["final_result", FINAL])).toBe("ok");
  });

  test("run_id and session_id rules (docs/native-host-protocol.md §7.1, §15.8)", () => {
    const t = new RequestTracker("run", "req-1", "run-1", "s-1");
    expect(t.check({ protocol_version: 1, request_id: "req-1", seq: 1, type: "protocol_error", data: { error: "x" }, session_id: "s-2" }).ok).toBe(false);
    const u = new RequestTracker("run", "req-1", "run-1", "s-1");
    expect(u.check({ protocol_version: 1, request_id: "req-1", seq: 1, type: "protocol_error", data: { error: "run_id or session_id is invalid" } }).ok).toBe(true);
    const v = new RequestTracker("run", "req-1", "run-1");
    expect(v.check({ protocol_version: 1, request_id: "req-1", seq: 1, type: "accepted", data: ACCEPTED })).toEqual({ ok: false, violation: "accepted event (seq 1) lacks run_id" });
    const h = new RequestTracker("models", "m-1");
    expect(h.check({ protocol_version: 1, request_id: "m-1", seq: 1, type: "models", data: { models: [] }, run_id: "run-1" }).ok).toBe(false);
  });

  test("an 'invalid' protocol_error is only possible as the first event", () => {
    const t = new RequestTracker("run", "req-1", "run-1");
    expect(t.check(ev(1, "accepted", ACCEPTED)).ok).toBe(true);
    expect(t.check({ protocol_version: 1, request_id: "invalid", seq: 2, type: "protocol_error", data: { error: "x" } }).ok).toBe(false);
    const u = new RequestTracker("run", "req-1", "run-1");
    expect(u.check({ protocol_version: 1, request_id: "invalid", seq: 1, type: "protocol_error", data: { error: "x" } })).toMatchObject({ ok: true, terminal: true });
  });
});

describe("hello validation", () => {
  const good = {
    sdk_version: "0.9.0",
    protocol_version: 1,
    max_frame_bytes: 2_000_000,
    max_concurrent_runs: 1,
    commands: ["hello", "models", "run", "shutdown", "future"],
    features: { process_group_abort: true, in_band_abort: false, brand_new: true },
  };

  test("other versions and extra commands/features are tolerated; the frame ceiling never exceeds 1 MiB", () => {
    const info = validateHello(good);
    expect(info.sdkVersion).toBe("0.9.0");
    expect(info.maxFrameBytes).toBe(1_048_576);
    expect(info.commands).toEqual(["hello", "models", "run", "shutdown"]);
    expect(info.features.brand_new).toBe(true);
  });

  test("missing or malformed essentials are handshake errors", () => {
    for (const patch of [{ sdk_version: 1 }, { max_concurrent_runs: 0 }, { commands: "hello" }, { features: null }, { features: { process_group_abort: true } }]) {
      expect(() => validateHello({ ...good, ...patch })).toThrow(HandshakeError);
    }
  });
});

describe("the host's environment", () => {
  const FROM = { HOME: "/h", PATH: "/bin", TMPDIR: "/t", OPENAI_API_KEY: "sk-o", ANTHROPIC_API_KEY: "sk-a", GEMINI_API_KEY: "", HTTPS_PROXY: "http://p", SHELL: "/bin/zsh" };

  test("minimalEnv passes no credential unless asked; providerCredentials adds the set ones; pass adds more by name", () => {
    expect(minimalEnv(FROM)).toEqual({ RUST_BACKTRACE: "0", RUST_LOG: "off", HOME: "/h", PATH: "/bin", TMPDIR: "/t" });
    expect(minimalEnv(FROM, { providerCredentials: true })).toEqual({
      RUST_BACKTRACE: "0", RUST_LOG: "off", HOME: "/h", PATH: "/bin", TMPDIR: "/t", OPENAI_API_KEY: "sk-o", ANTHROPIC_API_KEY: "sk-a",
    });
    const passed = minimalEnv(FROM, { pass: ["HTTPS_PROXY", "NOT_SET"] });
    expect(passed.HTTPS_PROXY).toBe("http://p");
    expect("NOT_SET" in passed || "SHELL" in passed || "OPENAI_API_KEY" in passed).toBe(false);
    expect(() => minimalEnv(FROM, { pass: ["HTTPS_PROXY=x"] })).toThrow('"HTTPS_PROXY=x" is not an environment variable name');
  });

  test("the credential list names the providers' variables (names only, no duplicates)", () => {
    for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "AWS_ACCESS_KEY_ID"]) expect(PROVIDER_CREDENTIAL_VARS).toContain(name);
    expect(new Set(PROVIDER_CREDENTIAL_VARS).size).toBe(PROVIDER_CREDENTIAL_VARS.length);
    for (const name of PROVIDER_CREDENTIAL_VARS) expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
    expect(providerEnv(FROM)).toEqual({ OPENAI_API_KEY: "sk-o", ANTHROPIC_API_KEY: "sk-a" });
  });
});
