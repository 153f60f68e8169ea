/**
 * octet-extension/protocol: the facts of octet's legacy extension wire, in
 * one place — name patterns, hook names, UI surfaces, lifecycle methods, the
 * features with their prerequisites and the requests each gates, the requests
 * a host child worker serves, the numeric limits and the texts of the
 * runtime's wire-level refusals — plus the output-schema subset check
 * (`src/output-schema.ts`, which sits below this module). The runtime, the
 * test host and the author tooling (`octet-extension-tools`) import them from
 * here. Not needed by extension code.
 */
export { checkOutputSchema } from "./output-schema.ts";

/** The variable the kit's `#!/bin/sh` launchers name the real stdout's descriptor in, as `FD:PID` (not octet's; `src/wire/protocol-descriptor.ts`). */
export const PROTOCOL_FD_VARIABLE = "OCTET_EXTENSION_PROTOCOL_FD";

// Names (docs/protocol-0.2.md §2) ---------------------------------------------------------

/** An extension name. */
export const NAME = /^[a-z][a-z0-9-]{0,63}$/;
/** A tool, command, renderer or secret name. */
export const IDENT = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
/** An environment variable name (`[entrypoint].env`). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A SemVer 2.0 version. */
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

// Manifest values (docs/protocol-0.2.md §2) -----------------------------------------------

/** Keys of `[capabilities]`, in the order messages list them. */
export const CAPABILITY_KEYS = ["filesystem", "process", "network", "secrets", "environment", "system_prompt"] as const;
/** Values of `capabilities.filesystem`. */
export const FILESYSTEM_ACCESS = ["none", "workspace", "unrestricted"] as const;
/** UI surfaces a status provider contributes to. */
export const SURFACES = ["status", "header", "footer"] as const;

// Hooks and lifecycle events (docs/protocol-0.2.md §3.4, §3.10) ------------------------------

/** Hooks of API 0.1 (also in 0.2). */
export const LEGACY_HOOKS = ["before_prompt", "after_response", "before_tool_call", "after_tool_call"] as const;
/** Hooks only API 0.2 has. */
export const API02_HOOKS = ["provider_retry", "before_persistence", "post_mutation"] as const;
/** API 0.4 hooks this runtime implements, each with its same-named feature (docs/api-0.4.md "Hooks"). */
export const API04_HOOKS = [
  "cache_warming_decision",
  "compaction_strategy",
  "session_before_compact",
  "session_compact",
  "session_before_tree",
  "session_tree",
  "model_turn_start",
  "model_turn_end",
] as const;
/** The feature each 0.4 hook needs; octet fails initialize when a declared one is not negotiated. */
export const API04_HOOK_FEATURES: Readonly<Record<(typeof API04_HOOKS)[number], Feature>> = {
  cache_warming_decision: "cache_warming_decision",
  compaction_strategy: "compaction_strategy",
  session_before_compact: "session_entries",
  session_compact: "session_entries",
  session_before_tree: "session_entries",
  session_tree: "session_entries",
  model_turn_start: "session_entries",
  model_turn_end: "session_entries",
};
/**
 * API 0.4 hooks octet knows that this runtime does not implement: they need
 * features it does not negotiate (`session_entries`, `resource_paths_v1`,
 * `pipeline_hooks_v1`), without which octet fails initialize.
 */
export const API04_UNSUPPORTED_HOOKS = [
  "provider_context",
  "resources_discover",
  "before_provider_request",
  "before_provider_headers",
  "after_provider_response",
] as const;
/** Every hook this runtime serves, with the oldest API that has it. */
export function hookApi(name: string): "0.1" | "0.2" | "0.4" | undefined {
  if ((LEGACY_HOOKS as readonly string[]).includes(name)) return "0.1";
  if ((API02_HOOKS as readonly string[]).includes(name)) return "0.2";
  if ((API04_HOOKS as readonly string[]).includes(name)) return "0.4";
  return undefined;
}

/** Lifecycle notifications of API 0.2 (feature `lifecycle_events`). */
export const LIFECYCLE_METHODS = [
  "session/started",
  "session/settled",
  "turn/started",
  "turn/settled",
  "tool/started",
  "tool/settled",
] as const;
export type LifecycleMethod = (typeof LIFECYCLE_METHODS)[number];

// Versions -----------------------------------------------------------------

/** Extension API versions this runtime speaks, oldest first (docs/api-0.4.md). */
export const API_VERSIONS = ["0.1", "0.2", "0.4"] as const;

/**
 * Whether `api` is one of the feature-negotiated versions. octet runs 0.2 and
 * 0.4 through one code path: everything 0.2 has (protocol negotiation,
 * `parent_request_id`, string child ids, content parts, presentation, …) is on
 * 0.4 unchanged; 0.4 adds features and names its version "0.4" wherever 0.2
 * says "0.2". 0.1 is frozen and has none of it.
 */
export function negotiatesFeatures(api: string): api is "0.2" | "0.4" {
  return api === "0.2" || api === "0.4";
}

// API 0.2 features (docs/protocol-0.2.md §8.2) ---------------------------------------------

/** Every API 0.2 feature (octet 0.8.0's set); this runtime implements all of them. */
export const API02_FEATURES = [
  "request_cancellation",
  "request_progress",
  "content_parts",
  "artifacts",
  "lifecycle_events",
  "policy_intents",
  "dynamic_tools",
  "agent_sessions",
  "delegation_telemetry_v1",
  "approvals",
  "secrets",
  "progress_decoration",
  "agent_model_selection_v1",
] as const;
/**
 * API 0.4 features this runtime implements (docs/api-0.4.md); octet offers
 * them only to 0.4 extensions, and the runtime selects them only on 0.4.
 */
export const API04_FEATURES = [
  "tool_prompt_metadata_v1",
  "cache_warming_decision",
  "compaction_strategy",
  // octet offers these to 0.2 as well; octet 0.8.0's 0.2 must not see them selected (docs/protocol-0.2.md §3.1), so only 0.4 selects them.
  "composer",
  "session_entries",
  "message_injection",
  "active_tools",
  "session_control_v1",
  "session_compaction_v1",
  "bulk_objects_v1",
  // Selected only when the extension registered a resource type.
  "resource_refs_v1",
  "operation_descriptors_v1",
] as const;
/** Every feature this runtime implements. */
export const SUPPORTED_FEATURES = [...API02_FEATURES, ...API04_FEATURES] as const;
/** A feature this runtime implements; every feature check in the runtime is typed by it. */
export type Feature = (typeof SUPPORTED_FEATURES)[number];

/** Whether `name` is a feature this runtime implements. */
export function isFeature(name: unknown): name is Feature {
  return (SUPPORTED_FEATURES as readonly unknown[]).includes(name);
}

/** Features that build on another: never selected without it (the host rejects that). */
export const FEATURE_NEEDS: Readonly<Partial<Record<Feature, Feature>>> = {
  approvals: "policy_intents",
  progress_decoration: "request_progress",
  agent_model_selection_v1: "agent_sessions",
  session_compaction_v1: "session_control_v1",
  operation_descriptors_v1: "resource_refs_v1",
};

/**
 * The features each extension→host request needs, checked in this order before
 * it is sent (`HostSession.request`, as MCP's `assertCapabilityForMethod`);
 * a request not listed needs none. `ext.request()` is Python's raw request and
 * is not checked.
 */
export const HOST_REQUEST_FEATURES = {
  "artifact/publish": ["artifacts"],
  "policy/evaluate": ["policy_intents"],
  "secret/get": ["secrets"],
  "agent/spawn": ["agent_sessions"],
  "agent/message": ["agent_sessions"],
  "agent/follow_up": ["agent_sessions"],
  "agent/list": ["agent_sessions"],
  "agent/wait": ["agent_sessions"],
  "agent/interrupt": ["agent_sessions"],
  "agent/models": ["agent_sessions", "agent_model_selection_v1"],
  "tools/register": ["dynamic_tools"],
  "tools/unregister": ["dynamic_tools"],
  "composer/get": ["composer"],
  "composer/set": ["composer"],
  "composer/insert": ["composer"],
  "session/append_entry": ["session_entries"],
  "session/set_name": ["session_entries"],
  "session/set_label": ["session_entries"],
  "session/send_user_message": ["message_injection"],
  "tools/set_active": ["active_tools"],
  "session/wait_for_idle": ["session_control_v1"],
  "session/create": ["session_control_v1"],
  "session/fork": ["session_control_v1"],
  "session/switch": ["session_control_v1"],
  "session/reload": ["session_control_v1"],
  "session/compact": ["session_compaction_v1"],
  "resource/register": ["resource_refs_v1"],
  "resource/release": ["resource_refs_v1"],
  "bulk/write": ["bulk_objects_v1"],
  "bulk/commit": ["bulk_objects_v1"],
  "bulk/read": ["bulk_objects_v1"],
  "bulk/release": ["bulk_objects_v1"],
} as const satisfies Readonly<Record<string, readonly Feature[]>>;
/** An extension→host request method the runtime sends for a typed service. */
export type HostMethod = keyof typeof HOST_REQUEST_FEATURES | "confirmation/request" | "input/request";

/**
 * Whether octet serves an extension→host request with one of its child
 * workers (`confirmation/request`, `input/request`, `artifact/publish`,
 * `secret/get`, `agent/*`; docs/protocol-0.2.md §1.9, §7).
 */
export function usesChildWorker(method: string): boolean {
  return method === "confirmation/request" || method === "input/request" || method === "artifact/publish" || method === "secret/get" || method.startsWith("agent/");
}

// CLI flags (docs/api-0.4.md "CLI flags") ---------------------------------

/** A CLI flag name: a lowercase letter, then lowercase letters, digits and `-`; at most 64 bytes. */
export const FLAG_NAME = /^[a-z][a-z0-9-]{0,63}$/;
/** Types of a CLI flag. */
export const FLAG_TYPES = ["boolean", "string", "integer"] as const;
/** Flags per extension. */
export const MAX_FLAGS = 64;
/** Longest string flag value, in UTF-8 bytes. */
export const MAX_FLAG_STRING_BYTES = 4096;
/** Longest flag description, in UTF-8 bytes. */
export const MAX_FLAG_DESCRIPTION_BYTES = 1024;

// Shortcuts (docs/api-0.4.md "Shortcuts") ----------------------------------

/** Key bindings per extension. */
export const MAX_SHORTCUTS = 64;
/** Longest key spelling (`ctrl+shift+p`), in UTF-8 bytes. */
export const MAX_SHORTCUT_KEY_BYTES = 128;
/** Longest shortcut description, in UTF-8 bytes. */
export const MAX_SHORTCUT_DESCRIPTION_BYTES = 4096;

// Limits (docs/protocol-0.2.md §7) ---------------------------------------------------------

/** Frame limit: inbound content ≤ this; outbound content + LF ≤ this (docs/protocol-0.2.md §1.2). */
export const MAX_MESSAGE_BYTES = 1_048_576;
/** Admitted-but-unfinished requests (running + queued) (docs/protocol-0.2.md §8.10). */
export const MAX_PENDING_REQUESTS = 64;
/** Local worker maximum for API 0.2 (docs/protocol-0.2.md §8.1). */
export const MAX_CONCURRENT_REQUESTS = 8;
/** Drain budget on shutdown and EOF, milliseconds (docs/protocol-0.2.md §1.7, §8.8). */
export const SHUTDOWN_TIMEOUT_MS = 2_000;
/** Grace after cancelling remaining work at the drain deadline, milliseconds. */
export const CANCELLATION_GRACE_MS = 250;
/** Outstanding extension→host requests the host tolerates (docs/protocol-0.2.md §1.4). */
export const MAX_OUTSTANDING_EXTENSION_REQUESTS = 128;
/**
 * Requests served by a child worker ({@link usesChildWorker}) outstanding at
 * once; beyond it octet fails the request or, for `confirmation/request`,
 * `input/request` and `artifact/publish`, the connection (docs/protocol-0.2.md §1.9, §7).
 */
export const MAX_CHILD_WORKER_REQUESTS = 8;
/** Distinct extension request ids per process generation (docs/protocol-0.2.md §1.4). */
export const MAX_EXTENSION_REQUEST_IDS = 65_536;
/** Tools per catalog mutation and per catalog (docs/protocol-0.2.md §7). */
export const MAX_CATALOG_TOOLS = 256;
/** Largest unsigned 64-bit integer. */
export const U64_MAX = 18446744073709551615n;
/** octet's resource registry bounds (`resource_refs_v1`): a 0.4 host offers them and the reply repeats them exactly. */
export const RESOURCE_LIMITS = { max_records: 256, max_registrations_per_parent: 32 } as const;
/**
 * After a host `$/cancelRequest`, a request still unanswered this long is
 * answered `-32800` and its handler left running: octet terminates the whole
 * process when no reply arrives within 2 s of a cancel (docs/protocol-0.2.md §3.9).
 */
export const CANCELLED_REPLY_MS = 1_000;

// Wire-level refusal texts (docs/protocol-0.2.md §5, as octet's Python SDK writes them) -----

/** Messages of the error replies the runtime writes itself; each is written in one place. */
export const WIRE_ERRORS = {
  notObject: "JSON-RPC message must be an object",
  notJsonRpc2: "JSON-RPC message must set jsonrpc to 2.0",
  notRequest: "invalid JSON-RPC request",
  methodNotString: "method must be a string",
  badId: "JSON-RPC id must be an integer or string",
  /** Any request before a successful initialize, a second initialize, or shutdown first; SDK helpers used before initialize too. */
  initializeFirst: "initialize must be the first request",
  draining: "extension is draining",
  alreadyDraining: "extension is already draining",
  queueFull: "extension request queue is full",
  duplicateId: "duplicate active request id",
  /** A handler failed with something other than an `RpcError`. */
  internal: "internal error",
  shutdownFailed: "shutdown failed",
  parentNotU64: "parent_request_id must be an unsigned 64-bit integer",
  parentMissing: "operation-scoped host request requires parent_request_id",
} as const;

/** `-32700` for an inbound frame over `limit` bytes. */
export function oversizeText(limit: number): string {
  return `JSON-RPC message exceeds ${limit} bytes`;
}
