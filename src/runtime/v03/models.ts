/**
 * The wire models of API 0.3, restated by hand from octet's protocol schema
 * (`protocol/extension-api-v0.3.schema.json`, format
 * `octet.extension.protocol.schema/v1`): every model is closed, each field
 * required or optional, nullable or not, with its bounds. docs/api-0.3.md says
 * why this table is written rather than generated. Validation: `validate.ts`.
 */
import type { Bound } from "./canonical-protocol.ts";

/** `string`, `integer` (0..2^53−1), `signed_integer`, `boolean`, `json`, `rpc_id`, `disposition`, a model name, or any of them + `[]`. */
export type FieldType = string;

export interface FieldSpec {
  name: string;
  type: FieldType;
  optional?: boolean;
  nullable?: boolean;
  maxItems?: Bound;
  maxBytes?: Bound;
  values?: readonly string[];
}

export type ModelSpec =
  | { kind: "record"; fields: readonly FieldSpec[] }
  | { kind: "union"; tag: string; variants: readonly { wire: string; deferred?: boolean; fields: readonly FieldSpec[] }[] };

type Extra = Omit<FieldSpec, "name" | "type">;
const req = (name: string, type: FieldType, extra: Extra = {}): FieldSpec => ({ name, type, ...extra });
const opt = (name: string, type: FieldType, extra: Extra = {}): FieldSpec => ({ name, type, optional: true, ...extra });
const record = (...fields: FieldSpec[]): ModelSpec => ({ kind: "record", fields });

const providerId = { maxBytes: "max_provider_id_bytes" } as const;
const rpcIdBytes = { maxBytes: "max_json_rpc_id_bytes" } as const;
const reason = { maxBytes: "max_reason_bytes" } as const;
const path = { maxBytes: "max_migration_path_bytes" } as const;
const migrationName = { maxBytes: "max_migration_name_bytes" } as const;
const items = { maxItems: "max_migration_items" } as const;
const JSONRPC = { values: ["2.0"] } as const;

export const STREAM_EVENT_KINDS = [
  "started",
  "text_start",
  "text_delta",
  "text_end",
  "reasoning_start",
  "reasoning_delta",
  "reasoning_end",
  "tool_call_start",
  "tool_call_args_delta",
  "tool_call_end",
  "usage",
  "finished",
  "error",
  "heartbeat",
] as const;

const THEME_ROLES = [
  "accent", "border", "diff_added", "diff_context", "diff_header", "diff_hunk", "diff_removed", "dim", "error", "foreground",
  "md_code", "md_code_block", "md_emphasis", "md_heading", "md_link", "md_list_bullet", "md_quote", "md_strong", "muted", "success",
  "syntax_comment", "syntax_function", "syntax_keyword", "syntax_number", "syntax_operator", "syntax_punctuation", "syntax_string", "syntax_type", "syntax_variable", "warning",
] as const;

/** Every model of the schema (the event bus's from the newest schema; their bounds are checked in `bus-rules.ts`). */
export const MODELS: Readonly<Record<string, ModelSpec>> = {
  ProtocolLimits: record(req("max_frame_bytes", "integer"), req("max_concurrent_requests", "integer"), req("max_tools", "integer")),
  ContractOffer: record(
    req("schema", "string"),
    req("encoding", "string"),
    req("required_capabilities", "string[]", { maxItems: "max_capabilities" }),
    req("optional_capabilities", "string[]", { maxItems: "max_capabilities" }),
    req("required_methods", "string[]", { maxItems: "max_methods" }),
    req("optional_methods", "string[]", { maxItems: "max_methods" }),
    req("limits", "ProtocolLimits"),
  ),
  ContractSelection: record(
    req("schema", "string"),
    req("encoding", "string"),
    req("capabilities", "string[]", { maxItems: "max_capabilities" }),
    req("methods", "string[]", { maxItems: "max_methods" }),
    req("limits", "ProtocolLimits"),
  ),
  ToolDefinition: record(
    req("name", "string", { maxBytes: "max_tool_name_bytes" }),
    req("description", "string", { maxBytes: "max_tool_description_bytes" }),
    req("parameters", "json"),
    opt("output_schema", "json"),
  ),
  ContentPart: {
    kind: "union",
    tag: "type",
    variants: [
      { wire: "text", fields: [req("text", "string")] },
      { wire: "image", deferred: true, fields: [req("artifact_id", "string", rpcIdBytes), req("mime_type", "string", { maxBytes: "max_method_name_bytes" }), opt("alt", "string")] },
      { wire: "audio", deferred: true, fields: [req("artifact_id", "string", rpcIdBytes), req("mime_type", "string", { maxBytes: "max_method_name_bytes" }), opt("transcript", "string")] },
    ],
  },
  ToolCallParams: record(req("name", "string", { maxBytes: "max_tool_name_bytes" }), req("arguments", "json"), req("context", "json")),
  ToolCallResult: record(
    req("content", "ContentPart[]", { maxItems: "max_content_parts" }),
    req("is_error", "boolean"),
    req("metadata", "json", { nullable: true }),
    opt("structured_content", "json", { nullable: true }),
  ),
  SessionBinding: record(
    req("session_id", "string", { maxBytes: "max_session_hook_id_bytes" }),
    req("extension_instance_id", "string", { maxBytes: "max_session_hook_id_bytes" }),
    req("process_generation", "integer"),
  ),
  SessionStart: record(req("binding", "SessionBinding")),
  SessionEnd: record(
    req("binding", "SessionBinding"),
    req("outcome", "string", { values: ["completed", "failed", "cancelled", "interrupted", "frontend_disconnected", "shutdown", "limit_reached"] }),
    req("reason", "string", { values: ["shutdown", "reload", "crash", "cancelled"] }),
    req("duration_ms", "integer"),
  ),
  SessionHookParams: {
    kind: "union",
    tag: "hook",
    variants: [
      { wire: "session_start", fields: [req("payload", "SessionStart")] },
      { wire: "session_end", fields: [req("payload", "SessionEnd")] },
    ],
  },
  SessionHookResult: record(req("disposition", "Disposition")),
  CancelRequestParams: record(req("id", "rpc_id"), opt("reason", "string", reason)),
  CancelRequestResult: record(req("terminal", "string", { values: ["cancelled"] }), opt("reason", "string", reason)),
  SessionCreateParams: record(),
  SessionForkParams: record(),
  SessionSwitchParams: record(req("session_id", "string", rpcIdBytes)),
  SessionReloadParams: record(),
  SessionLifecycleResult: record(req("session_id", "string", rpcIdBytes)),
  ShutdownParams: record(),
  ShutdownResult: record(req("terminal", "string", { values: ["shutdown"] })),
  InitializeFlagValue: record(req("name", "string"), req("value", "json")),
  InitializeRequest: record(
    req("api_version", "string", { values: ["0.3"] }),
    req("octet_version", "string"),
    req("extension", "json"),
    req("workspace", "string"),
    req("capabilities", "json"),
    req("contributes", "json"),
    req("flag_values", "InitializeFlagValue[]", { maxItems: "max_extension_flags" }),
    req("host", "json"),
    req("contract", "ContractOffer"),
  ),
  InitializeResponse: record(
    req("api_version", "string", { values: ["0.3"] }),
    req("tools", "ToolDefinition[]", { maxItems: "max_tools" }),
    req("contract", "ContractSelection"),
  ),
  MigrationDiagnostic: record(req("path", "string", path), req("severity", "string", { values: ["warning", "error"] }), req("reason", "string", { maxBytes: "max_migration_diagnostic_bytes" })),
  MigrationDetectParams: record(req("source_root", "string", path)),
  MigrationDetectResult: record(req("detected", "boolean"), req("config_paths", "string[]", { ...items, ...path }), req("diagnostics", "MigrationDiagnostic[]", items)),
  MigrationImportParams: record(req("source_root", "string", path), req("config_paths", "string[]", { ...items, ...path })),
  MigrationModel: record(req("path", "string", path), req("provider", "string", migrationName), req("model", "string", migrationName)),
  MigrationSkill: record(req("path", "string", path), req("name", "string", migrationName), req("content", "string", { maxBytes: "max_migration_skill_bytes" })),
  MigrationMcpServer: record(
    req("path", "string", path),
    req("name", "string", migrationName),
    req("command", "string", { maxBytes: "max_migration_command_bytes" }),
    req("args", "string[]", { ...items, maxBytes: "max_migration_argument_bytes" }),
  ),
  MigrationImportResult: record(
    req("models", "MigrationModel[]", items),
    req("skills", "MigrationSkill[]", items),
    req("mcp_servers", "MigrationMcpServer[]", items),
    req("diagnostics", "MigrationDiagnostic[]", items),
  ),
  ErrorObject: record(req("code", "signed_integer"), req("message", "string"), opt("data", "json", { nullable: true })),
  Disposition: record(req("kind", "disposition"), opt("reason", "string", reason)),
  JsonRpcRequest: record(req("jsonrpc", "string", JSONRPC), req("id", "rpc_id"), req("method", "string", { maxBytes: "max_method_name_bytes" }), req("params", "json")),
  JsonRpcNotification: record(req("jsonrpc", "string", JSONRPC), req("method", "string", { maxBytes: "max_method_name_bytes" }), req("params", "json")),
  JsonRpcSuccessResponse: record(req("jsonrpc", "string", JSONRPC), req("id", "rpc_id"), req("result", "json")),
  JsonRpcErrorResponse: record(req("jsonrpc", "string", JSONRPC), req("id", "rpc_id"), req("error", "ErrorObject")),
  ProviderAuthRequirement: record(
    req("kind", "string", { values: ["none", "oauth", "host_credential"] }),
    opt("subject", "string", providerId),
    opt("scopes", "string[]", { maxItems: "max_provider_auth_scopes" }),
  ),
  ProviderDefinition: record(req("id", "string", providerId), req("label", "string", { maxBytes: "max_provider_label_bytes" }), req("auth", "ProviderAuthRequirement")),
  ProviderModelCapabilities: record(req("tools", "boolean"), req("parallel_tool_calls", "boolean"), req("structured_output", "boolean"), req("reasoning", "boolean")),
  ProviderModelDefinition: record(
    req("id", "string", providerId),
    req("api_name", "string", providerId),
    req("protocol", "string", { values: ["openai_chat", "openai_responses", "anthropic_messages"] }),
    req("context_window", "integer"),
    req("max_output_tokens", "integer"),
    req("capabilities", "ProviderModelCapabilities"),
    opt("display_name", "string", { maxBytes: "max_provider_label_bytes" }),
  ),
  ProviderRegisterParams: record(req("provider", "ProviderDefinition"), req("models", "ProviderModelDefinition[]", { maxItems: "max_provider_models" })),
  ProviderUpdateParams: record(req("provider", "ProviderDefinition"), req("models", "ProviderModelDefinition[]", { maxItems: "max_provider_models" })),
  ProviderUnregisterParams: record(req("provider_id", "string", providerId)),
  ProviderCatalogCompleteParams: record(),
  ProviderCatalogResult: record(
    req("revision", "integer"),
    req("provider_ids", "string[]", { maxItems: "max_providers" }),
    req("model_ids", "string[]", { maxItems: "max_provider_models" }),
  ),
  ProviderStreamRequest: record(
    req("stream_id", "string", rpcIdBytes),
    req("provider_id", "string", providerId),
    req("model_id", "string", providerId),
    req("request", "json"),
    opt("authorization_lease", "string", { maxBytes: "max_provider_auth_lease_bytes" }),
  ),
  ProviderStreamAccepted: record(req("stream_id", "string", rpcIdBytes), req("accepted", "boolean"), opt("reason", "string", reason)),
  ProviderStreamEvent: record(req("stream_id", "string", rpcIdBytes), req("sequence", "integer"), req("kind", "string", { values: STREAM_EVENT_KINDS }), req("payload", "json")),
  ProviderStreamCancelParams: record(req("stream_id", "string", rpcIdBytes), opt("reason", "string", reason)),
  ProviderAuthorizationRequest: record(
    req("provider_id", "string", providerId),
    req("action", "string", { values: ["authorize", "refresh", "revoke"] }),
    req("interactive", "boolean"),
    opt("scopes", "string[]", { maxItems: "max_provider_auth_scopes" }),
  ),
  ProviderAuthorizationResult: record(
    req("status", "string", { values: ["ready", "pending", "denied", "unavailable", "revoked"] }),
    opt("lease", "string", { maxBytes: "max_provider_auth_lease_bytes" }),
  ),
  ThemeSelectParams: record(
    req("namespace", "string", { maxBytes: "max_capability_name_bytes" }),
    req("theme_id", "string", { maxBytes: "max_theme_id_bytes" }),
    req("role", "string", { values: THEME_ROLES }),
    req("scope", "string", { values: ["extension"] }),
  ),
  ThemeSelectResult: record(
    req("status", "string", { values: ["selected", "denied", "unavailable"] }),
    opt("theme_id", "string", { maxBytes: "max_theme_id_bytes" }),
    opt("reason", "string", reason),
  ),
  BusFieldSpec: record(
    req("name", "string"),
    req("kind", "string", { values: ["string", "integer", "boolean", "enum"] }),
    req("required", "boolean"),
    req("max_bytes", "integer"),
    req("values", "string[]"),
    opt("minimum", "signed_integer"),
    opt("maximum", "signed_integer"),
  ),
  BusDeclareParams: record(req("binding_id", "string"), req("topic", "string"), req("fields", "BusFieldSpec[]")),
  BusTopicParams: record(req("binding_id", "string"), req("topic", "string")),
  BusAck: record(req("binding_id", "string")),
  BusPublishParams: record(req("binding_id", "string"), req("topic", "string"), req("payload", "json")),
  BusPublishResult: record(req("binding_id", "string"), req("sequence", "integer"), req("published_at_ms", "integer")),
  BusEventParams: record(
    req("binding_id", "string"),
    req("topic", "string"),
    req("publisher", "string"),
    req("publisher_instance_id", "string"),
    req("process_generation", "integer"),
    req("sequence", "integer"),
    req("published_at_ms", "integer"),
    req("payload", "json"),
  ),
  BusSubscribeResult: {
    kind: "union",
    tag: "state",
    variants: [
      { wire: "pending", fields: [req("binding_id", "string"), req("topic_revision", "integer")] },
      { wire: "active", fields: [req("binding_id", "string"), req("topic_revision", "integer"), req("publisher_instance_id", "string"), req("process_generation", "integer")] },
    ],
  },
  BusLifecycleParams: {
    kind: "union",
    tag: "kind",
    variants: [
      { wire: "binding", fields: [req("binding_id", "string"), req("binding_revision", "integer")] },
      ...(["topic_available", "topic_unavailable"] as const).map((wire) => ({
        wire,
        fields: [req("binding_id", "string"), req("topic", "string"), req("topic_revision", "integer"), req("publisher_instance_id", "string"), req("process_generation", "integer")],
      })),
    ],
  },
};

/** The params and result model of each method (`null`: none). */
export const METHOD_MODELS: Readonly<Record<string, { params: string | null; result: string | null }>> = {
  "$/cancelRequest": { params: "CancelRequestParams", result: "CancelRequestResult" },
  initialize: { params: "InitializeRequest", result: "InitializeResponse" },
  shutdown: { params: "ShutdownParams", result: "ShutdownResult" },
  "tool/call": { params: "ToolCallParams", result: "ToolCallResult" },
  "hook/run": { params: "SessionHookParams", result: "SessionHookResult" },
  "migration/detect": { params: "MigrationDetectParams", result: "MigrationDetectResult" },
  "migration/import": { params: "MigrationImportParams", result: "MigrationImportResult" },
  "provider/auth/request": { params: "ProviderAuthorizationRequest", result: "ProviderAuthorizationResult" },
  "provider/auth/revoke": { params: "ProviderAuthorizationRequest", result: "ProviderAuthorizationResult" },
  "provider/cancel": { params: "ProviderStreamCancelParams", result: null },
  "provider/event": { params: "ProviderStreamEvent", result: null },
  "provider/stream": { params: "ProviderStreamRequest", result: "ProviderStreamAccepted" },
  "providers/complete": { params: "ProviderCatalogCompleteParams", result: null },
  "providers/register": { params: "ProviderRegisterParams", result: "ProviderCatalogResult" },
  "providers/unregister": { params: "ProviderUnregisterParams", result: "ProviderCatalogResult" },
  "providers/update": { params: "ProviderUpdateParams", result: "ProviderCatalogResult" },
  "session/create": { params: "SessionCreateParams", result: "SessionLifecycleResult" },
  "session/fork": { params: "SessionForkParams", result: "SessionLifecycleResult" },
  "session/reload": { params: "SessionReloadParams", result: "SessionLifecycleResult" },
  "session/switch": { params: "SessionSwitchParams", result: "SessionLifecycleResult" },
  "theme/select": { params: "ThemeSelectParams", result: "ThemeSelectResult" },
  "bus/declare": { params: "BusDeclareParams", result: "BusAck" },
  "bus/subscribe": { params: "BusTopicParams", result: "BusSubscribeResult" },
  "bus/unsubscribe": { params: "BusTopicParams", result: "BusAck" },
  "bus/publish": { params: "BusPublishParams", result: "BusPublishResult" },
  "bus/event": { params: "BusEventParams", result: null },
  "bus/lifecycle": { params: "BusLifecycleParams", result: null },
};
