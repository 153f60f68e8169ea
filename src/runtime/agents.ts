import { HEX64, isObject, utf8Bytes as bytes } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import type { Feature, HostMethod } from "../protocol.ts";
import type { RequestId } from "../wire/ids.ts";
import type { HostAccess } from "./host-session.ts";
import type { JsonObject } from "./types.ts";

/**
 * Child model sessions (`agent/*`, feature `agent_sessions`; docs/protocol-0.2.md §4.13,
 * §8.11). Argument problems are plain `Error`s raised before anything is
 * sent; the feature gate is `-32601`; replies get minimal shape checks.
 */

const NAME = /^[a-z0-9_-]{1,48}$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const GRANTS = ["read", "search", "edit", "write", "bash"];

/** Which model a child runs (octet, needs `agent_model_selection_v1`); each defaults to "inherit". */
export interface ModelSelection {
  provider?: string;
  model?: string;
  reasoning?: string;
}

/** Everything `agent/spawn` sends (camelCase here, snake_case on the wire). */
export interface SpawnAgentOptions {
  taskName: string;
  message: string;
  idempotencyKey: string;
  tools: string[];
  maxDepth: number;
  maxConcurrentChildren: number;
  /** `null` (default): no turn limit. */
  maxTurns?: number | null;
  /** `null` (default) inherits the parent's ceiling exactly. */
  maxTokens?: number | null;
  /** `null` (default): no cost limit. */
  maxCostMicrodollars?: number | null;
  maxOutputBytes: number;
  /** `null` (default): no timeout. */
  timeoutMs?: number | null;
  profile?: string;
  fingerprint?: string;
  modelSelection?: ModelSelection;
  parentRequestId?: RequestId;
}

function range(what: string, value: unknown, min: number, max: number, nullable: boolean): number | null {
  if ((value === null || value === undefined) && nullable) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`agent policy ${what} must be ${nullable ? "null or " : ""}an integer in ${min}..${max}`);
  }
  return value;
}

function message(what: string, value: unknown): string {
  if (typeof value !== "string" || value === "") throw new Error(`agent ${what} must be a non-empty string`);
  if (bytes(value) > 128 * 1024) throw new Error(`agent ${what} exceeds 128 KiB`);
  return value;
}

function target(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") throw new Error("agent target must be a non-blank string");
  return value;
}

function label(what: string, value: unknown): string {
  if (typeof value !== "string" || value === "" || bytes(value) > 256 || CONTROL.test(value)) {
    throw new Error(`agent model_selection.${what} must be 1..256 bytes without control characters`);
  }
  return value;
}

function checkSelection(selection: ModelSelection): JsonObject {
  if (!isObject(selection)) throw new Error("agent model_selection must be an object");
  const out: JsonObject = {};
  for (const key of Object.keys(selection)) if (!["provider", "model", "reasoning"].includes(key)) throw new Error(`agent model_selection has unknown field ${key}`);
  if (selection.provider !== undefined) out.provider = label("provider", selection.provider);
  if (selection.model !== undefined) out.model = label("model", selection.model);
  if (selection.reasoning !== undefined) out.reasoning = label("reasoning", selection.reasoning);
  const explicit = (v: unknown) => v !== undefined && v !== "inherit";
  if (explicit(out.provider) && !explicit(out.model)) throw new Error("agent model_selection: an explicit provider needs an explicit model");
  return out;
}

function reply(value: unknown, check: (v: JsonObject) => boolean, method: string): JsonObject {
  if (!isObject(value) || !check(value)) throw new RpcError(ErrorCode.InternalError, `invalid ${method} response`);
  return value;
}

/** The author's call for each `agent/*` method, as refusals name it. */
const CALLS: Readonly<Record<string, string>> = {
  "agent/spawn": "ext.agents.spawn()",
  "agent/message": "ext.agents.message()",
  "agent/follow_up": "ext.agents.followUp()",
  "agent/list": "ext.agents.list()",
  "agent/wait": "ext.agents.wait()",
  "agent/interrupt": "ext.agents.interrupt()",
  "agent/models": "ext.agents.models()",
};

/** Gate (initialized, the method's features, then a spawn's model selection), resolve the parent, send. */
async function send(access: HostAccess, method: HostMethod, params: JsonObject, parentRequestId: RequestId | undefined, extra?: Feature): Promise<unknown> {
  const host = access.session();
  const call = CALLS[method] ?? method;
  // agent/models needs agent_model_selection_v1 by the table; on a spawn it is the option that needs it.
  if (extra !== undefined) {
    host.requireFeature("agent_sessions", call);
    host.requireFeature(extra, "ext.agents.spawn({ modelSelection })");
  }
  return host.request(method, params, call, access.caller(), { parentRequestId });
}

/** `agent/spawn`: start a bounded child session; resolves to its record (with `agent_id`). */
export async function spawnAgent(access: HostAccess, options: SpawnAgentOptions): Promise<JsonObject> {
  if (typeof options.taskName !== "string" || !NAME.test(options.taskName)) throw new Error("agent task_name must match ^[a-z0-9_-]{1,48}$");
  if (options.profile !== undefined && (typeof options.profile !== "string" || !NAME.test(options.profile))) throw new Error("agent profile must match ^[a-z0-9_-]{1,48}$");
  if (options.fingerprint !== undefined && (typeof options.fingerprint !== "string" || !HEX64.test(options.fingerprint))) throw new Error("agent fingerprint must be 64 lowercase hexadecimal characters");
  const text = message("message", options.message);
  const key = options.idempotencyKey;
  if (typeof key !== "string" || key.trim() === "" || bytes(key) > 256) throw new Error("agent idempotency_key must be 1..256 bytes and not blank");
  const tools = options.tools;
  if (!Array.isArray(tools) || tools.length === 0 || new Set(tools).size !== tools.length || tools.some((t) => !GRANTS.includes(t))) {
    throw new Error(`agent policy tools must be a non-empty, duplicate-free subset of ${GRANTS.join(", ")}`);
  }
  if (options.maxDepth !== 1) throw new Error("agent policy max_depth must be exactly 1");
  const policy: JsonObject = {
    tools: [...tools],
    max_depth: 1,
    max_concurrent_children: range("max_concurrent_children", options.maxConcurrentChildren, 1, 8, false),
    max_turns: range("max_turns", options.maxTurns, 1, 256, true),
    max_tokens: range("max_tokens", options.maxTokens ?? null, 1_000, 64_000, true),
    max_cost_microdollars: range("max_cost_microdollars", options.maxCostMicrodollars, 1, 50_000_000, true),
    max_output_bytes: range("max_output_bytes", options.maxOutputBytes, 512, 16_384, false),
    timeout_ms: range("timeout_ms", options.timeoutMs, 5_000, 86_400_000, true),
  };
  if (options.modelSelection !== undefined) policy.model_selection = checkSelection(options.modelSelection);
  const params: JsonObject = { task_name: options.taskName, message: text, idempotency_key: key, policy };
  if (options.profile !== undefined) params.profile = options.profile;
  if (options.fingerprint !== undefined) params.fingerprint = options.fingerprint;
  const result = await send(access, "agent/spawn", params, options.parentRequestId, options.modelSelection === undefined ? undefined : "agent_model_selection_v1");
  return reply(result, (v) => typeof v.agent_id === "string", "agent/spawn");
}

/** `agent/message`: steer a running child (or queue for it). */
export async function sendAgentMessage(access: HostAccess, to: string, text: string, options: { parentRequestId?: RequestId } = {}): Promise<JsonObject> {
  const params = { target: target(to), message: message("message", text) };
  return reply(await send(access, "agent/message", params, options.parentRequestId), () => true, "agent/message");
}

/** `agent/follow_up`: give a child a follow-up turn. */
export async function followUpAgent(access: HostAccess, to: string, text: string, options: { parentRequestId?: RequestId } = {}): Promise<JsonObject> {
  const params = { target: target(to), message: message("message", text) };
  return reply(await send(access, "agent/follow_up", params, options.parentRequestId), () => true, "agent/follow_up");
}

/** `agent/list`: the children owned by this parent's principal and owner. */
export async function listAgents(access: HostAccess, options: { parentRequestId?: RequestId } = {}): Promise<JsonObject> {
  return reply(await send(access, "agent/list", {}, options.parentRequestId), (v) => Array.isArray(v.agents), "agent/list");
}

/** `agent/wait`: wait up to `timeoutMs` (1..60,000, default 30,000) for children to settle. */
export async function waitAgents(access: HostAccess, options: { timeoutMs?: number; parentRequestId?: RequestId } = {}): Promise<JsonObject> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) throw new Error("agent wait timeout_ms must be an integer in 1..60000");
  return reply(await send(access, "agent/wait", { timeout_ms: timeoutMs }, options.parentRequestId), (v) => typeof v.timed_out === "boolean", "agent/wait");
}

/** `agent/interrupt`: ask a child to stop. */
export async function interruptAgent(access: HostAccess, to: string, options: { parentRequestId?: RequestId } = {}): Promise<JsonObject> {
  return reply(await send(access, "agent/interrupt", { target: target(to) }, options.parentRequestId), () => true, "agent/interrupt");
}

/** `agent/models` (octet, needs `agent_model_selection_v1`): models a child may use. */
export async function listAgentModels(access: HostAccess, options: { query?: string; limit?: number; parentRequestId?: RequestId } = {}): Promise<JsonObject> {
  const params: JsonObject = {};
  if (options.query !== undefined) {
    if (typeof options.query !== "string" || bytes(options.query) > 128 || CONTROL.test(options.query)) throw new Error("agent model query must be at most 128 bytes without control characters");
    params.query = options.query;
  }
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new Error("agent model limit must be an integer in 1..100");
  params.limit = limit;
  return reply(await send(access, "agent/models", params, options.parentRequestId), (v) => Array.isArray(v.models), "agent/models");
}
