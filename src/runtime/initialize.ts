import { ErrorCode, RpcError } from "../errors.ts";
import { API04_FEATURES, API04_HOOK_FEATURES, type Feature, FEATURE_NEEDS, type LifecycleMethod, negotiatesFeatures, RESOURCE_LIMITS } from "../protocol.ts";
import { readInteger } from "../wire/json.ts";
import type { BulkOffer } from "./bulk.ts";
import { offPathModules } from "./lazy-host-calls.ts";
import { type FlagValue, readFlagValues } from "./flags.ts";
import { usesFeature } from "./feature-use.ts";
import { type Registry, wireDefinition } from "./registry.ts";
import { isObject, isStringArray } from "../check.ts";
import type { ApiVersion, JsonObject, ToolDefinition } from "./types.ts";

/** What a successful initialize established: the negotiated terms of the connection (not octet's conversation). */
export interface Negotiated {
  api: ApiVersion;
  params: JsonObject;
  contributes: JsonObject;
  features: ReadonlySet<Feature>;
  concurrency: number;
  lifecycleEvents: LifecycleMethod[];
  /** The host's `local-file.v1` transfer offer, when `bulk_objects_v1` was negotiated. */
  bulk?: BulkOffer;
  /** CLI flag values (API 0.2 and 0.4; empty on 0.1). */
  flags: Readonly<Record<string, FlagValue>>;
}

export interface InitializeOptions {
  maxConcurrentRequests: number;
  supportedFeatures: ReadonlySet<Feature>;
  /** Told why an offered feature was not selected (a refused bulk transfer directory). */
  warn?: (message: string, fields: Record<string, unknown>) => void;
}

const invalid = (message: string, data?: unknown) => new RpcError(ErrorCode.InvalidParams, message, data);

/**
 * Validate `initialize` params against the registrations (docs/protocol-0.2.md §8.2) and build
 * the reply. Throws the specified `RpcError` on any mismatch.
 */
export function negotiate(params: unknown, registry: Registry, options: InitializeOptions): { result: JsonObject; negotiated: Negotiated } {
  if (!isObject(params)) throw invalid("initialize params must be an object");
  const api = registry.apiVersion;
  if (params.api_version !== api) {
    throw new RpcError(ErrorCode.ServerError, `unsupported API version: ${hostVersion(params.api_version)}, this extension speaks API ${api} (new Extension({ apiVersion }) or OCTET_EXTENSION_API_VERSION)`);
  }
  const contributes = params.contributes === undefined ? {} : params.contributes;
  if (!isObject(contributes)) throw invalid("initialize contributes must be an object");
  checkDeclared(contributes, "tools", registry.tools);
  checkDeclared(contributes, "commands", registry.commands);
  let shortcuts: unknown[] = [];
  if (negotiatesFeatures(api)) {
    // Linked only when sent: most manifests declare no shortcuts.
    if ("shortcuts" in contributes) shortcuts = declaredShortcuts(contributes, registry.shortcuts);
    if (registry.menuHandler && params.contributes !== undefined && contributes.menu !== true) throw invalid("a menu handler requires contributes.menu = true");
  }

  let features: Feature[] = [];
  let concurrency = 1;
  let lifecycleEvents: LifecycleMethod[] = [];
  let flags: Readonly<Record<string, FlagValue>> = Object.freeze(Object.create(null));
  let bulk: BulkOffer | undefined;
  if (negotiatesFeatures(api)) {
    flags = readFlagValues(params, contributes);
    const protocol = params.protocol;
    if (!isObject(protocol)) throw invalid("initialize protocol must be an object");
    // octet sends the manifest's version here too; the reply must echo it exactly.
    if (protocol.version !== api) throw new RpcError(ErrorCode.ServerError, "unsupported executable-extension protocol version");
    const required = featureList(protocol, "required_features");
    const optional = featureList(protocol, "optional_features");
    const unsupported: string[] = [];
    for (const feature of required) if (!isSupported(feature, options.supportedFeatures)) unsupported.push(feature);
    if (unsupported.length > 0) {
      throw new RpcError(ErrorCode.ServerError, `required API ${api} features are unsupported`, { unsupported_features: unsupported });
    }
    const limits = protocol.limits === undefined ? {} : protocol.limits;
    if (!isObject(limits)) throw invalid("protocol limits must be an object");
    let requested: number | bigint = 1;
    if ("max_concurrent_requests" in limits) {
      const n = readInteger(limits, "max_concurrent_requests");
      if (n === undefined || n <= 0) throw invalid("protocol limits.max_concurrent_requests must be a positive integer");
      requested = n;
    }
    concurrency = Number(requested < options.maxConcurrentRequests ? requested : options.maxConcurrentRequests);
    const seen = new Set<Feature>();
    for (let i = 0; i < required.length + optional.length; i++) {
      const feature = i < required.length ? required[i]! : optional[i - required.length]!;
      if (!isSupported(feature, options.supportedFeatures) || seen.has(feature)) continue;
      if (api !== "0.4" && (API04_FEATURES as readonly Feature[]).includes(feature)) continue;
      // An optional feature only when used; a required one always (the host needs it back).
      if (i >= required.length && !usesFeature(feature, registry, contributes)) continue;
      seen.add(feature);
      features.push(feature);
    }
    features = withoutUnmetNeeds(features, seen);
    // Bulk objects only with an offer this runtime can use (octet sends one whenever it offers the feature).
    if (features.includes("resource_refs_v1") && !exactResourceLimits(limits.resource_refs_v1)) throw invalid("unsupported resource registry limits");
    if (Array.isArray(contributes.hooks) && contributes.hooks.length > 0) checkHookFeatures(contributes.hooks, features);
    if (features.includes("bulk_objects_v1")) {
      const accepted = acceptBulk(protocol, options);
      if (accepted !== undefined) bulk = accepted;
      else features = features.filter((f) => f !== "bulk_objects_v1");
    }
    if (seen.has("lifecycle_events")) lifecycleEvents = [...registry.lifecycle.keys()].sort();
  }

  const tools: ToolDefinition[] = [];
  for (const tool of registry.tools.values()) tools.push(wireDefinition(tool.definition, features));
  const commands: unknown[] = [];
  for (const command of registry.commands.values()) commands.push(command.definition);
  const result: JsonObject = { api_version: api, tools, commands };
  if (negotiatesFeatures(api)) {
    const limits: JsonObject = { max_concurrent_requests: concurrency };
    if (features.includes("resource_refs_v1")) limits.resource_refs_v1 = { ...RESOURCE_LIMITS };
    const protocol: JsonObject = { version: api, features, limits };
    if (lifecycleEvents.length > 0) protocol.lifecycle_events = lifecycleEvents;
    result.protocol = protocol;
    // octet requires the manifest's shortcuts back, in order; none declared, none sent (docs/api-0.4.md "Shortcuts").
    if (shortcuts.length > 0) result.shortcuts = shortcuts;
  }
  return {
    result,
    negotiated: { api, params, contributes, features: new Set(features), concurrency, lifecycleEvents, flags, ...(bulk ? { bulk } : {}) },
  };
}

/** octet fails initialize when a declared 0.4 hook's feature is not selected: say so here instead. */
function checkHookFeatures(declaredHooks: unknown[], features: readonly Feature[]): void {
  for (const [hook, feature] of Object.entries(API04_HOOK_FEATURES)) {
    if (declaredHooks.includes(hook) && !features.includes(feature)) {
      throw new RpcError(ErrorCode.ServerError, `declared hook ${hook} needs the ${feature} feature, which was not negotiated`, { hook, feature });
    }
  }
}

/**
 * The host's blob transfer offer, or undefined (warned) when its transfer directory is refused. Required on the
 * spot (the off-path chunk): only a session that negotiates blob transfer needs it before the reply.
 */
function acceptBulk(protocol: JsonObject, options: InitializeOptions): BulkOffer | undefined {
  const accepted = offPathModules().bulk.acceptBulkOffer(protocol.bulk_objects_v1);
  if ("offer" in accepted) return accepted.offer;
  const offered = isObject(protocol.bulk_objects_v1) ? protocol.bulk_objects_v1.transfer_directory : undefined;
  options.warn?.("bulk_objects_v1 not selected: refusing the host's transfer directory", { transfer_directory: offered, reason: accepted.refused });
  return undefined;
}

/** `contributes[key]` must name exactly the registered handlers (no duplicates); the map's keys are the registered names. */
function checkDeclared(contributes: JsonObject, key: "tools" | "commands", registered: ReadonlyMap<string, unknown>): void {
  if (!(key in contributes)) return;
  const declared = contributes[key];
  if (!isStringArray(declared)) {
    throw invalid(`initialize contributes.${key} must be an array of strings`);
  }
  const declaredSet = new Set(declared);
  if (declaredSet.size !== declared.length) throw invalid(`initialize contributes.${key} contains duplicate names`);
  // Same size and every declared name registered: the same set.
  let matches = declaredSet.size === registered.size;
  for (let i = 0; i < declared.length; i++) if (!registered.has(declared[i]!)) matches = false;
  if (!matches) throw invalid(`registered ${key} do not match manifest declarations`, { declared, registered: [...registered.keys()] });
}

/**
 * `contributes.shortcuts` ({key, name, description} in manifest order), checked
 * against the registered handlers like tools and commands. Returned as sent:
 * the reply must repeat it exactly.
 */
function declaredShortcuts(contributes: JsonObject, handlers: ReadonlyMap<string, unknown>): unknown[] {
  const registered = [...handlers.keys()];
  const declared = contributes.shortcuts;
  if (!Array.isArray(declared) || declared.some((s) => !isObject(s) || typeof s.name !== "string" || typeof s.key !== "string" || typeof s.description !== "string")) {
    throw invalid("initialize contributes.shortcuts must be an array of {key, name, description}");
  }
  const names = declared.map((s) => (s as JsonObject).name as string);
  if (new Set(names).size !== names.length) throw invalid("initialize contributes.shortcuts contains duplicate names");
  if (names.length !== registered.length || registered.some((name) => !names.includes(name))) {
    throw invalid("registered shortcuts do not match manifest declarations", { declared: names, registered });
  }
  return declared;
}

function exactResourceLimits(value: unknown): boolean {
  return isObject(value) && Object.keys(value).length === 2 && value.max_records === RESOURCE_LIMITS.max_records && value.max_registrations_per_parent === RESOURCE_LIMITS.max_registrations_per_parent;
}

function featureList(protocol: JsonObject, key: string): string[] {
  const value = protocol[key] === undefined ? [] : protocol[key];
  if (!isStringArray(value) || value.includes("")) {
    throw invalid(`protocol ${key} must be an array of non-empty strings`);
  }
  if (new Set(value).size !== value.length) throw invalid(`protocol ${key} contains duplicate features`);
  return value;
}

/** Whether the host's feature name is one this runtime implements and accepts. */
function isSupported(name: string, supported: ReadonlySet<Feature>): name is Feature {
  return supported.has(name as Feature);
}

/** `features` without those whose prerequisite (`FEATURE_NEEDS`) was not selected. */
function withoutUnmetNeeds(features: Feature[], selected: ReadonlySet<Feature>): Feature[] {
  const kept: Feature[] = [];
  for (const feature of features) {
    const need = FEATURE_NEEDS[feature];
    if (need === undefined || selected.has(need)) kept.push(feature);
  }
  return kept;
}

/** What the host asked for, for the version-mismatch message. */
function hostVersion(value: unknown): string {
  if (value === undefined) return "the host sent no api_version";
  return `the host asked for API ${typeof value === "string" ? value : JSON.stringify(value)}`;
}
