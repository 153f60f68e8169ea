/**
 * Texts of the runtime's local refusals, in the author's terms: the `ext.…`
 * call, what would enable it (a manifest key, a feature, `supportedFeatures`)
 * and the API version in use (docs/api-0.4.md "Refusal texts"). Codes stay
 * those of octet's SDKs (`-32601`).
 */
import { isObject } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import { API04_FEATURES, type Feature } from "../protocol.ts";
import type { JsonObject } from "./types.ts";

const SET_04 = 'set api_version = "0.4" in manifest.toml';

/**
 * How octet comes to offer a feature it offers only when configured. (A switch, not a module-level object:
 * each member of one costs every start-up, docs/performance.md.)
 */
function offeredWhen(feature: Feature): string | undefined {
  switch (feature) {
    case "secrets":
      return "octet offers it with a secret broker when [capabilities].secrets in manifest.toml names secrets";
    case "agent_sessions":
    case "agent_model_selection_v1":
      return "octet offers it only with a child-session service";
    case "session_control_v1":
    case "session_compaction_v1":
      return "octet offers it only with a session lifecycle service";
    case "bulk_objects_v1":
      return "octet offers it only with bulk storage configured";
    default:
      return undefined;
  }
}

/** Why an offered, implemented feature was left out at initialize (a switch, as {@link offeredWhen}). */
function selectedWhen(feature: Feature): string | undefined {
  switch (feature) {
    case "resource_refs_v1":
      return "it is selected only when a type is registered with ext.resourceType() before ext.run()";
    case "approvals":
      return "it needs policy_intents, which was not selected";
    case "progress_decoration":
      return "it needs request_progress, which was not selected";
    case "agent_model_selection_v1":
      return "it needs agent_sessions, which was not selected";
    case "session_compaction_v1":
      return "it needs session_control_v1, which was not selected";
    case "bulk_objects_v1":
      return "the host's transfer directory was refused (see the warning logged at initialize)";
    default:
      return undefined;
  }
}

/** What initialize established, as far as a refusal needs it. */
export interface NegotiatedState {
  api: string;
  /** The initialize params (for the host's offer). */
  params: JsonObject;
}

/** `-32601`: `call` needs `feature`, which was not negotiated; says why and how to get it. */
export function featureRefusal(call: string, feature: Feature, state: NegotiatedState, supported: ReadonlySet<Feature>): RpcError {
  return new RpcError(ErrorCode.MethodNotFound, `${call} needs the ${feature} feature, which was not negotiated (API ${state.api}): ${whyNot(feature, state, supported)}`);
}

function whyNot(feature: Feature, state: NegotiatedState, supported: ReadonlySet<Feature>): string {
  if (state.api === "0.1") return `API 0.1 has no features; ${SET_04}`;
  if (state.api !== "0.4" && (API04_FEATURES as readonly Feature[]).includes(feature)) return `it is an API 0.4 feature; ${SET_04}`;
  if (!offered(state.params).includes(feature)) {
    const how = offeredWhen(feature);
    return how ? `the host did not offer it; ${how}` : "the host did not offer it";
  }
  if (!supported.has(feature)) return `new Extension({ supportedFeatures }) leaves it out; add "${feature}" there`;
  return selectedWhen(feature) ?? "the runtime did not select it";
}

function offered(params: JsonObject): unknown[] {
  const protocol = params.protocol;
  if (!isObject(protocol)) return [];
  const list = (key: string) => (Array.isArray(protocol[key]) ? (protocol[key] as unknown[]) : []);
  return [...list("required_features"), ...list("optional_features")];
}

/** `call` needs API `needed` (`"0.2 or 0.4"`, `"0.4"`); `verb` says whether `api` was negotiated or only chosen. */
export function needsApiText(call: string, needed: string, api: string, verb: "negotiated" | "speaks" = "speaks"): string {
  return `${call} needs API ${needed}; this extension ${verb} API ${api}: ${SET_04}`;
}

/** `-32601` for {@link needsApiText}. */
export function apiRefusal(call: string, needed: string, api: string): RpcError {
  return new RpcError(ErrorCode.MethodNotFound, needsApiText(call, needed, api, api === "0.1" ? "speaks" : "negotiated"));
}

/** The author's call behind a progress event, as refusals name it. */
export function progressCall(input: unknown): string {
  return isObject(input) && input.type === "decoration" ? "ext.progressDecoration()" : "ext.progress()";
}

/** `-32601`: `call` needs `[contributes] key = true` in manifest.toml. */
export function notDeclared(call: string, key: string): RpcError {
  return new RpcError(ErrorCode.MethodNotFound, `${call} needs ${key} = true under [contributes] in manifest.toml`);
}

/** `-32601` for a host request whose `params.name` is missing or not a string (a string is looked up by the caller). */
export function unnamed(method: string, what: string, name: unknown): RpcError {
  const text = name === undefined ? `${method} params.name is missing; it must name a registered ${what}` : `${method} params.name must be a string naming a registered ${what}, not ${shown(name)}`;
  return new RpcError(ErrorCode.MethodNotFound, text);
}

function shown(value: unknown): string {
  const text = typeof value === "bigint" ? value.toString() : JSON.stringify(value);
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}
