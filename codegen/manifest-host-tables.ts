/**
 * The `manifest.toml` tables that pass into `extension.toml` as octet reads
 * them: `[entrypoint]`, `[capabilities]` and `[contributes]` (docs/manifest.md).
 * Each check names the key and the fix.
 */
import { API02_HOOKS, API04_HOOKS, API04_UNSUPPORTED_HOOKS, CAPABILITY_KEYS, ENV_NAME, FILESYSTEM_ACCESS, IDENT, LEGACY_HOOKS, SURFACES } from "octet-extension/protocol";
import { hasDuplicates, isObject, isOneOf, isStringArray, type JsonRecord, unknownKey } from "octet-extension/validation";
import type { ManifestFail } from "./errors.ts";
import { SESSION_HOOKS } from "./manifest-v03.ts";

type ApiVersion = "0.1" | "0.2" | "0.3" | "0.4";

/** `[entrypoint]`: the process octet starts. */
export interface Entrypoint {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** `[contributes]` keys an author writes (tools and commands come from `[tools.*]` / `[commands.*]`). */
export const CONTRIBUTES = ["hooks", "ui", "context", "tool_renderers", "notifications", "confirmations", "presentation", "menu", "providers"];
export const BOOLEAN_CONTRIBUTES = ["context", "notifications", "confirmations", "presentation", "menu", "providers"];
export const ENTRYPOINT_KEYS = ["command", "args", "env"];
const NEEDS_API02 = 'remove it or set api_version = "0.4" (or "0.2")';

/** `[entrypoint]`, when written. */
export function checkEntrypoint(value: unknown, fail: ManifestFail): Entrypoint | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) return fail("entrypoint", "must be a table", "write [entrypoint]");
  const extra = unknownKey(value, ENTRYPOINT_KEYS);
  if (extra !== undefined) fail(`entrypoint.${extra}`, "unknown key", "allowed: command, args, env");
  const { command } = value;
  if (typeof command !== "string" || command.trim() === "" || /[\x00-\x1f\x7f]/.test(command)) fail("entrypoint.command", "must be a non-blank string without control characters", "name the program to run");
  const args = value.args ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== "string" || a.includes("\0"))) fail("entrypoint.args", "must be an array of strings without NUL", 'e.g. args = ["--stdio"]');
  const env = value.env ?? {};
  if (!isObject(env)) return fail("entrypoint.env", "must be a table of strings", 'e.g. env = { LOG = "1" }');
  for (const [k, v] of Object.entries(env)) {
    if (!ENV_NAME.test(k)) fail(`entrypoint.env.${k}`, "is not a valid variable name", "use letters, digits and _");
    if (typeof v !== "string" || v.includes("\0")) fail(`entrypoint.env.${k}`, "must be a string without NUL", "quote the value");
  }
  return { command: command as string, args: args as string[], env: env as Record<string, string> };
}

/** `[capabilities]` (default empty). */
export function checkCapabilities(value: unknown, api: ApiVersion, fail: ManifestFail): JsonRecord {
  const capabilities = value ?? {};
  if (!isObject(capabilities)) return fail("capabilities", "must be a table", "write [capabilities]");
  const extra = unknownKey(capabilities, CAPABILITY_KEYS);
  if (extra !== undefined) fail(`capabilities.${extra}`, "unknown key", `allowed: ${CAPABILITY_KEYS.join(", ")}`);
  if (capabilities.filesystem !== undefined && !isOneOf(capabilities.filesystem, FILESYSTEM_ACCESS)) {
    fail("capabilities.filesystem", `${JSON.stringify(capabilities.filesystem)} is not allowed`, 'use "none", "workspace" or "unrestricted"');
  }
  for (const key of ["process", "network", "system_prompt"]) if (capabilities[key] !== undefined && typeof capabilities[key] !== "boolean") fail(`capabilities.${key}`, "must be true or false", "use a boolean");
  const secrets = capabilities.secrets ?? [];
  if (!Array.isArray(secrets) || secrets.some((s) => typeof s !== "string" || !IDENT.test(s))) fail("capabilities.secrets", "must be names matching ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$", 'e.g. secrets = ["service.api_token"]');
  if (hasDuplicates(secrets as string[])) fail("capabilities.secrets", "contains duplicates", "list each secret once");
  if (capabilities.environment !== undefined) {
    if (api === "0.1") fail("capabilities.environment", "requires api_version 0.2", NEEDS_API02);
    if (!isStringArray(capabilities.environment)) fail("capabilities.environment", "must be an array of variable names", 'e.g. environment = ["SSH_AUTH_SOCK"]');
  }
  return capabilities;
}

/** `[contributes]` (default empty), minus what tools and commands derive. */
export function checkContributes(value: unknown, api: ApiVersion, fail: ManifestFail): JsonRecord {
  const contributes = value ?? {};
  if (!isObject(contributes)) return fail("contributes", "must be a table", "write [contributes]");
  for (const key of Object.keys(contributes)) {
    if (key === "tools" || key === "commands") fail(`contributes.${key}`, "is derived, not written", `declare each one as a [${key}.NAME] table instead`);
    if (!CONTRIBUTES.includes(key)) fail(`contributes.${key}`, "unknown key", `allowed: ${CONTRIBUTES.join(", ")}`);
  }
  const list = (key: string, allowed?: readonly string[]): string[] => {
    const entries = contributes[key] ?? [];
    if (!isStringArray(entries)) return fail(`contributes.${key}`, "must be an array of strings", "e.g. [\"...\"]");
    if (hasDuplicates(entries)) fail(`contributes.${key}`, "contains duplicates", "list each entry once");
    for (const v of entries) {
      if (allowed && !allowed.includes(v)) fail(`contributes.${key}`, `${JSON.stringify(v)} is not allowed`, `use ${allowed.join(", ")}`);
      if (!allowed && !IDENT.test(v)) fail(`contributes.${key}`, `${JSON.stringify(v)} is not a valid name`, "use ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$");
    }
    return entries;
  };
  for (const hook of isStringArray(contributes.hooks) ? contributes.hooks : []) {
    if (isOneOf(hook, API04_UNSUPPORTED_HOOKS)) {
      fail("contributes.hooks", `${hook} is an API 0.4 hook this SDK does not implement yet`, "remove it: octet would require a feature the runtime does not negotiate and refuse to start the extension");
    }
  }
  for (const hook of isStringArray(contributes.hooks) ? contributes.hooks : []) {
    if (isOneOf(hook, SESSION_HOOKS) && api !== "0.3") fail("contributes.hooks", `${hook} is an API 0.3 hook (its hook/run pair)`, 'remove it or set api_version = "0.3"');
  }
  const hooks = list("hooks", api === "0.3" ? SESSION_HOOKS : [...LEGACY_HOOKS, ...API02_HOOKS, ...API04_HOOKS]);
  for (const hook of hooks) if (isOneOf(hook, API02_HOOKS) && api === "0.1") fail("contributes.hooks", `${hook} requires api_version 0.2`, NEEDS_API02);
  for (const hook of hooks) if (isOneOf(hook, API04_HOOKS) && api !== "0.4") fail("contributes.hooks", `${hook} requires api_version 0.4`, 'set api_version = "0.4"');
  list("ui", SURFACES);
  list("tool_renderers");
  for (const key of BOOLEAN_CONTRIBUTES) {
    if (contributes[key] !== undefined && typeof contributes[key] !== "boolean") fail(`contributes.${key}`, "must be true or false", "use a boolean");
  }
  if (contributes.providers !== undefined && api !== "0.3") fail("contributes.providers", "requires api_version 0.3 (model providers are served on the canonical wire only)", 'remove it or set api_version = "0.3"');
  if (contributes.presentation === true && api === "0.1") fail("contributes.presentation", "requires api_version 0.2", NEEDS_API02);
  return contributes;
}

/** `contributes.menu` lists the commands: API 0.2, and at least one command. */
export function checkMenu(contributes: JsonRecord, commandCount: number, api: ApiVersion, fail: ManifestFail): void {
  if (contributes.menu === true && api === "0.1") fail("contributes.menu", "requires api_version 0.2", NEEDS_API02);
  if (contributes.menu === true && commandCount === 0) fail("contributes.menu", "needs at least one command", "declare a [commands.NAME] table");
}
