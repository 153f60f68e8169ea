import { isObject } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import { offPathModules } from "./lazy-host-calls.ts";
import { TextResult } from "./text-result.ts";
import type { ApiVersion, JsonObject } from "./types.ts";

/**
 * Return normalisation (docs/protocol-0.2.md §8.4, §8.6): what each handler returned becomes
 * the exact result object the host accepts, or a `-32603` error.
 */

/** Python-style `str()` for the values the reference stringifies (`True`, `None`, …). */
export function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}


function internal(message: string): RpcError {
  return new RpcError(ErrorCode.InternalError, message);
}

/** API 0.1 tool result: `{content: string, is_error: bool, metadata}`. */
export function toolResult01(value: unknown): JsonObject {
  // `{content: string}` with a boolean `is_error` or none (most results): the same object as below.
  if (isObject(value) && typeof value.content === "string" && value.metadata === undefined && (value.is_error === undefined || typeof value.is_error === "boolean")) {
    return new TextResult(value.content, value.is_error === true, true) as unknown as JsonObject;
  }
  return anyToolResult01(value);
}

function anyToolResult01(value: unknown): JsonObject {
  if (value === null || value === undefined) return { content: "", is_error: false, metadata: {} };
  if (typeof value === "string") return new TextResult(value, false, true) as unknown as JsonObject;
  if (!isObject(value)) return { content: pyStr(value), is_error: false, metadata: {} };
  const content = value.content === undefined ? "" : pyStr(value.content);
  if (value.metadata === undefined && (value.is_error === undefined || typeof value.is_error === "boolean")) return new TextResult(content, value.is_error === true, true) as unknown as JsonObject;
  return { content, is_error: pyTruthy(value.is_error), metadata: value.metadata === undefined ? {} : value.metadata };
}

/** Python's `bool()`: empty arrays and objects are false, NaN is true. */
export function pyTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  if (typeof value === "number") return value !== 0;
  return Boolean(value);
}

/** The result sent when a tool handler throws an ordinary error (docs/protocol-0.2.md §8.4). */
export function toolErrorResult(api: ApiVersion, text: string): JsonObject {
  return api === "0.1"
    ? { content: text, is_error: true, metadata: {} }
    : { content: [{ type: "text", text }], is_error: true, metadata: {} };
}

/** API 0.2 and 0.4 tool result (docs/protocol-0.2.md §3.2, §8.6); `api` is the negotiated version, named in refusals. */
export function toolResult02(value: unknown, opts: ToolResultOptions): JsonObject {
  return (opts.outputSchema === undefined ? plainTextResult(value) : undefined) ?? offPathModules().checkedResults.checkedToolResult(value, opts);
}

export type ToolResultOptions = { api: ApiVersion; outputSchema: JsonObject | undefined; artifacts: boolean; bulk?: boolean };

/**
 * The common result shapes, a string or `{content: string}` (with a boolean
 * `is_error` or without), made without the general walk; undefined for
 * anything else. The same object as the walk makes of them.
 */
export function plainTextResult(value: unknown): JsonObject | undefined {
  if (typeof value === "string") return new TextResult(value, false, false) as unknown as JsonObject;
  if (!isObject(value) || typeof value.content !== "string" || !onlyTextKeys(value)) return undefined;
  return new TextResult(value.content, value.is_error === true, false) as unknown as JsonObject;
}

/** `content` and a boolean `is_error` only (out of line, so that {@link plainTextResult} stays small enough to inline). */
function onlyTextKeys(value: JsonObject): boolean {
  for (const key in value) if (key !== "content" && (key !== "is_error" || typeof value.is_error !== "boolean")) return false;
  return true;
}

/** Command result (docs/protocol-0.2.md §8.4). */
export function commandResult(value: unknown): JsonObject {
  if (value === null || value === undefined) return { text: "", notifications: [], context: [] };
  if (!isObject(value)) return { text: pyStr(value), notifications: [], context: [] };
  return {
    text: value.text === undefined ? "" : pyStr(value.text),
    notifications: value.notifications ?? [],
    context: value.context ?? [],
  };
}

/** Hook result (docs/protocol-0.2.md §8.4); `typedKey` is the octet typed field allowed for this hook. */
export function hookResult(value: unknown, typedKey?: string, payload?: unknown): JsonObject {
  if (value === null || value === undefined) return { disposition: { action: "continue" }, context: [], notifications: [] };
  if (!isObject(value)) throw internal("hook handler must return an object");
  const out: JsonObject = {
    disposition: value.disposition ?? { action: "continue" },
    context: value.context ?? [],
    notifications: value.notifications ?? [],
  };
  if (typedKey === "compaction_frames" && value.compaction_frames === undefined) throw internal("invalid compaction_frames hook result: compaction_strategy must return compaction_frames");
  if (typedKey && value[typedKey] !== undefined) {
    const problem = TYPED_FIELD_CHECKS[typedKey]?.(value[typedKey], payload);
    if (problem) throw internal(`invalid ${typedKey} hook result: ${problem}`);
    out[typedKey] = value[typedKey];
  }
  return out;
}

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** octet's typed hook fields (docs/protocol-0.2.md §3.4; docs/api-0.4.md "Hooks"): what the host accepts for each. */
const TYPED_FIELD_CHECKS: Record<string, (field: unknown, payload: unknown) => string | undefined> = {
  provider_retry: (field) => {
    if (field === "retry" || field === "stop") return undefined;
    const delay = isObject(field) && Object.keys(field).length === 1 && isObject(field.delay) ? field.delay : undefined;
    const ms = delay && Object.keys(delay).length === 1 ? delay.additional_delay_ms : undefined;
    return typeof ms === "number" && Number.isSafeInteger(ms) && ms >= 0 ? undefined : 'expected "retry", "stop" or {delay:{additional_delay_ms}}';
  },
  persistence_metadata: (field) => {
    if (!isObject(field) || Object.keys(field).some((k) => k !== "value" && k !== "public") || !("value" in field)) return "expected {value, public}";
    if (field.public !== undefined && typeof field.public !== "boolean") return "public must be a boolean";
    const encoded = JSON.stringify(field.value);
    if (encoded === undefined || Buffer.byteLength(encoded) > 16 * 1024) return "value must be JSON of at most 16 KiB";
    return undefined;
  },
  cache_warming_decision: (field) => (field === null || field === "warm" || field === "stop" ? undefined : 'expected "warm", "stop" or null'),
  compaction_frames: (field) => {
    if (!Array.isArray(field) || field.length < 1 || field.length > 32) return "expected 1 to 32 base64 PNG frames";
    for (const frame of field) {
      if (typeof frame !== "string" || frame.length > 512 * 1024) return "each frame must be a base64 string of at most 524288 characters";
      if (!STANDARD_BASE64.test(frame)) return "each frame must be standard base64 (A-Z a-z 0-9 + /, padded with =)";
    }
    return undefined;
  },
  post_mutation: (field, payload) => {
    if (!isObject(field)) return "expected an object";
    if (field.action === "no_rescan" && Object.keys(field).length === 1) return undefined;
    if (field.action !== "request_rescan" || Object.keys(field).length !== 2) return 'expected {action:"no_rescan"} or {action:"request_rescan", resource_ids}';
    const ids = field.resource_ids;
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > 32 || ids.some((id) => typeof id !== "string" || id === "")) return "resource_ids must be 1..32 non-empty strings";
    const disclosed = isObject(payload) && Array.isArray(payload.affected_resources) ? payload.affected_resources : undefined;
    if (disclosed && ids.some((id) => !disclosed.includes(id))) return "resource_ids must come from the payload's affected_resources";
    return undefined;
  },
};

/** Context result (docs/protocol-0.2.md §8.4). */
export function contextResult(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw internal("context handler must return an array");
  return value;
}

/** Status result (docs/protocol-0.2.md §8.4). */
export function statusResult(value: unknown): JsonObject | null {
  if (value === null || value === undefined) return null;
  if (!isObject(value)) throw internal("status handler must return an object");
  const out: JsonObject = {
    surface: value.surface ?? "status",
    text: value.text === undefined ? "" : value.text,
    priority: value.priority ?? 0,
  };
  if ("style_role" in value) out.style_role = value.style_role;
  return out;
}

/** Render result (docs/protocol-0.2.md §8.4). */
export function renderResult(value: unknown): JsonObject {
  if (value === null || value === undefined) return { segments: [] };
  if (!isObject(value)) return { segments: [{ text: pyStr(value), style_role: null }] };
  const segments = value.segments ?? [];
  if (!Array.isArray(segments)) throw internal("renderer segments must be an array");
  return { segments };
}
