/** What octet sends besides the method's own params: initialize params (docs/protocol-0.2.md §3.1) and request contexts (§3). */

import type { JsonRecord } from "../check.ts";
import { negotiatesFeatures, RESOURCE_LIMITS } from "../protocol.ts";
import { flagValueFits, type HostManifest } from "./manifest.ts";
import type { TestHostOptions } from "./host-options.ts";

/** The two API 0.2 features a host always requires. */
export const REQUIRED_FEATURES = ["request_cancellation", "content_parts"];
/** octet's default optional offer for API 0.2 (docs/protocol-0.2.md §3.1). */
export const DEFAULT_OPTIONAL_FEATURES = ["request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools"];

/**
 * What octet 0.8.x offers every 0.4 extension (docs/api-0.4.md, "Negotiation"):
 * its base list for the feature-negotiated wire, in its order, then the 0.4
 * additions it offers unconditionally. The runtime must select only what it
 * implements from it.
 */
export const DEFAULT_OPTIONAL_FEATURES_04 = [
  "request_progress",
  "progress_decoration",
  "artifacts",
  "lifecycle_events",
  "policy_intents",
  "dynamic_tools",
  "runtime_commands",
  "semantic_ui",
  "editor_handoff",
  "terminal_input",
  "autocomplete",
  "dynamic_tool_renderers",
  "composer",
  "shortcuts",
  "session_entries",
  "message_injection",
  "lifecycle_events_v2",
  "active_tools",
  "terminal_handoff",
  "session_context",
  "model_catalog",
  "resource_refs_v1",
  "operation_descriptors_v1",
  "tool_prompt_metadata_v1",
  "autocomplete_edit_v1",
];

/** The 0.4 offer for `manifest`: the hook features octet adds for declared 0.4 hooks go before the four it always adds. */
function hookFeatures04(manifest: HostManifest): string[] {
  const offer = [...DEFAULT_OPTIONAL_FEATURES_04];
  const hooks = ["compaction_strategy", "cache_warming_decision"].filter((hook) => manifest.contributes.hooks.includes(hook));
  offer.splice(offer.indexOf("resource_refs_v1"), 0, ...hooks);
  return offer;
}


/** Initialize params built from the manifest, as octet sends them. */
export function initializeParams(manifest: HostManifest, workspace: string, options: Pick<TestHostOptions, "octetVersion" | "offer" | "flags">, bulk?: JsonRecord): JsonRecord {
  const m = manifest;
  const contributes: JsonRecord = {
    tools: m.contributes.tools,
    commands: m.contributes.commands,
    hooks: m.contributes.hooks,
    ui: m.contributes.ui,
    context: m.contributes.context,
    tool_renderers: m.contributes.tool_renderers,
    notifications: m.contributes.notifications,
    confirmations: m.contributes.confirmations,
  };
  if (m.contributes.presentation) contributes.presentation = true;
  if (m.contributes.menu) contributes.menu = true;
  if (m.contributes.flags.length > 0) contributes.flags = m.contributes.flags;
  // octet 0.8.x serializes the list on every 0.2/0.4 launch; octet 0.8.0's examples show it only when declared.
  if (m.contributes.shortcuts.length > 0 || m.api_version === "0.4") contributes.shortcuts = m.contributes.shortcuts;
  const capabilities: JsonRecord = { filesystem: m.capabilities.filesystem, process: m.capabilities.process, network: m.capabilities.network };
  if (m.capabilities.secrets.length > 0) capabilities.secrets = m.capabilities.secrets;
  const params: JsonRecord = {
    api_version: m.api_version,
    octet_version: options.octetVersion ?? "0.8.0",
    extension: { name: m.name, version: m.version, manifest_path: m.path, source: "explicit" },
    workspace,
    capabilities,
    contributes,
    host: hostState(),
  };
  if (m.api_version === "0.2") {
    const offer = options.offer ?? {};
    if (m.contributes.flags.length > 0) params.flag_values = flagValues(m, options.flags);
    params.protocol = {
      version: "0.2",
      required_features: offer.required ?? REQUIRED_FEATURES,
      optional_features: offer.optional ?? DEFAULT_OPTIONAL_FEATURES,
      limits: { max_concurrent_requests: offer.maxConcurrentRequests ?? 64 },
    };
  } else if (m.api_version === "0.4") {
    const offer = options.offer ?? {};
    // octet 0.8.x projects the declared CLI flags (defaults filled in, sorted by name) for every 0.4 launch.
    params.flag_values = flagValues(m, options.flags);
    (params.host as JsonRecord).context_usage = null;
    params.protocol = {
      version: "0.4",
      required_features: offer.required ?? REQUIRED_FEATURES,
      optional_features: offer.optional ?? [...hookFeatures04(m), ...(bulk ? ["bulk_objects_v1"] : [])],
      limits: { max_concurrent_requests: offer.maxConcurrentRequests ?? 64, resource_refs_v1: { ...RESOURCE_LIMITS } },
    };
    if (bulk) (params.protocol as JsonRecord).bulk_objects_v1 = bulk;
  }
  return params;
}

/**
 * `flag_values` as octet projects them: every declared flag, sorted by name,
 * with `given` (the user's command line) over the defaults. A flag the
 * manifest does not declare, or a value of the wrong type, is refused as
 * octet refuses the invocation.
 */
export function flagValues(manifest: HostManifest, given: Record<string, boolean | string | number> = {}): { name: string; value: unknown }[] {
  const declared = new Map(manifest.contributes.flags.map((flag) => [flag.name, flag]));
  for (const [name, value] of Object.entries(given)) {
    const flag = declared.get(name);
    if (!flag) throw new Error(`--${name} is not a flag of ${manifest.name} (declared: ${[...declared.keys()].join(", ") || "none"})`);
    if (!flagValueFits(flag.type, value)) throw new Error(`--${name} takes a ${flag.type} value, not ${JSON.stringify(value)}`);
  }
  return [...declared.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((flag) => ({ name: flag.name, value: Object.hasOwn(given, flag.name) ? given[flag.name] : flag.default }));
}

/** The features initialize `params` offer, and which of them are required. */
export function offeredFeatures(params: JsonRecord): { features: string[]; required: string[] } {
  const protocol = params.protocol as JsonRecord | undefined;
  const required = (protocol?.required_features as string[] | undefined) ?? [];
  const optional = (protocol?.optional_features as string[] | undefined) ?? [];
  return { features: [...required, ...optional], required };
}

/** Default `params.context` for requests. */
export function requestContext(workspace: string, extra: JsonRecord = {}): JsonRecord {
  return { workspace, execution_scope: null, host: hostState(), ...extra };
}

/** Context for a session-owned request: on API 0.2 and 0.4 it carries the host's resource `owner`. */
export function ownedContext(api: string, workspace: string, owner: unknown, extra: JsonRecord = {}): JsonRecord {
  const context = requestContext(workspace, extra);
  if (negotiatesFeatures(api)) context.resource_owner = owner;
  return context;
}

/** The features an initialize result agreed to (API 0.2 and 0.4). */
export function agreedFeatures(result: JsonRecord): Set<string> {
  const features = (result.protocol as JsonRecord | undefined)?.features;
  return new Set(Array.isArray(features) ? (features as string[]) : []);
}

function hostState(): JsonRecord {
  return { session_id: null, session_name: null, model: "test-model", reasoning: null, active_skills: [] };
}
