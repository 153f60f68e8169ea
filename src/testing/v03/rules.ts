/**
 * What the test host holds an API 0.3 extension's frames to (docs/protocol-0.3.md,
 * octet `negotiation.rs`, `api_v03.mjs`). The facts are restated here
 * rather than imported from the runtime, so that a runtime mistake is caught.
 */
import { isObject, type JsonRecord } from "../../check.ts";
import type { HostManifest } from "../manifest.ts";

/** The error table: code → the only message it may carry. */
const ERROR_TABLE: Readonly<Record<number, string>> = {
  [-32700]: "parse error",
  [-32600]: "invalid request",
  [-32601]: "unknown or unnegotiated method",
  [-32602]: "invalid params",
  [-32603]: "internal error",
  [-32010]: "extension API version mismatch",
  [-32011]: "extension capability mismatch",
  [-32012]: "extension resource exhausted",
  [-32800]: "request cancelled",
};

export const REQUIRED_CAPABILITIES_03 = ["content_parts", "core", "request_cancellation", "tool_call"];
export const REQUIRED_METHODS_03 = ["$/cancelRequest", "initialize", "shutdown", "tool/call"];

/** Each method's capability. */
const CAPABILITY_OF: Readonly<Record<string, string>> = {
  "$/cancelRequest": "request_cancellation",
  initialize: "core",
  shutdown: "core",
  "tool/call": "tool_call",
  "hook/run": "lifecycle_events",
  "migration/detect": "migration.adapter.v1",
  "migration/import": "migration.adapter.v1",
  "provider/auth/request": "provider_auth",
  "provider/auth/revoke": "provider_auth",
  "provider/cancel": "provider_stream",
  "provider/event": "provider_stream",
  "provider/stream": "provider_stream",
  "providers/complete": "provider_catalog",
  "providers/register": "provider_catalog",
  "providers/unregister": "provider_catalog",
  "providers/update": "provider_catalog",
  "session/create": "session_lifecycle",
  "session/fork": "session_lifecycle",
  "session/reload": "session_lifecycle",
  "session/switch": "session_lifecycle",
  "theme/select": "theme_selection",
  "bus/declare": "event_bus",
  "bus/subscribe": "event_bus",
  "bus/unsubscribe": "event_bus",
  "bus/publish": "event_bus",
  "bus/event": "event_bus",
  "bus/lifecycle": "event_bus",
};

/** Methods the extension may send: requests, and (second set) notifications. */
const EXTENSION_REQUESTS = new Set([
  "provider/auth/request",
  "provider/auth/revoke",
  "providers/register",
  "providers/unregister",
  "providers/update",
  "session/create",
  "session/fork",
  "session/reload",
  "session/switch",
  "theme/select",
  "bus/declare",
  "bus/subscribe",
  "bus/unsubscribe",
  "bus/publish",
]);
const EXTENSION_NOTIFICATIONS = new Set(["$/cancelRequest", "provider/event", "providers/complete"]);
const PROVIDER_CAPABILITIES = new Set(["provider_auth", "provider_catalog", "provider_stream"]);

const extra = (o: JsonRecord, allowed: string[]) => Object.keys(o).filter((k) => !allowed.includes(k));
const bytes = (s: string) => Buffer.byteLength(s);

/** A response frame from the extension: closed, one of result/error, an error pair of the table. */
export function responseViolation(frame: JsonRecord): string | undefined {
  if (frame.jsonrpc !== "2.0") return 'response without "jsonrpc":"2.0"';
  const isError = "error" in frame;
  const unknown = extra(frame, isError ? ["error", "id", "jsonrpc"] : ["id", "jsonrpc", "result"]);
  if (unknown.length > 0) return `response has member(s) a closed API 0.3 envelope forbids: ${unknown.join(", ")}`;
  if (!isError && (!("result" in frame) || frame.result === null)) return "response has neither a non-null result nor an error";
  if (!isError) return undefined;
  const error = frame.error;
  if (!isObject(error)) return "error must be an object";
  const more = extra(error, ["code", "data", "message"]);
  if (more.length > 0) return `error object has unknown member(s) ${more.join(", ")}`;
  const message = ERROR_TABLE[error.code as number];
  if (message === undefined) return `error code ${String(error.code)} is not in the API 0.3 error table`;
  if (error.message !== message) return `error ${String(error.code)} must carry the message ${JSON.stringify(message)}, not ${JSON.stringify(error.message)}`;
  return undefined;
}

/** A request or notification from the extension: a selected extension→host method, closed envelope. */
export function extensionMessageViolation(frame: JsonRecord, methods: ReadonlySet<string>): { fatal?: string; refuse?: string } {
  const method = String(frame.method);
  const request = "id" in frame;
  const unknown = extra(frame, request ? ["id", "jsonrpc", "method", "params"] : ["jsonrpc", "method", "params"]);
  if (frame.jsonrpc !== "2.0") return { fatal: `${method}: frame without "jsonrpc":"2.0"` };
  if (unknown.length > 0) return { fatal: `${method}: envelope member(s) a closed API 0.3 envelope forbids: ${unknown.join(", ")}` };
  if (!("params" in frame) || frame.params === null) return { fatal: `${method}: params are required and must not be null` };
  if (request && !EXTENSION_REQUESTS.has(method)) return { fatal: `${method} is not an extension→host request of API 0.3` };
  if (!request && !EXTENSION_NOTIFICATIONS.has(method)) return { fatal: `${method} is not an extension→host notification of API 0.3` };
  if (!methods.has(method)) return { refuse: `${method} was not selected in the contract` };
  return {};
}

/**
 * The initialize result against what the host offered (octet `negotiate`,
 * `validateSelection`, `negotiate_api_v03_contributions`).
 */
export function selectionViolation(result: unknown, params: JsonRecord, manifest: HostManifest): string | undefined {
  if (!isObject(result)) return "initialize result must be an object";
  const top = extra(result, ["api_version", "contract", "tools"]);
  if (top.length > 0) return `initialize result has member(s) API 0.3 does not define: ${top.join(", ")}`;
  if (result.api_version !== "0.3") return `initialize result api_version must be "0.3", not ${JSON.stringify(result.api_version)}`;
  const offer = params.contract as JsonRecord;
  const offered = offer.limits as JsonRecord;
  const contract = result.contract;
  if (!isObject(contract)) return "initialize result needs a contract";
  const members = extra(contract, ["capabilities", "encoding", "limits", "methods", "schema"]);
  if (members.length > 0 || Object.keys(contract).length !== 5) return "contract must be exactly {capabilities, encoding, limits, methods, schema}";
  if (contract.schema !== "octet.extension.api/0.3") return `contract.schema must be "octet.extension.api/0.3"`;
  if (contract.encoding !== "octet-canonical-json-v1") return `contract.encoding must be "octet-canonical-json-v1"`;
  const capabilities = nameList(contract.capabilities, "contract.capabilities");
  if (typeof capabilities === "string") return capabilities;
  const methods = nameList(contract.methods, "contract.methods");
  if (typeof methods === "string") return methods;
  const offeredCapabilities = new Set([...(offer.required_capabilities as string[]), ...(offer.optional_capabilities as string[])]);
  const offeredMethods = new Set([...(offer.required_methods as string[]), ...(offer.optional_methods as string[])]);
  for (const name of REQUIRED_CAPABILITIES_03) if (!capabilities.has(name)) return `contract.capabilities lacks the required ${name}`;
  for (const name of REQUIRED_METHODS_03) if (!methods.has(name)) return `contract.methods lacks the required ${name}`;
  for (const name of capabilities) if (!offeredCapabilities.has(name)) return `contract.capabilities selects ${name}, which was not offered`;
  for (const name of methods) {
    if (!offeredMethods.has(name)) return `contract.methods selects ${name}, which was not offered`;
    if (!capabilities.has(CAPABILITY_OF[name]!)) return `contract.methods selects ${name} without its capability ${CAPABILITY_OF[name]}`;
  }
  const hooks = manifest.contributes.hooks;
  const pair = hooks.includes("session_start") && hooks.includes("session_end");
  if ((capabilities.has("lifecycle_events") || methods.has("hook/run")) && !pair) return "lifecycle_events/hook/run selected, but the manifest does not declare the session_start/session_end pair";
  if (capabilities.has("lifecycle_events") !== methods.has("hook/run")) return "lifecycle_events and hook/run must be selected together";
  const providers = manifest.contributes.providers === true;
  for (const name of capabilities) if (PROVIDER_CAPABILITIES.has(name) && !providers) return `${name} selected without contributes.providers = true`;
  if (capabilities.has("provider_stream") && (!capabilities.has("provider_catalog") || !["provider/stream", "provider/event", "provider/cancel"].every((m) => methods.has(m)))) {
    return "provider_stream needs provider_catalog and all of provider/stream, provider/event, provider/cancel";
  }
  if (capabilities.has("provider_auth") && !capabilities.has("provider_catalog")) return "provider_auth needs provider_catalog";
  const limits = contract.limits;
  if (!isObject(limits) || extra(limits, ["max_concurrent_requests", "max_frame_bytes", "max_tools"]).length > 0 || Object.keys(limits).length !== 3) {
    return "contract.limits must be exactly {max_concurrent_requests, max_frame_bytes, max_tools}";
  }
  for (const key of ["max_concurrent_requests", "max_frame_bytes", "max_tools"]) {
    const value = limits[key];
    if (!Number.isSafeInteger(value) || (value as number) <= 0) return `contract.limits.${key} must be a positive integer`;
    if ((value as number) > (offered[key] as number)) return `contract.limits.${key} ${value} raises the offered ${offered[key]}`;
  }
  const tools = result.tools;
  if (!Array.isArray(tools)) return "initialize result tools must be an array";
  if (tools.length > (limits.max_tools as number)) return `${tools.length} tools exceed the selected max_tools ${limits.max_tools}`;
  const names = new Set<string>();
  for (const tool of tools) {
    const problem = toolDefinitionViolation(tool);
    if (problem) return problem;
    const name = (tool as JsonRecord).name as string;
    if (names.has(name)) return `tool ${name} is listed twice`;
    names.add(name);
  }
  const declared = manifest.contributes.tools;
  if (names.size !== declared.length || declared.some((n) => !names.has(n))) return `tools ${JSON.stringify([...names])} differ from the manifest's ${JSON.stringify(declared)}`;
  return undefined;
}

function nameList(value: unknown, key: string): Set<string> | string {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v === "")) return `${key} must be an array of names`;
  const set = new Set(value as string[]);
  if (set.size !== value.length) return `${key} names something twice`;
  return set;
}

function toolDefinitionViolation(tool: unknown): string | undefined {
  if (!isObject(tool)) return "a tool definition must be an object";
  const unknown = extra(tool, ["description", "name", "output_schema", "parameters"]);
  if (unknown.length > 0) return `tool ${String(tool.name)} has member(s) API 0.3 does not define: ${unknown.join(", ")}`;
  if (typeof tool.name !== "string" || tool.name === "" || bytes(tool.name) > 128) return "a tool name must be a string of 1..128 bytes";
  if (typeof tool.description !== "string" || bytes(tool.description) > 4096) return `tool ${tool.name}: description must be a string of at most 4,096 bytes`;
  if (!isObject(tool.parameters)) return `tool ${tool.name}: parameters must be an object`;
  if ("output_schema" in tool && !isObject(tool.output_schema)) return `tool ${tool.name}: output_schema is optional but never null`;
  return undefined;
}

/** A `tool/call` result: `{content, is_error, metadata, structured_content?}`, text parts only. */
export function toolResultViolation(result: unknown): string | undefined {
  if (!isObject(result)) return "tool/call result must be an object";
  const unknown = extra(result, ["content", "is_error", "metadata", "structured_content"]);
  if (unknown.length > 0) return `tool/call result has member(s) API 0.3 does not define: ${unknown.join(", ")}`;
  if (!("metadata" in result)) return "tool/call result needs metadata (required, nullable)";
  if (typeof result.is_error !== "boolean") return "tool/call result is_error must be a boolean";
  if (!Array.isArray(result.content) || result.content.length > 256) return "tool/call result content must be an array of at most 256 parts";
  for (const part of result.content) {
    if (!isObject(part)) return "a content part must be an object";
    if (part.type !== "text") return `content part type ${JSON.stringify(part.type)} is not foundation on API 0.3 (text only)`;
    if (extra(part, ["text", "type"]).length > 0 || typeof part.text !== "string") return "a text part is exactly {text, type}";
  }
  return undefined;
}

/** A `hook/run` result: `{disposition: {kind, reason?}}`, deny/defer with a reason of 1..4,096 bytes. */
export function hookResultViolation(result: unknown): string | undefined {
  if (!isObject(result) || extra(result, ["disposition"]).length > 0 || !isObject(result.disposition)) return "hook/run result must be exactly {disposition}";
  const d = result.disposition;
  if (extra(d, ["kind", "reason"]).length > 0) return "a disposition is {kind, reason?}";
  if (!["continue", "deny", "defer"].includes(d.kind as string)) return `disposition kind ${JSON.stringify(d.kind)} is not continue, deny or defer`;
  if ("reason" in d && (typeof d.reason !== "string" || d.reason === "" || bytes(d.reason) > 4096)) return "a disposition reason is a string of 1..4,096 bytes";
  if (d.kind !== "continue" && !("reason" in d)) return `disposition ${d.kind} needs a reason`;
  return undefined;
}
