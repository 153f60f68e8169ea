/**
 * octet-extension/protocol: the facts of octet's legacy extension wire, in
 * one place — name patterns, hook names, UI surfaces, lifecycle methods, the
 * API 0.2 features, the requests a host child worker serves, and the numeric
 * limits — plus the output-schema subset check. The runtime, the test host and
 * the author tooling (`octet-extension-tools`) import them from here. Not
 * needed by extension code.
 */
export { checkOutputSchema } from "./runtime/structured/output-schema.ts";
/** The variable the kit's `#!/bin/sh` launchers name the real stdout's descriptor in (not octet's). */
export { PROTOCOL_FD_VARIABLE } from "./wire/protocol-descriptor.ts";

// Names (spec §2) ---------------------------------------------------------

/** An extension name. */
export const NAME = /^[a-z][a-z0-9-]{0,63}$/;
/** A tool, command, renderer or secret name. */
export const IDENT = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
/** An environment variable name (`[entrypoint].env`). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A SemVer 2.0 version. */
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

// Manifest values (spec §2) -----------------------------------------------

/** Keys of `[capabilities]`, in the order messages list them. */
export const CAPABILITY_KEYS = ["filesystem", "process", "network", "secrets", "environment", "system_prompt"] as const;
/** Values of `capabilities.filesystem`. */
export const FILESYSTEM_ACCESS = ["none", "workspace", "unrestricted"] as const;
/** UI surfaces a status provider contributes to. */
export const SURFACES = ["status", "header", "footer"] as const;

// Hooks and lifecycle events (spec §3, §4.14) ------------------------------

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
export const API04_HOOK_FEATURES: Readonly<Record<(typeof API04_HOOKS)[number], string>> = {
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

// API 0.2 features (spec §8.2) ---------------------------------------------

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
  // octet offers these to 0.2 as well; octet 0.8.0's 0.2 must not see them selected (spec §3.1), so only 0.4 selects them.
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
export type Feature = (typeof SUPPORTED_FEATURES)[number];

/**
 * Whether octet serves an extension→host request with one of its child
 * workers (`confirmation/request`, `input/request`, `artifact/publish`,
 * `secret/get`, `agent/*`; spec §1.9, §7).
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

// Limits (spec §7) ---------------------------------------------------------

/** Frame limit: inbound content ≤ this; outbound content + LF ≤ this (spec §1.2). */
export const MAX_MESSAGE_BYTES = 1_048_576;
/** Admitted-but-unfinished requests (running + queued) (spec §8.10). */
export const MAX_PENDING_REQUESTS = 64;
/** Local worker maximum for API 0.2 (spec §8.1). */
export const MAX_CONCURRENT_REQUESTS = 8;
/** Drain budget on shutdown and EOF, milliseconds (spec §1.7, §8.8). */
export const SHUTDOWN_TIMEOUT_MS = 2_000;
/** Grace after cancelling remaining work at the drain deadline, milliseconds. */
export const CANCELLATION_GRACE_MS = 250;
/** Outstanding extension→host requests the host tolerates (spec §1.4). */
export const MAX_OUTSTANDING_EXTENSION_REQUESTS = 128;
/**
 * Requests served by a child worker ({@link usesChildWorker}) outstanding at
 * once; beyond it octet fails the request or, for `confirmation/request`,
 * `input/request` and `artifact/publish`, the connection (spec §1.9, §7).
 */
export const MAX_CHILD_WORKER_REQUESTS = 8;
/** Distinct extension request ids per process generation (spec §1.4). */
export const MAX_EXTENSION_REQUEST_IDS = 65_536;
/** Tools per catalog mutation and per catalog (spec §7). */
export const MAX_CATALOG_TOOLS = 256;
/** Largest unsigned 64-bit integer. */
export const U64_MAX = 18446744073709551615n;
/**
 * After a host `$/cancelRequest`, a request still unanswered this long is
 * answered `-32800` and its handler left running: octet terminates the whole
 * process when no reply arrives within 2 s of a cancel (spec §3.9).
 */
export const CANCELLED_REPLY_MS = 1_000;
