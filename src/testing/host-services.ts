import { isObject, type JsonRecord } from "../check.ts";
import { readUnsigned64 } from "../wire/json.ts";
import { promptMetadataProblem } from "./prompt-rules.ts";

/**
 * octet's rules for the API 0.2 messages an extension sends (docs/protocol-0.2.md §1.9,
 * §4.5–§4.13): which are fatal. Used by the test host; checked independently
 * of the runtime's own validation (the host's default answers are in
 * `built-in-responders.ts`).
 */

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function unknownKeys(value: JsonRecord, allowed: string[]): string | undefined {
  const extra = Object.keys(value).filter((k) => !allowed.includes(k));
  return extra.length ? `unknown keys ${extra.join(", ")}` : undefined;
}

/** `$/progress` params shape (fatal when malformed). */
export function checkProgressParams(params: unknown, features: ReadonlySet<string>, api = "0.2"): string | undefined {
  if (!isObject(params)) return "$/progress params must be an object";
  const bad = unknownKeys(params, ["request_id", "sequence", "event"]);
  if (bad) return `$/progress has ${bad}`;
  if (readUnsigned64(params, "request_id") === undefined) return "$/progress request_id must be a u64";
  if (readUnsigned64(params, "sequence") === undefined) return "$/progress sequence must be a u64";
  const event = params.event;
  if (!isObject(event)) return "$/progress event must be an object";
  const nullableU64 = (key: string) => event[key] === undefined || event[key] === null || readUnsigned64(event, key) !== undefined;
  switch (event.type) {
    case "status":
      if (unknownKeys(event, ["type", "message", "current", "total", "unit"])) return "$/progress status event has unknown keys";
      if (typeof event.message !== "string") return "$/progress status message must be a string";
      if (!nullableU64("current") || !nullableU64("total")) return "$/progress current/total must be u64 or null";
      if (event.unit !== undefined && event.unit !== null && typeof event.unit !== "string") return "$/progress unit must be a string or null";
      return undefined;
    case "output":
      if (unknownKeys(event, ["type", "stream", "encoding", "data"])) return "$/progress output event has unknown keys";
      if (!["stdout", "stderr"].includes(event.stream as string) || !["utf8", "base64"].includes(event.encoding as string) || typeof event.data !== "string") {
        return "$/progress output event is malformed";
      }
      return undefined;
    case "decoration": {
      if (!features.has("progress_decoration")) return "$/progress decoration without negotiated progress_decoration";
      if (unknownKeys(event, ["type", "label", "detail"])) return "$/progress decoration event has unknown keys";
      const sized = (v: unknown, max: number) => typeof v === "string" && Buffer.byteLength(v) >= 1 && Buffer.byteLength(v) <= max && !CONTROL.test(v);
      if (!sized(event.label, 256)) return "$/progress decoration label must be 1..256 bytes without control characters";
      if (event.detail !== undefined && !sized(event.detail, 4096)) return "$/progress decoration detail must be 1..4096 bytes without control characters";
      return undefined;
    }
    case "partial_result": {
      // octet 0.8.x only; a snapshot of a tool result (checked against its parent in the monitor).
      if (api !== "0.4") return "$/progress partial_result is not an event of API 0.2";
      if (unknownKeys(event, ["type", "result"])) return "$/progress partial_result event has unknown keys";
      const result = event.result;
      if (!isObject(result) || !Array.isArray(result.content) || result.content.length === 0 || typeof result.is_error !== "boolean") return "$/progress partial_result result must be a tool result";
      if (!result.content.some((part) => isObject(part) && part.type === "text" && typeof part.text === "string")) return "$/progress partial_result result needs a text part";
      return undefined;
    }
    default:
      return `$/progress event type ${JSON.stringify(event.type)} is unknown`;
  }
}

/** API 0.4 session services and the feature each needs (docs/api-0.4.md "Session services"). */
export const SESSION_SERVICE_FEATURES: Readonly<Record<string, string>> = {
  "composer/get": "composer",
  "composer/set": "composer",
  "composer/insert": "composer",
  "session/append_entry": "session_entries",
  "session/set_name": "session_entries",
  "session/set_label": "session_entries",
  "session/send_message": "message_injection",
  "session/send_user_message": "message_injection",
  "tools/set_active": "active_tools",
  "session/wait_for_idle": "session_control_v1",
  "session/create": "session_control_v1",
  "session/fork": "session_control_v1",
  "session/switch": "session_control_v1",
  "session/reload": "session_control_v1",
  "session/compact": "session_compaction_v1",
  "bulk/write": "bulk_objects_v1",
  "bulk/commit": "bulk_objects_v1",
  "bulk/read": "bulk_objects_v1",
  "bulk/release": "bulk_objects_v1",
  "resource/register": "resource_refs_v1",
  "resource/release": "resource_refs_v1",
};
/** The session services answered while their parent is live (all but `session/compact`). */
const SESSION_SERVICES = Object.keys(SESSION_SERVICE_FEATURES).filter((m) => m !== "session/compact");

/** Operation-scoped requests carry the active parent (docs/protocol-0.2.md §4). */
export const OPERATION_SCOPED = new Set([
  "confirmation/request",
  "input/request",
  "artifact/publish",
  "policy/evaluate",
  "secret/get",
  "agent/spawn",
  "agent/message",
  "agent/follow_up",
  "agent/list",
  "agent/wait",
  "agent/interrupt",
  "agent/models",
  ...SESSION_SERVICES,
]);

/** Shapes the host cannot decode at all (fatal), for the API 0.2 service requests. */
export function checkServiceRequest(method: string, params: unknown, features: ReadonlySet<string> = new Set()): string | undefined {
  if (!isObject(params)) return `${method} params must be an object`;
  switch (method) {
    case "artifact/publish": {
      const bad = unknownKeys(params, ["parent_request_id", "mime_type", "size", "sha256", "data", "path"]);
      if (bad) return `artifact/publish has ${bad}`;
      if (typeof params.mime_type !== "string" || readUnsigned64(params, "size") === undefined || typeof params.sha256 !== "string") {
        return "artifact/publish needs mime_type, size and sha256";
      }
      if (("data" in params) === ("path" in params)) return "artifact/publish needs exactly one of data and path";
      if ("data" in params) {
        const data = params.data;
        if (!isObject(data) || unknownKeys(data, ["encoding", "data"]) || data.encoding !== "base64" || typeof data.data !== "string") {
          return "artifact/publish data must be {encoding:\"base64\", data}";
        }
      } else if (typeof params.path !== "string") return "artifact/publish path must be a string";
      return undefined;
    }
    case "policy/evaluate": {
      const bad = unknownKeys(params, ["parent_request_id", "intent", "approval_token"]);
      if (bad) return `policy/evaluate has ${bad}`;
      const intent = params.intent;
      if (!isObject(intent) || unknownKeys(intent, ["kind", "operation", "target", "data_classes", "adapter_hints"])) return "policy/evaluate intent is malformed";
      if (typeof intent.kind !== "string" || intent.kind.trim() === "" || typeof intent.operation !== "string" || intent.operation.trim() === "") {
        return "policy/evaluate intent needs non-blank kind and operation";
      }
      if (!isObject(intent.target)) return "policy/evaluate intent target must be an object";
      if (intent.data_classes !== undefined && (!Array.isArray(intent.data_classes) || intent.data_classes.some((c) => typeof c !== "string"))) {
        return "policy/evaluate intent data_classes must be strings";
      }
      const hints = intent.adapter_hints;
      if (hints !== undefined && (!isObject(hints) || unknownKeys(hints, ["read_only", "destructive"]) || Object.values(hints).some((v) => v !== null && typeof v !== "boolean"))) {
        return "policy/evaluate intent adapter_hints is malformed";
      }
      if (params.approval_token !== undefined && typeof params.approval_token !== "string") return "policy/evaluate approval_token must be a string";
      return undefined;
    }
    case "secret/get":
      return unknownKeys(params, ["parent_request_id", "name"]) ?? (typeof params.name === "string" ? undefined : "secret/get name must be a string");
    case "tools/register":
      if ("parent_request_id" in params) return "tools/register must not carry parent_request_id";
      if (!Array.isArray(params.tools)) return "tools/register tools must be an array";
      for (const tool of params.tools) {
        const allowed = ["name", "description", "parameters", "output_schema"];
        if (features.has("tool_prompt_metadata_v1")) allowed.push("prompt_snippet", "prompt_guidelines");
        if (features.has("operation_descriptors_v1")) allowed.push("operation");
        if (!isObject(tool)) return "tools/register tools must be objects";
        const extra = unknownKeys(tool, allowed);
        if (extra) return `tools/register tool ${extra}`;
        const problem = promptMetadataProblem(tool.prompt_snippet, tool.prompt_guidelines);
        if (problem) return `tools/register tool ${String(tool.name)}: ${problem}`;
      }
      return undefined;
    case "composer/get":
      return unknownKeys(params, ["parent_request_id", "resource_owner"]);
    case "composer/set":
    case "composer/insert":
      return unknownKeys(params, ["parent_request_id", "resource_owner", "text"]) ?? (typeof params.text === "string" ? undefined : `${method} text must be a string`);
    case "session/append_entry":
      if (unknownKeys(params, ["parent_request_id", "resource_owner", "entry_type", "data", "session_leaf"])) return `${method} has ${unknownKeys(params, ["parent_request_id", "resource_owner", "entry_type", "data", "session_leaf"])}`;
      if (params.session_leaf !== undefined && (!isObject(params.session_leaf) || unknownKeys(params.session_leaf, ["grant_id", "activation_epoch", "operation_id"]))) return "session/append_entry session_leaf must be {grant_id, activation_epoch, operation_id}";
      if (typeof params.entry_type !== "string" || params.entry_type.trim() === "" || Buffer.byteLength(params.entry_type) > 128) return "session/append_entry entry_type must be 1-128 bytes";
      return "data" in params ? undefined : "session/append_entry needs data";
    case "session/set_name":
      return unknownKeys(params, ["parent_request_id", "resource_owner", "name"]) ?? (typeof params.name === "string" ? undefined : "session/set_name name must be a string");
    case "session/set_label":
      return unknownKeys(params, ["parent_request_id", "resource_owner", "entry_id", "label"]) ?? (typeof params.entry_id === "string" && typeof params.label === "string" ? undefined : "session/set_label needs entry_id and label strings");
    case "session/send_user_message":
      return unknownKeys(params, ["parent_request_id", "resource_owner", "text"]) ?? (typeof params.text === "string" ? undefined : "session/send_user_message text must be a string");
    case "session/send_message":
      // Its params differ between octet revisions; the runtime never sends it (docs/api-0.4.md).
      return "session/send_message has no shape every octet revision accepts";
    case "tools/set_active": {
      const names = params.names;
      if (unknownKeys(params, ["parent_request_id", "resource_owner", "names"])) return `tools/set_active has ${unknownKeys(params, ["parent_request_id", "resource_owner", "names"])}`;
      if (!Array.isArray(names) || names.length > 256 || names.some((n) => typeof n !== "string" || !/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/.test(n))) return "tools/set_active names must be at most 256 identifiers";
      return new Set(names).size === names.length ? undefined : "tools/set_active names must be unique";
    }
    case "session/wait_for_idle":
    case "session/create":
    case "session/fork":
    case "session/reload":
      return unknownKeys(params, ["parent_request_id", "resource_owner", "session_id"]) ?? (params.session_id === undefined || params.session_id === null ? undefined : "invalid session control parameters");
    case "session/switch":
      return unknownKeys(params, ["parent_request_id", "resource_owner", "session_id"]) ?? (typeof params.session_id === "string" && params.session_id !== "" && Buffer.byteLength(params.session_id) <= 256 ? undefined : "invalid session control parameters");
    case "session/compact":
      return unknownKeys(params, ["parent_request_id", "resource_owner", "custom_instructions"]) ?? (isObject(params.resource_owner) ? undefined : "session/compact requires resource_owner");
    case "resource/register":
      return unknownKeys(params, ["parent_request_id", "type"]) ?? (typeof params.type === "string" && /^[A-Za-z][A-Za-z0-9_.-]{0,127}$/.test(params.type) ? undefined : "resource/register type must be a nominal type name");
    case "resource/release": {
      const ref = params.resource;
      return unknownKeys(params, ["parent_request_id", "resource"]) ?? (isObject(ref) && Object.keys(ref).length === 2 && typeof ref.$resource === "string" && typeof ref.type === "string" ? undefined : "resource/release resource must be a ResourceRef");
    }
    case "tools/unregister":
      if ("parent_request_id" in params) return "tools/unregister must not carry parent_request_id";
      return Array.isArray(params.names) ? undefined : "tools/unregister names must be an array";
    default:
      return undefined;
  }
}
