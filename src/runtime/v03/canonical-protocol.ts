/**
 * Facts of extension API 0.3, the canonical wire (docs/protocol-0.3.md;
 * octet `protocol/extension-api-v0.3.schema.json`, `API-0.4-REFERENCE.md`).
 */

export const API_VERSION_03 = "0.3";
export const SCHEMA_ID = "octet.extension.api/0.3";
export const CANONICAL_ENCODING = "octet-canonical-json-v1";

/** Bounds of the schema (`bounds`); the first three are negotiated maxima. */
export const BOUNDS = {
  max_frame_bytes: 1_048_576,
  max_concurrent_requests: 64,
  max_tools: 256,
  max_extension_flags: 64,
  max_capabilities: 32,
  max_methods: 64,
  max_capability_name_bytes: 64,
  max_method_name_bytes: 128,
  max_reason_bytes: 4_096,
  max_json_depth: 32,
  max_portable_json_integer: 9_007_199_254_740_991,
  max_content_parts: 256,
  max_tool_name_bytes: 128,
  max_tool_description_bytes: 4_096,
  max_json_rpc_id_bytes: 256,
  max_migration_items: 128,
  max_migration_path_bytes: 4_096,
  max_migration_name_bytes: 128,
  max_migration_skill_bytes: 131_072,
  max_migration_command_bytes: 4_096,
  max_migration_argument_bytes: 16_384,
  max_migration_diagnostic_bytes: 4_096,
  max_providers: 32,
  max_provider_models: 256,
  max_provider_id_bytes: 64,
  max_provider_label_bytes: 128,
  max_provider_auth_scopes: 32,
  max_provider_auth_lease_bytes: 256,
  max_provider_stream_event_bytes: 65_536,
  max_provider_stream_events: 100_000,
  max_session_hook_id_bytes: 256,
  max_theme_id_bytes: 128,
} as const;
export type Bound = keyof typeof BOUNDS;

/** The capabilities a host must require, exactly. */
export const REQUIRED_CAPABILITIES = ["content_parts", "core", "request_cancellation", "tool_call"] as const;
/** The capabilities a host may offer (`theme_selection` and `event_bus` are in the newest schema only). */
export const OPTIONAL_CAPABILITIES = [
  "event_bus",
  "lifecycle_events",
  "migration.adapter.v1",
  "provider_auth",
  "provider_catalog",
  "provider_stream",
  "session_lifecycle",
  "theme_selection",
] as const;
/** Named by the schema but never negotiable. */
export const DEFERRED_CAPABILITIES = ["dynamic_tools"] as const;

export type Direction = "host_to_extension" | "extension_to_host" | "bidirectional";

/** One method of the schema: its capability, direction, and whether it is a notification. */
export interface MethodSpec {
  capability: string;
  direction: Direction;
  notification: boolean;
  required?: true;
  deferred?: true;
}

const h2e = (capability: string, extra: Partial<MethodSpec> = {}): MethodSpec => ({ capability, direction: "host_to_extension", notification: false, ...extra });
const e2h = (capability: string, extra: Partial<MethodSpec> = {}): MethodSpec => ({ capability, direction: "extension_to_host", notification: false, ...extra });

/** Every method the schema names (`methods`), deferred ones included. */
export const METHODS: Readonly<Record<string, MethodSpec>> = {
  "$/cancelRequest": { capability: "request_cancellation", direction: "bidirectional", notification: true, required: true },
  initialize: h2e("core", { required: true }),
  shutdown: h2e("core", { required: true }),
  "tool/call": h2e("tool_call", { required: true }),
  "hook/run": h2e("lifecycle_events"),
  "context/collect": h2e("lifecycle_events", { deferred: true }),
  "migration/detect": h2e("migration.adapter.v1"),
  "migration/import": h2e("migration.adapter.v1"),
  "provider/auth/request": e2h("provider_auth"),
  "provider/auth/revoke": e2h("provider_auth"),
  "provider/cancel": h2e("provider_stream", { notification: true }),
  "provider/event": e2h("provider_stream", { notification: true }),
  "provider/stream": h2e("provider_stream"),
  "providers/complete": e2h("provider_catalog", { notification: true }),
  "providers/register": e2h("provider_catalog"),
  "providers/unregister": e2h("provider_catalog"),
  "providers/update": e2h("provider_catalog"),
  "session/create": e2h("session_lifecycle"),
  "session/fork": e2h("session_lifecycle"),
  "session/reload": e2h("session_lifecycle"),
  "session/switch": e2h("session_lifecycle"),
  "theme/select": e2h("theme_selection"),
  "bus/declare": e2h("event_bus"),
  "bus/subscribe": e2h("event_bus"),
  "bus/unsubscribe": e2h("event_bus"),
  "bus/publish": e2h("event_bus"),
  "bus/event": h2e("event_bus", { notification: true }),
  "bus/lifecycle": h2e("event_bus", { notification: true }),
  "tools/register": e2h("dynamic_tools", { deferred: true }),
  "tools/unregister": e2h("dynamic_tools", { deferred: true }),
};

export const REQUIRED_METHODS = ["$/cancelRequest", "initialize", "shutdown", "tool/call"] as const;

/** The error table: each code goes with exactly this message. */
export const ERRORS = {
  parse_error: { code: -32700, message: "parse error" },
  invalid_request: { code: -32600, message: "invalid request" },
  unknown_method: { code: -32601, message: "unknown or unnegotiated method" },
  invalid_params: { code: -32602, message: "invalid params" },
  internal_error: { code: -32603, message: "internal error" },
  version_mismatch: { code: -32010, message: "extension API version mismatch" },
  capability_mismatch: { code: -32011, message: "extension capability mismatch" },
  resource_exhausted: { code: -32012, message: "extension resource exhausted" },
  request_cancelled: { code: -32800, message: "request cancelled" },
} as const;
export type ErrorKind = keyof typeof ERRORS;

/** The error kind of a table code, if it is one. */
export function errorKindOf(code: number): ErrorKind | undefined {
  for (const [kind, spec] of Object.entries(ERRORS)) if (spec.code === code) return kind as ErrorKind;
  return undefined;
}

/** Disposition kinds; `deny` and `defer` need a reason. */
export const DISPOSITIONS = { continue: false, deny: true, defer: true } as const;

/** The session hooks of API 0.3: declared as a pair or not at all. */
export const SESSION_HOOKS = ["session_start", "session_end"] as const;
export type SessionHookName = (typeof SESSION_HOOKS)[number];

/** `[contributes]` keys API 0.3 refuses (octet `negotiation.rs`), with what to do instead. */
export const REFUSED_CONTRIBUTIONS = ["commands", "ui", "context", "tool_renderers", "notifications", "confirmations", "presentation", "menu", "shortcuts"] as const;
