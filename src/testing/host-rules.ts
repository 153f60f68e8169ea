import { isObject, type JsonRecord } from "../check.ts";
import { RESOURCE_LIMITS } from "../protocol.ts";
import { readUnsigned64 } from "../wire/json.ts";
import type { HostManifest } from "./manifest.ts";
import { SESSION_SERVICE_FEATURES } from "./host-services.ts";
import { promptMetadataProblem } from "./prompt-rules.ts";

/**
 * octet 0.8.0's host rules for frames an extension writes (docs/protocol-0.2.md §1.9, §3.1,
 * §4). Each check returns the violation text, or undefined when the frame is
 * acceptable. A violation is fatal: the real host kills the process.
 */

const LEVELS = ["info", "success", "warning", "error"];
const PLACEMENTS = ["system_prefix", "system_suffix", "prompt_prefix", "prompt_suffix"];
const IDENT = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** Requests octet serves with one of its 8 child workers (docs/protocol-0.2.md §7), listed here independently of the SDK. */
const CHILD_WORKER_METHODS = new Set(["confirmation/request", "input/request", "artifact/publish", "secret/get"]);

export function holdsChildWorker(method: string): boolean {
  return CHILD_WORKER_METHODS.has(method) || method.startsWith("agent/");
}

/** Child-worker requests whose overflow makes octet drop the connection (docs/protocol-0.2.md §1.9); the others get a `ServerError` reply. */
export const FATAL_CHILD_OVERFLOW = new Set(["confirmation/request", "input/request", "artifact/publish"]);

function keysWithin(value: JsonRecord, allowed: string[]): string | undefined {
  const extra = Object.keys(value).filter((k) => !allowed.includes(k));
  return extra.length > 0 ? `unknown keys ${extra.join(", ")}` : undefined;
}

/** A response's envelope: unsigned integer id, exactly one of result/error, error shape. */
export function checkResponseEnvelope(frame: JsonRecord): string | undefined {
  if (readUnsigned64(frame, "id") === undefined) return "response requires a numeric id";
  const extra = keysWithin(frame, ["jsonrpc", "id", "result", "error"]);
  if (extra) return `response has ${extra}`;
  const hasResult = "result" in frame;
  const hasError = "error" in frame;
  if (hasResult === hasError) return "response must carry exactly one of result and error";
  if (hasError) {
    const error = frame.error;
    if (!isObject(error)) return "response error must be an object";
    const bad = keysWithin(error, ["code", "message", "data"]);
    if (bad) return `response error has ${bad}`;
    if (typeof error.code !== "number" || !Number.isInteger(error.code)) return "response error code must be an integer";
    if (typeof error.message !== "string") return "response error message must be a string";
  }
  return undefined;
}

const SESSION_OPERATION_HOOKS = ["session_before_compact", "session_compact", "session_before_tree", "session_tree", "model_turn_start", "model_turn_end"];

/** Features the host refuses without another (octet 0.8.x `negotiation.rs`; only `approvals` exists on octet 0.8.0's 0.2). */
const FEATURE_NEEDS: [string, string][] = [
  ["approvals", "policy_intents"],
  ["autocomplete_edit_v1", "autocomplete"],
  ["agent_model_selection_v1", "agent_sessions"],
  ["agent_session_events_v1", "agent_sessions"],
  ["agent_session_lifetime_v1", "agent_sessions"],
  ["session_compaction_v1", "session_control_v1"],
];

/** The initialize result (docs/protocol-0.2.md §3.1 host validation; docs/api-0.4.md for 0.4). */
export function checkInitializeResult(result: unknown, manifest: HostManifest, offered: { features: string[]; required: string[] }): string | undefined {
  if (!isObject(result)) return "initialize result must be an object";
  const extra = keysWithin(result, ["api_version", "tools", "commands", "tool_renderers", "shortcuts", "protocol"]);
  if (extra) return `initialize result has ${extra}`;
  if (result.api_version !== manifest.api_version) return `initialize api_version ${JSON.stringify(result.api_version)} differs from the manifest's ${manifest.api_version}`;
  const tools = result.tools ?? [];
  const commands = result.commands ?? [];
  if (!Array.isArray(tools)) return "initialize tools must be an array";
  if (!Array.isArray(commands)) return "initialize commands must be an array";
  if (tools.length > 256) return "initialize declares more than 256 tools";
  if (commands.length > 256) return "initialize declares more than 256 commands";
  let features: string[] = [];
  if (manifest.api_version === "0.1") {
    if ("protocol" in result) return "API 0.1 initialize result must not carry protocol";
  } else {
    const p = result.protocol;
    if (!isObject(p)) return `API ${manifest.api_version} initialize result requires protocol`;
    const bad = keysWithin(p, ["version", "features", "limits", "lifecycle_events"]);
    if (bad) return `protocol has ${bad}`;
    if (p.version !== manifest.api_version) return `protocol.version must be ${manifest.api_version}`;
    features = (p.features ?? []) as string[];
    if (!Array.isArray(features) || features.some((f) => typeof f !== "string")) return "protocol.features must be an array of strings";
    if (new Set(features).size !== features.length) return "protocol.features has duplicates";
    for (const f of features) if (!offered.features.includes(f)) return `protocol.features names ${f}, which was not offered`;
    for (const f of offered.required) if (!features.includes(f)) return `protocol.features lacks required ${f}`;
    for (const [feature, needs] of FEATURE_NEEDS) if (features.includes(feature) && !features.includes(needs)) return `${feature} negotiation requires ${needs}`;
    if (!isObject(p.limits)) return "protocol.limits is required";
    const badLimits = keysWithin(p.limits, manifest.api_version === "0.4" ? ["max_concurrent_requests", "resource_refs_v1"] : ["max_concurrent_requests"]);
    if (badLimits) return `protocol.limits has ${badLimits}`;
    if ("resource_refs_v1" in p.limits && !sameResourceLimits(p.limits.resource_refs_v1)) return "unsupported resource registry limits";
    const max = readUnsigned64(p.limits, "max_concurrent_requests");
    if (max === undefined || max === 0) return "protocol.limits.max_concurrent_requests must be a positive integer";
    for (const hook of ["compaction_strategy", "cache_warming_decision"]) {
      if (manifest.contributes.hooks.includes(hook) && !features.includes(hook)) return `${hook} hook requires negotiated ${hook} feature`;
    }
    if (SESSION_OPERATION_HOOKS.some((hook) => manifest.contributes.hooks.includes(hook)) && !features.includes("session_entries")) return "session operation hooks require negotiated session_entries";
    const events = p.lifecycle_events ?? [];
    if (!Array.isArray(events)) return "protocol.lifecycle_events must be an array";
    if (events.length > 0 && !features.includes("lifecycle_events")) return "lifecycle_events subscriptions without the feature";
  }
  const names: string[] = [];
  for (const tool of tools) {
    if (!isObject(tool)) return "tool definition must be an object";
    const promptMetadata = features.includes("tool_prompt_metadata_v1");
    const keys = ["name", "description", "parameters", "output_schema"];
    if (promptMetadata) keys.push("prompt_snippet", "prompt_guidelines");
    if (features.includes("operation_descriptors_v1")) keys.push("operation");
    const bad = keysWithin(tool, keys);
    if (bad) return `tool definition has ${bad} (prompt metadata and operations need their negotiated features)`;
    if ("operation" in tool && isObject(tool.operation) && ((tool.operation.resource_inputs as unknown[])?.length || (tool.operation.resource_outputs as unknown[])?.length) && !features.includes("resource_refs_v1")) {
      return `tool ${String(tool.name)}: resource-bearing operations need negotiated resource_refs_v1`;
    }
    const promptProblem = promptMetadataProblem(tool.prompt_snippet, tool.prompt_guidelines);
    if (promptProblem) return `tool ${String(tool.name)}: ${promptProblem}`;
    if (typeof tool.name !== "string" || !IDENT.test(tool.name)) return `tool name ${JSON.stringify(tool.name)} is invalid`;
    if (typeof tool.description !== "string" || tool.description.trim() === "") return `tool ${tool.name} needs a description`;
    if (tool.parameters !== undefined && !isObject(tool.parameters)) return `tool ${tool.name} parameters must be an object`;
    if ("output_schema" in tool && manifest.api_version === "0.1") return `tool ${tool.name}: output_schema is API 0.2 only`;
    if (names.includes(tool.name)) return `duplicate tool ${tool.name}`;
    names.push(tool.name);
  }
  if (!features.includes("dynamic_tools") && !sameSet(names, manifest.contributes.tools)) {
    return `initialize tools ${JSON.stringify(names)} differ from contributes.tools ${JSON.stringify(manifest.contributes.tools)}`;
  }
  const commandNames: string[] = [];
  for (const command of commands) {
    if (!isObject(command)) return "command definition must be an object";
    const bad = keysWithin(command, ["name", "description", "usage"]);
    if (bad) return `command definition has ${bad}`;
    if (typeof command.name !== "string" || !IDENT.test(command.name)) return `command name ${JSON.stringify(command.name)} is invalid`;
    if (typeof command.description !== "string" || command.description.trim() === "") return `command ${command.name} needs a description`;
    if (command.usage !== undefined && command.usage !== null && typeof command.usage !== "string") return `command ${command.name} usage must be a string`;
    commandNames.push(command.name);
  }
  if (!sameSet(commandNames, manifest.contributes.commands)) {
    return `initialize commands ${JSON.stringify(commandNames)} differ from contributes.commands ${JSON.stringify(manifest.contributes.commands)}`;
  }
  // octet compares the lists as they are: same entries, same order, same fields.
  const shortcuts = result.shortcuts ?? [];
  if (!Array.isArray(shortcuts) || shortcuts.some((s) => !isObject(s) || keysWithin(s, ["key", "name", "description"]))) return "initialize shortcuts must be {key, name, description} entries";
  const spelled = (list: JsonRecord[]) => JSON.stringify(list.map((s) => [s.key, s.name, s.description]));
  if (spelled(shortcuts as JsonRecord[]) !== spelled(manifest.contributes.shortcuts as unknown as JsonRecord[])) return "initialized shortcuts do not match manifest declarations";
  const renderers = result.tool_renderers ?? [];
  if (!Array.isArray(renderers)) return "initialize tool_renderers must be an array";
  if (renderers.length > 0 && !features.includes("dynamic_tool_renderers") && JSON.stringify(renderers) !== JSON.stringify(manifest.contributes.tool_renderers)) {
    return "runtime tool renderers require dynamic_tool_renderers negotiation";
  }
  return undefined;
}

function sameResourceLimits(value: unknown): boolean {
  // The limits are a fact (src/protocol.ts); the check of the reply is this module's own.
  if (!isObject(value) || keysWithin(value, Object.keys(RESOURCE_LIMITS))) return false;
  return Object.entries(RESOURCE_LIMITS).every(([key, limit]) => value[key] === limit);
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && new Set(a).size === a.length && b.every((x) => a.includes(x));
}

/** Extension→host notifications (docs/protocol-0.2.md §4.1–§4.6). Unknown methods are not fatal (returns "ignored"). */
export function checkNotification(method: string, params: unknown, manifest: HostManifest, features: ReadonlySet<string>): string | undefined | "ignored" {
  const c = manifest.contributes;
  switch (method) {
    case "notification": {
      if (!c.notifications) return "notification without contributes.notifications";
      if (!isObject(params)) return "notification params must be an object";
      const bad = keysWithin(params, ["level", "title", "message"]);
      if (bad) return `notification has ${bad}`;
      if (params.level !== undefined && !LEVELS.includes(params.level as string)) return "notification level is invalid";
      if (params.title !== undefined && params.title !== null && typeof params.title !== "string") return "notification title must be a string";
      if (typeof params.message !== "string") return "notification message must be a string";
      return undefined;
    }
    case "context/contribution": {
      if (!c.context) return "context/contribution without contributes.context";
      return checkContextEntry(params);
    }
    case "status/contribution": {
      if (!isObject(params)) return "status/contribution params must be an object";
      const bad = keysWithin(params, ["surface", "text", "style_role", "priority"]);
      if (bad) return `status/contribution has ${bad}`;
      if (!c.ui.includes(params.surface as string)) return `status/contribution for undeclared surface ${JSON.stringify(params.surface)}`;
      if (typeof params.text !== "string") return "status/contribution text must be a string";
      if (params.style_role !== undefined && params.style_role !== null && typeof params.style_role !== "string") return "status/contribution style_role must be a string";
      const p = params.priority as number;
      if (params.priority !== undefined && (!Number.isInteger(p) || p < -(2 ** 31) || p > 2 ** 31 - 1)) return "status/contribution priority must be an i32";
      return undefined;
    }
    case "$/cancelRequest": {
      if (manifest.api_version === "0.1") return "$/cancelRequest is not part of the frozen API 0.1 wire";
      if (!isObject(params) || !("id" in params)) return "$/cancelRequest without params.id";
      const id = params.id;
      if (typeof id !== "string" && readUnsigned64(params, "id") === undefined) return "$/cancelRequest with an invalid id";
      return undefined;
    }
    case "confirmation/request":
      // octet reads confirmation/request only as a request: one without an id is fatal (docs/protocol-0.2.md §1.9).
      return "confirmation/request without an id";
    case "$/progress":
      if (manifest.api_version === "0.1" || !features.has("request_progress")) return "$/progress without negotiated request_progress";
      return undefined;
    case "presentation/update":
      if (manifest.api_version === "0.1") return "presentation/update on API 0.1";
      if (!c.presentation) return "presentation/update without contributes.presentation";
      return undefined;
    default:
      return "ignored";
  }
}

/** A context entry (context/contribution params or context/collect item). */
export function checkContextEntry(params: unknown): string | undefined {
  if (!isObject(params)) return "context entry must be an object";
  const bad = keysWithin(params, ["label", "content", "placement"]);
  if (bad) return `context entry has ${bad}`;
  if (typeof params.label !== "string" || typeof params.content !== "string") return "context entry needs string label and content";
  if (params.placement !== undefined && !PLACEMENTS.includes(params.placement as string)) return "context entry placement is invalid";
  return undefined;
}

const FEATURE_OF: Record<string, string> = {
  "artifact/publish": "artifacts",
  "policy/evaluate": "policy_intents",
  "secret/get": "secrets",
  "tools/register": "dynamic_tools",
  "tools/unregister": "dynamic_tools",
};

/** Extension→host requests (docs/protocol-0.2.md §4.2, §4.7–§4.13). Returns a violation or undefined. */
export function checkRequest(method: string, params: unknown, manifest: HostManifest, features: ReadonlySet<string>): string | undefined {
  const api = manifest.api_version;
  const feature = method.startsWith("agent/") ? "agent_sessions" : (FEATURE_OF[method] ?? SESSION_SERVICE_FEATURES[method]);
  if (feature && (api === "0.1" || !features.has(feature))) return `${method} without negotiated ${feature}`;
  if (method === "confirmation/request") {
    if (!manifest.contributes.confirmations) return "confirmation/request without contributes.confirmations";
    if (!isObject(params)) return "confirmation/request params must be an object";
    const bad = keysWithin(params, ["parent_request_id", "prompt", "detail", "destructive", "default"]);
    if (bad) return `confirmation/request has ${bad}`;
    if (typeof params.prompt !== "string") return "confirmation/request prompt must be a string";
    if (params.detail !== undefined && params.detail !== null && typeof params.detail !== "string") return "confirmation/request detail must be a string";
    for (const key of ["destructive", "default"]) if (params[key] !== undefined && typeof params[key] !== "boolean") return `confirmation/request ${key} must be a boolean`;
    return checkParent(method, params, api);
  }
  if (method === "input/request") {
    if (api === "0.1") return "input/request on API 0.1";
    if (!isObject(params)) return "input/request params must be an object";
    const bad = keysWithin(params, ["parent_request_id", "prompt", "secret"]);
    if (bad) return `input/request has ${bad}`;
    if (typeof params.prompt !== "string" || params.prompt.trim() === "") return "input/request prompt must not be blank";
    if (Buffer.byteLength(params.prompt) > 16 * 1024) return "input/request prompt exceeds 16 KiB";
    if (params.secret !== undefined && typeof params.secret !== "boolean") return "input/request secret must be a boolean";
    return checkParent(method, params, api);
  }
  return undefined;
}

function checkParent(method: string, params: JsonRecord, api: string): string | undefined {
  if (api === "0.1") return "parent_request_id" in params ? `${method} on API 0.1 must not carry parent_request_id` : undefined;
  if (readUnsigned64(params, "parent_request_id") === undefined) return `${method} requires parent_request_id`;
  return undefined;
}
