/** What octet sends besides the method's own params: initialize params (spec §3.1) and request contexts (§3). */

import type { HostManifest } from "./manifest.ts";
import type { TestHostOptions } from "./options.ts";

type Obj = Record<string, unknown>;

/** The two API 0.2 features a host always requires. */
export const REQUIRED_FEATURES = ["request_cancellation", "content_parts"];
/** octet's default optional offer for API 0.2 (spec §3.1). */
export const DEFAULT_OPTIONAL_FEATURES = ["request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools"];

/** Initialize params built from the manifest, as octet sends them. */
export function initializeParams(manifest: HostManifest, workspace: string, options: Pick<TestHostOptions, "octetVersion" | "offer">): Obj {
  const m = manifest;
  const contributes: Obj = {
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
  const capabilities: Obj = { filesystem: m.capabilities.filesystem, process: m.capabilities.process, network: m.capabilities.network };
  if (m.capabilities.secrets.length > 0) capabilities.secrets = m.capabilities.secrets;
  const params: Obj = {
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
    params.protocol = {
      version: "0.2",
      required_features: offer.required ?? REQUIRED_FEATURES,
      optional_features: offer.optional ?? DEFAULT_OPTIONAL_FEATURES,
      limits: { max_concurrent_requests: offer.maxConcurrentRequests ?? 64 },
    };
  }
  return params;
}

/** The features initialize `params` offer, and which of them are required. */
export function offeredFeatures(params: Obj): { features: string[]; required: string[] } {
  const protocol = params.protocol as Obj | undefined;
  const required = (protocol?.required_features as string[] | undefined) ?? [];
  const optional = (protocol?.optional_features as string[] | undefined) ?? [];
  return { features: [...required, ...optional], required };
}

/** Default `params.context` for requests. */
export function requestContext(workspace: string, extra: Obj = {}): Obj {
  return { workspace, execution_scope: null, host: hostState(), ...extra };
}

function hostState(): Obj {
  return { session_id: null, session_name: null, model: "test-model", reasoning: null, active_skills: [] };
}
