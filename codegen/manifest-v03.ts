/**
 * `api_version = "0.3"` in manifest.toml (docs/manifest.md "API 0.3"): what
 * the canonical wire has no place for is refused before any other check, one
 * line each naming the key, as octet's `negotiation.rs` refuses it for 0.3
 * (src/testing/v03/manifest-rules.ts holds the host side).
 */
import { isObject, type JsonRecord } from "octet-extension/validation";
import type { ManifestFail } from "./errors.ts";

/** The session hook pair, API 0.3's only hooks (`hook/run` with `lifecycle_events`). */
export const SESSION_HOOKS = ["session_start", "session_end"] as const;
/** `[contributes]` keys API 0.3 refuses (present at all: gen has no 0.3 use for them). */
export const REFUSED_CONTRIBUTES_03 = ["ui", "context", "tool_renderers", "notifications", "confirmations", "presentation", "menu"];
const TO_04 = 'remove it or set api_version = "0.4"';

/** Fail on the first thing API 0.3 does not have: commands, shortcuts, the refused contributions, other hooks, half the session pair. */
export function checkApi03(raw: JsonRecord, fail: ManifestFail): void {
  if (isObject(raw.commands) && Object.keys(raw.commands).length > 0) fail("commands", "slash commands are not available on API 0.3 (octet refuses them at negotiation)", 'remove [commands.*] or set api_version = "0.4"');
  if (isObject(raw.shortcuts) && Object.keys(raw.shortcuts).length > 0) fail("shortcuts", "key bindings are not available on API 0.3 (octet refuses them at negotiation)", 'remove [shortcuts.*] or set api_version = "0.4"');
  if (!isObject(raw.contributes)) return;
  const contributes = raw.contributes;
  for (const key of REFUSED_CONTRIBUTES_03) if (contributes[key] !== undefined) fail(`contributes.${key}`, "is not available on API 0.3 (octet refuses it at negotiation)", TO_04);
  const hooks = contributes.hooks;
  if (!Array.isArray(hooks)) return;
  for (const hook of hooks) if (!(SESSION_HOOKS as readonly unknown[]).includes(hook)) fail("contributes.hooks", `${String(hook)} is not available on API 0.3 (only session_start and session_end)`, TO_04);
  const missing = SESSION_HOOKS.filter((hook) => !hooks.includes(hook));
  if (missing.length === 1) fail("contributes.hooks", "API 0.3 session hooks are declared as a pair (both or neither)", `add ${missing[0]}`);
}

/** The keys of `[migration]` (author-side only: octet's manifest has no key for it, so it never reaches extension.toml). */
export const MIGRATION_KEYS = ["adapter"];

/** `[migration] adapter = true`: the extension serves a migration adapter (`migration.adapter.v1`, API 0.3 only). */
export function checkMigration(value: unknown, api: string, fail: ManifestFail): boolean {
  if (value === undefined) return false;
  if (api !== "0.3") fail("migration", "requires api_version 0.3 (migration adapters are served on the canonical wire only)", 'remove [migration] or set api_version = "0.3"');
  if (!isObject(value)) return fail("migration", "must be a table", "write [migration] with adapter = true");
  const extra = Object.keys(value).find((key) => !MIGRATION_KEYS.includes(key));
  if (extra !== undefined) fail(`migration.${extra}`, "unknown key", `allowed: ${MIGRATION_KEYS.join(", ")}`);
  if (value.adapter !== undefined && typeof value.adapter !== "boolean") fail("migration.adapter", "must be true or false", "use a boolean");
  return value.adapter === true;
}
