/**
 * `[runtime]` (octet only, docs/protocol-0.2.md §2.5): how long octet keeps the process. The
 * host rejects any other key or value, and a lifecycle that does not fit
 * its sharing, so an unknown one would make the extension silently never
 * load: refuse it here with the fix.
 */
import { isObject } from "octet-extension/validation";
import type { ManifestFail } from "./errors.ts";

/** Lifecycles that need `sharing = "workspace"`. */
export const WORKSPACE_LIFECYCLES = ["workspace_service", "always", "pi_aggregate"];
/** Lifecycles that need `sharing = "isolated"` (the default `legacy_resident` among them). */
export const ISOLATED_LIFECYCLES = ["legacy_resident", "oneshot", "one_shot", "session"];
/** `lazy_resident` fits either sharing. */
export const LIFECYCLES = ["legacy_resident", "lazy_resident", "oneshot", "one_shot", "session", "workspace_service", "always", "pi_aggregate"];
export const SHARINGS = ["isolated", "workspace"];
export const RUNTIME_KEYS = ["lifecycle", "sharing"];

export function runtimeTable(value: unknown, api: "0.1" | "0.2" | "0.3" | "0.4", fail: ManifestFail): { lifecycle?: string; sharing?: string } | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) return fail("runtime", "must be a table", 'write [runtime] with lifecycle = "..." and/or sharing = "..."');
  const table = value as Record<string, unknown>;
  for (const key of Object.keys(table)) {
    if (!RUNTIME_KEYS.includes(key)) fail(`runtime.${key}`, "unknown key", "allowed: lifecycle, sharing (octet rejects any other)");
  }
  const pick = (key: "lifecycle" | "sharing", allowed: string[]): string | undefined => {
    const v = table[key];
    if (v === undefined) return undefined;
    if (typeof v !== "string") return fail(`runtime.${key}`, `must be a string, not ${Array.isArray(v) ? "an array" : typeof v}`, `use one of ${allowed.join(", ")}`);
    if (!allowed.includes(v)) return fail(`runtime.${key}`, `${JSON.stringify(v)} is not one of octet's values`, `use one of ${allowed.join(", ")}`);
    return v;
  };
  const lifecycle = pick("lifecycle", LIFECYCLES);
  const sharing = pick("sharing", SHARINGS);
  const effectiveSharing = sharing ?? "isolated";
  const effectiveLifecycle = lifecycle ?? "legacy_resident";
  if (effectiveSharing === "workspace" && api === "0.1") fail("runtime.sharing", '"workspace" sharing requires api_version 0.2', 'remove it or set api_version = "0.4" (or "0.2")');
  if (WORKSPACE_LIFECYCLES.includes(effectiveLifecycle) && effectiveSharing !== "workspace") {
    fail("runtime.lifecycle", `${JSON.stringify(effectiveLifecycle)} requires sharing = "workspace"`, 'add sharing = "workspace" (API 0.2) or choose another lifecycle');
  }
  if (ISOLATED_LIFECYCLES.includes(effectiveLifecycle) && effectiveSharing !== "isolated") {
    fail(lifecycle === undefined ? "runtime.sharing" : "runtime.lifecycle", `${JSON.stringify(effectiveLifecycle)}${lifecycle === undefined ? " (the default lifecycle)" : ""} requires sharing = "isolated"`, 'remove sharing = "workspace" or choose lazy_resident, workspace_service, always or pi_aggregate');
  }
  const out: { lifecycle?: string; sharing?: string } = {};
  if (lifecycle !== undefined) out.lifecycle = lifecycle;
  if (sharing !== undefined) out.sharing = sharing;
  return out;
}
