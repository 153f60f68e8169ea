import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { callRaw, DEFAULT_OPTIONAL, killAll, launch, requestsOf } from "./helpers.ts";

/**
 * agent/* local validation at each boundary (docs/protocol-0.2.md §4.13, §7, §8.11; seed:
 * task/profile names 1..=48 of [a-z0-9_-], 64-hex fingerprints, wait 1..=60,000 ms,
 * ≤ 128 KiB non-empty messages). An accepted value is sent as is; one past the
 * limit is an argument error ("arg" family: a plain Error, which a tool handler
 * turns into an is_error result) raised before anything is written.
 */

type Obj = Record<string, unknown>;

const KIB128 = 128 * 1024;
const HEX = "0123456789abcdef".repeat(4);

/** A valid spawn (camelCase options) and what it puts on the wire. */
const BASE = {
  taskName: "inspect-catalog",
  message: "Inspect the current provider tool catalog.",
  idempotencyKey: "catalog:1",
  tools: ["read", "search"],
  maxDepth: 1,
  maxConcurrentChildren: 2,
  maxTurns: 8,
  maxTokens: null,
  maxCostMicrodollars: 200_000,
  maxOutputBytes: 8_192,
  timeoutMs: 300_000,
};
const BASE_POLICY = {
  tools: ["read", "search"],
  max_depth: 1,
  max_concurrent_children: 2,
  max_turns: 8,
  max_tokens: null,
  max_cost_microdollars: 200_000,
  max_output_bytes: 8_192,
  timeout_ms: 300_000,
};

const REPLIES: Record<string, Obj> = {
  "agent/spawn": { agent_id: "agent-1", agent_path: "/agent-1", status: "pending" },
  "agent/message": { delivered_to: "agent-1", delivery: "steering" },
  "agent/follow_up": { agent_id: "agent-1", agent_path: "/agent-1", delivery: "follow_up" },
  "agent/interrupt": { agent_id: "agent-1", agent_path: "/agent-1", previous_status: "running", interrupt_requested: true },
  "agent/list": { principal: "p", resource_owner: "o", persistence_error: null, agents: [] },
  "agent/wait": { timed_out: false, snapshot: { principal: "p", resource_owner: "o", persistence_error: null, agents: [] } },
  "agent/models": { models: [], truncated: false },
};

interface Case {
  /** Table row label. */
  label: string;
  /** Fixture `agent` tool arguments. */
  args: Obj;
  /** Accepted: the wire method and the params the frame must carry (a subset). Refused: undefined. */
  sends?: { method: string; params: Obj };
}

const spawn = (label: string, patch: Obj, params?: Obj): Case => {
  const options: Obj = { ...BASE, ...patch };
  for (const [key, value] of Object.entries(patch)) if (value === undefined) delete options[key];
  return { label: `spawn ${label}`, args: { op: "spawn", options }, sends: params && { method: "agent/spawn", params } };
};
const policy = (patch: Obj): Obj => ({ policy: { ...BASE_POLICY, ...patch } });
const targeted = (op: "message" | "follow_up", label: string, target: string, message: string, ok: boolean): Case => ({
  label: `${op} ${label}`,
  args: { op, target, message },
  sends: ok ? { method: `agent/${op}`, params: { target, message } } : undefined,
});

const CASES: Case[] = [
  // task_name: ^[a-z0-9_-]{1,48}$
  spawn("task_name of 1 char", { taskName: "a" }, { task_name: "a" }),
  spawn("task_name of 48 chars", { taskName: "t".repeat(48) }, { task_name: "t".repeat(48) }),
  spawn("task_name of 49 chars", { taskName: "t".repeat(49) }),
  spawn("task_name empty", { taskName: "" }),
  spawn("task_name with every allowed class", { taskName: "a-z_0-9" }, { task_name: "a-z_0-9" }),
  spawn("task_name uppercase", { taskName: "Inspect" }),
  spawn("task_name with a dot", { taskName: "in.spect" }),
  spawn("task_name with a space", { taskName: "in spect" }),
  spawn("task_name non-ASCII", { taskName: "é" }),
  spawn("task_name with a trailing newline", { taskName: "inspect\n" }),
  // profile: same pattern, optional, sent only when given
  spawn("profile of 48 chars", { profile: "p".repeat(48) }, { profile: "p".repeat(48) }),
  spawn("profile of 49 chars", { profile: "p".repeat(49) }),
  spawn("profile empty", { profile: "" }),
  spawn("profile uppercase", { profile: "Review" }),
  // fingerprint: 64 lowercase hex, optional
  spawn("fingerprint of 64 lowercase hex", { fingerprint: HEX }, { fingerprint: HEX }),
  spawn("fingerprint of 63 hex", { fingerprint: HEX.slice(1) }),
  spawn("fingerprint of 65 hex", { fingerprint: `${HEX}0` }),
  spawn("fingerprint uppercase", { fingerprint: HEX.toUpperCase() }),
  spawn("fingerprint non-hex", { fingerprint: "g".repeat(64) }),
  spawn("fingerprint with a trailing newline", { fingerprint: `${HEX}\n` }),
  // idempotency_key: 1..=256 bytes, not blank
  spawn("idempotency_key of 256 bytes", { idempotencyKey: "k".repeat(256) }, { idempotency_key: "k".repeat(256) }),
  spawn("idempotency_key of 256 bytes (128 × é)", { idempotencyKey: "é".repeat(128) }, { idempotency_key: "é".repeat(128) }),
  spawn("idempotency_key of 257 bytes", { idempotencyKey: "k".repeat(257) }),
  spawn("idempotency_key of 257 bytes (128 × é + k)", { idempotencyKey: `${"é".repeat(128)}k` }),
  spawn("idempotency_key empty", { idempotencyKey: "" }),
  spawn("idempotency_key blank", { idempotencyKey: "   " }),
  // message: non-empty, ≤ 128 KiB
  spawn("message of 128 KiB", { message: "m".repeat(KIB128) }, { message: "m".repeat(KIB128) }),
  spawn("message of 128 KiB (2-byte chars)", { message: "é".repeat(KIB128 / 2) }, { message: "é".repeat(KIB128 / 2) }),
  spawn("message of 128 KiB + 1", { message: "m".repeat(KIB128 + 1) }),
  spawn("message of 128 KiB + 1 (2-byte chars)", { message: `${"é".repeat(KIB128 / 2)}m` }),
  spawn("message empty", { message: "" }),
  // policy.tools: non-empty, duplicate-free subset of read/search/edit/write/bash
  spawn("tools all five", { tools: ["read", "search", "edit", "write", "bash"] }, policy({ tools: ["read", "search", "edit", "write", "bash"] })),
  spawn("tools empty", { tools: [] }),
  spawn("tools duplicated", { tools: ["read", "read"] }),
  spawn("tools unknown grant", { tools: ["read", "exec"] }),
  // policy.max_depth: exactly 1
  spawn("max_depth 0", { maxDepth: 0 }),
  spawn("max_depth 2", { maxDepth: 2 }),
  // policy.max_concurrent_children: 1..=8
  spawn("max_concurrent_children 1", { maxConcurrentChildren: 1 }, policy({ max_concurrent_children: 1 })),
  spawn("max_concurrent_children 8", { maxConcurrentChildren: 8 }, policy({ max_concurrent_children: 8 })),
  spawn("max_concurrent_children 0", { maxConcurrentChildren: 0 }),
  spawn("max_concurrent_children 9", { maxConcurrentChildren: 9 }),
  spawn("max_concurrent_children null", { maxConcurrentChildren: null }),
  // policy.max_turns: null or 1..=256
  spawn("max_turns null", { maxTurns: null }, policy({ max_turns: null })),
  spawn("max_turns omitted (explicit null on the wire)", { maxTurns: undefined }, policy({ max_turns: null })),
  spawn("max_turns 1", { maxTurns: 1 }, policy({ max_turns: 1 })),
  spawn("max_turns 256", { maxTurns: 256 }, policy({ max_turns: 256 })),
  spawn("max_turns 0", { maxTurns: 0 }),
  spawn("max_turns 257", { maxTurns: 257 }),
  spawn("max_turns 1.5", { maxTurns: 1.5 }),
  // policy.max_tokens: null (inherit) or 1,000..=64,000
  spawn("max_tokens 1000", { maxTokens: 1_000 }, policy({ max_tokens: 1_000 })),
  spawn("max_tokens 64000", { maxTokens: 64_000 }, policy({ max_tokens: 64_000 })),
  spawn("max_tokens 999", { maxTokens: 999 }),
  spawn("max_tokens 64001", { maxTokens: 64_001 }),
  // policy.max_cost_microdollars: null or 1..=50,000,000
  spawn("max_cost null", { maxCostMicrodollars: null }, policy({ max_cost_microdollars: null })),
  spawn("max_cost 1", { maxCostMicrodollars: 1 }, policy({ max_cost_microdollars: 1 })),
  spawn("max_cost 50,000,000", { maxCostMicrodollars: 50_000_000 }, policy({ max_cost_microdollars: 50_000_000 })),
  spawn("max_cost 0", { maxCostMicrodollars: 0 }),
  spawn("max_cost 50,000,001", { maxCostMicrodollars: 50_000_001 }),
  // policy.max_output_bytes: 512..=16,384 (not nullable)
  spawn("max_output_bytes 512", { maxOutputBytes: 512 }, policy({ max_output_bytes: 512 })),
  spawn("max_output_bytes 16384", { maxOutputBytes: 16_384 }, policy({ max_output_bytes: 16_384 })),
  spawn("max_output_bytes 511", { maxOutputBytes: 511 }),
  spawn("max_output_bytes 16385", { maxOutputBytes: 16_385 }),
  spawn("max_output_bytes null", { maxOutputBytes: null }),
  // policy.timeout_ms: null or 5,000..=86,400,000
  spawn("timeout_ms null", { timeoutMs: null }, policy({ timeout_ms: null })),
  spawn("timeout_ms 5000", { timeoutMs: 5_000 }, policy({ timeout_ms: 5_000 })),
  spawn("timeout_ms 86,400,000", { timeoutMs: 86_400_000 }, policy({ timeout_ms: 86_400_000 })),
  spawn("timeout_ms 4999", { timeoutMs: 4_999 }),
  spawn("timeout_ms 86,400,001", { timeoutMs: 86_400_001 }),
  // policy.model_selection (octet): non-empty ≤ 256 bytes, no controls, explicit provider needs explicit model
  spawn("model_selection model only", { modelSelection: { model: "m" } }, policy({ model_selection: { model: "m" } })),
  spawn("model_selection model of 256 bytes", { modelSelection: { model: "m".repeat(256) } }, policy({ model_selection: { model: "m".repeat(256) } })),
  spawn("model_selection model of 257 bytes", { modelSelection: { model: "m".repeat(257) } }),
  spawn("model_selection model with a control char", { modelSelection: { model: "m\u0007" } }),
  spawn("model_selection model empty", { modelSelection: { model: "" } }),
  spawn("model_selection explicit provider without model", { modelSelection: { provider: "p" } }),
  spawn("model_selection explicit provider with model inherit", { modelSelection: { provider: "p", model: "inherit" } }),
  spawn("model_selection provider and model", { modelSelection: { provider: "p", model: "m" } }, policy({ model_selection: { provider: "p", model: "m" } })),
  spawn("model_selection reasoning high", { modelSelection: { reasoning: "high" } }, policy({ model_selection: { reasoning: "high" } })),
  spawn("model_selection reasoning of 257 bytes", { modelSelection: { reasoning: "r".repeat(257) } }),
  // agent/message and agent/follow_up: non-blank target, non-empty message ≤ 128 KiB
  ...(["message", "follow_up"] as const).flatMap((op) => [
    targeted(op, "ok", "agent-1", "go on", true),
    targeted(op, "message of 128 KiB", "agent-1", "m".repeat(KIB128), true),
    targeted(op, "message of 128 KiB + 1", "agent-1", "m".repeat(KIB128 + 1), false),
    targeted(op, "message empty", "agent-1", "", false),
    targeted(op, "target empty", "", "go on", false),
    targeted(op, "target blank", "  \t", "go on", false),
  ]),
  // agent/interrupt: non-blank target
  { label: "interrupt ok", args: { op: "interrupt", target: "agent-1" }, sends: { method: "agent/interrupt", params: { target: "agent-1" } } },
  { label: "interrupt target empty", args: { op: "interrupt", target: "" } },
  { label: "interrupt target blank", args: { op: "interrupt", target: "   " } },
  // agent/wait: timeout_ms 1..=60,000 (default 30,000, always sent)
  { label: "wait default", args: { op: "wait" }, sends: { method: "agent/wait", params: { timeout_ms: 30_000 } } },
  { label: "wait timeout 1", args: { op: "wait", options: { timeoutMs: 1 } }, sends: { method: "agent/wait", params: { timeout_ms: 1 } } },
  { label: "wait timeout 60000", args: { op: "wait", options: { timeoutMs: 60_000 } }, sends: { method: "agent/wait", params: { timeout_ms: 60_000 } } },
  { label: "wait timeout 0", args: { op: "wait", options: { timeoutMs: 0 } } },
  { label: "wait timeout 60001", args: { op: "wait", options: { timeoutMs: 60_001 } } },
  { label: "wait timeout 1.5", args: { op: "wait", options: { timeoutMs: 1.5 } } },
  // agent/list: nothing but the parent
  { label: "list", args: { op: "list" }, sends: { method: "agent/list", params: {} } },
  // agent/models (octet): query ≤ 128 UTF-8 bytes without controls; limit 1..=100
  { label: "models query of 128 bytes", args: { op: "models", options: { query: "q".repeat(128) } }, sends: { method: "agent/models", params: { query: "q".repeat(128) } } },
  { label: "models query of 128 bytes (2-byte chars)", args: { op: "models", options: { query: "é".repeat(64) } }, sends: { method: "agent/models", params: { query: "é".repeat(64) } } },
  { label: "models query of 129 bytes", args: { op: "models", options: { query: "q".repeat(129) } } },
  { label: "models query of 129 bytes (2-byte chars)", args: { op: "models", options: { query: `${"é".repeat(64)}q` } } },
  { label: "models query with a control char", args: { op: "models", options: { query: "gpt\u0001" } } },
  { label: "models limit 1", args: { op: "models", options: { limit: 1 } }, sends: { method: "agent/models", params: { limit: 1 } } },
  { label: "models limit 100", args: { op: "models", options: { limit: 100 } }, sends: { method: "agent/models", params: { limit: 100 } } },
  { label: "models limit 0", args: { op: "models", options: { limit: 0 } } },
  { label: "models limit 101", args: { op: "models", options: { limit: 101 } } },
];

let host: TestHost;

beforeAll(async () => {
  host = await launch({ offer: { optional: [...DEFAULT_OPTIONAL, "agent_sessions", "agent_model_selection_v1"] } });
  for (const [method, reply] of Object.entries(REPLIES)) host.onRequest(method, () => reply);
});
afterAll(killAll);

describe("agent/* local validation boundaries (docs/protocol-0.2.md §4.13, §8.11; seed)", () => {
  test("both agent features were negotiated", () => {
    expect([...host.features]).toEqual(expect.arrayContaining(["agent_sessions", "agent_model_selection_v1"]));
  });

  test("the baseline spawn is sent exactly: the eight policy keys, the parent, no profile/fingerprint", async () => {
    const before = requestsOf(host, "agent/").length;
    const parent = host.peekNextId();
    const reply = await callRaw(host, "agent", { op: "spawn", options: BASE });
    expect(reply.result).toMatchObject({ is_error: false });
    const frames = requestsOf(host, "agent/");
    expect(frames.length).toBe(before + 1);
    expect(frames.at(-1)!.method).toBe("agent/spawn");
    expect(frames.at(-1)!.params).toEqual({
      task_name: BASE.taskName,
      message: BASE.message,
      idempotency_key: BASE.idempotencyKey,
      policy: BASE_POLICY,
      parent_request_id: parent,
    });
  });

  test.each(CASES.map((c) => [c.label, c] as const))("%s", async (_label, c) => {
    const before = requestsOf(host, "agent/").length;
    const parent = host.peekNextId();
    const reply = await callRaw(host, "agent", c.args);
    const frames = requestsOf(host, "agent/");
    if (c.sends) {
      // Accepted: exactly one frame, carrying the value unchanged, and the host's reply reaches the tool.
      expect(reply.error).toBeUndefined();
      expect(reply.result).toMatchObject({ is_error: false });
      expect(frames.length).toBe(before + 1);
      expect(frames.at(-1)!.method).toBe(c.sends.method);
      expect(frames.at(-1)!.params).toMatchObject({ ...c.sends.params, parent_request_id: parent });
    } else {
      // Refused locally: an argument error (is_error result, not a JSON-RPC error), nothing written.
      expect(reply.error).toBeUndefined();
      expect(reply.result).toEqual({ content: [{ type: "text", text: expect.any(String) }], is_error: true, metadata: {} });
      expect(frames.length).toBe(before);
    }
  });

  test("the stream stayed healthy throughout", () => {
    expect(host.violations).toEqual([]);
  });
});

describe("agent/* feature gates come after the argument checks (docs/protocol-0.2.md §8.11 order)", () => {
  test("without agent_sessions: an invalid argument is still an argument error; a valid call is -32601 naming agent_sessions", async () => {
    const bare = await launch();
    expect(bare.features.has("agent_sessions")).toBe(false);
    const refusedLocally = [
      { op: "spawn", options: { ...BASE, taskName: "t".repeat(49) } },
      { op: "spawn", options: { ...BASE, maxTurns: 257 } },
      { op: "message", target: "agent-1", message: "" },
      { op: "wait", options: { timeoutMs: 60_001 } },
    ];
    for (const args of refusedLocally) {
      expect((await callRaw(bare, "agent", args)).result).toMatchObject({ is_error: true });
    }
    const gated: [Record<string, unknown>, string][] = [
      [{ op: "spawn", options: BASE }, "ext.agents.spawn()"],
      [{ op: "message", target: "agent-1", message: "hi" }, "ext.agents.message()"],
      [{ op: "follow_up", target: "agent-1", message: "hi" }, "ext.agents.followUp()"],
      [{ op: "list" }, "ext.agents.list()"],
      [{ op: "wait" }, "ext.agents.wait()"],
      [{ op: "interrupt", target: "agent-1" }, "ext.agents.interrupt()"],
    ];
    for (const [args, call] of gated) {
      expect((await callRaw(bare, "agent", args)).error).toEqual({ code: -32601, message: `${call} needs the agent_sessions feature, which was not negotiated (API 0.2): the host did not offer it; octet offers it only with a child-session service` });
    }
    expect(requestsOf(bare, "agent/")).toEqual([]);
    expect(await bare.shutdown()).toBe(0);
  });

  test("agent_sessions without agent_model_selection_v1: agent/models and a spawn with model_selection are -32601; nothing written", async () => {
    const partial = await launch({ offer: { optional: ["agent_sessions"] } });
    partial.onRequest("agent/spawn", () => REPLIES["agent/spawn"]);
    const notNegotiated = (call: string) => ({ code: -32601, message: `${call} needs the agent_model_selection_v1 feature, which was not negotiated (API 0.2): the host did not offer it; octet offers it only with a child-session service` });
    expect((await callRaw(partial, "agent", { op: "models" })).error).toEqual(notNegotiated("ext.agents.models()"));
    expect((await callRaw(partial, "agent", { op: "spawn", options: { ...BASE, modelSelection: { model: "m" } } })).error).toEqual(notNegotiated("ext.agents.spawn({ modelSelection })"));
    expect(requestsOf(partial, "agent/")).toEqual([]);
    // An over-long query is an argument error before the gate.
    expect((await callRaw(partial, "agent", { op: "models", options: { query: "q".repeat(129) } })).result).toMatchObject({ is_error: true });
    // A spawn without model_selection goes out.
    expect((await callRaw(partial, "agent", { op: "spawn", options: BASE })).result).toMatchObject({ is_error: false });
    expect(requestsOf(partial, "agent/").map((f) => f.method)).toEqual(["agent/spawn"]);
    expect(await partial.shutdown()).toBe(0);
  });
});

describe("agent/* replies (docs/protocol-0.2.md §8.11: minimal shape checks → -32603; host errors re-raised as is)", () => {
  test("malformed replies are -32603; host errors keep their code, message and data", async () => {
    const h = await launch({ offer: { optional: ["agent_sessions", "agent_model_selection_v1"] } });
    const cases: [Obj, string, unknown][] = [
      [{ op: "spawn", options: BASE }, "agent/spawn", { status: "pending" }],
      [{ op: "spawn", options: BASE }, "agent/spawn", { agent_id: 7 }],
      [{ op: "list" }, "agent/list", { agents: {} }],
      [{ op: "wait" }, "agent/wait", { timed_out: "no", snapshot: {} }],
      [{ op: "message", target: "agent-1", message: "hi" }, "agent/message", "ok"],
      [{ op: "follow_up", target: "agent-1", message: "hi" }, "agent/follow_up", null],
      [{ op: "interrupt", target: "agent-1" }, "agent/interrupt", ["agent-1"]],
    ];
    for (const [args, method, reply] of cases) {
      h.onRequest(method, () => reply);
      expect(((await callRaw(h, "agent", args)).error as Obj | undefined)?.code).toBe(-32603);
    }
    h.onRequest("agent/spawn", () => TestHost.errorReply(-32002, "idempotency key reused with different input", { key: "catalog:1" }));
    expect((await callRaw(h, "agent", { op: "spawn", options: BASE })).error).toEqual({ code: -32002, message: "idempotency key reused with different input", data: { key: "catalog:1" } });
    h.onRequest("agent/wait", () => TestHost.errorReply(-32000, "extension child worker limit 8 exceeded"));
    expect((await callRaw(h, "agent", { op: "wait" })).error).toEqual({ code: -32000, message: "extension child worker limit 8 exceeded" });
    expect(await h.shutdown()).toBe(0);
  });
});
