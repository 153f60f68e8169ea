import { readFileSync, statSync, lstatSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { hasDuplicates, isObject, isOneOf, isStringArray, unknownKey } from "../check.ts";
import {
  API02_HOOKS,
  API04_HOOKS,
  API04_UNSUPPORTED_HOOKS,
  CAPABILITY_KEYS,
  ENV_NAME,
  FILESYSTEM_ACCESS,
  FLAG_NAME,
  FLAG_TYPES,
  IDENT,
  LEGACY_HOOKS,
  MAX_FLAG_DESCRIPTION_BYTES,
  MAX_FLAG_STRING_BYTES,
  MAX_FLAGS,
  MAX_SHORTCUT_DESCRIPTION_BYTES,
  MAX_SHORTCUT_KEY_BYTES,
  MAX_SHORTCUTS,
  NAME,
  SEMVER,
  SURFACES,
} from "../protocol.ts";
import { checkContributes03 } from "./v03/manifest-rules.ts";

/** The parts of `extension.toml` the test host uses (docs/protocol-0.2.md §2). */
export interface HostManifest {
  name: string;
  version: string;
  /** "0.3" is the canonical wire (`src/testing/v03/`). */
  api_version: "0.1" | "0.2" | "0.3" | "0.4";
  requires_octet?: string;
  description?: string;
  entrypoint: { command: string; args: string[]; env: Record<string, string> };
  capabilities: { filesystem: string; process: boolean; network: boolean; secrets: string[]; environment: string[] };
  contributes: {
    tools: string[];
    commands: string[];
    hooks: string[];
    ui: string[];
    context: boolean;
    tool_renderers: string[];
    notifications: boolean;
    confirmations: boolean;
    presentation: boolean;
    menu: boolean;
    /** `[[contributes.flags]]`, in manifest order. */
    flags: ManifestFlag[];
    /** `contributes.shortcuts`, in manifest order. */
    shortcuts: ManifestShortcut[];
    /** `contributes.providers` (API 0.3: the extension may provide models). */
    providers: boolean;
  };
  /** The `[contributes]` table as declared: octet sends it as `initialize.contributes` on API 0.3. */
  contributesTable: Record<string, unknown>;
  /** Absolute path of the manifest file. */
  path: string;
  /** Directory holding the manifest. */
  dir: string;
}

const TOP_KEYS = ["name", "version", "api_version", "requires_octet", "description", "entrypoint", "capabilities", "contributes", "runtime"];

/** An `extension.toml` that octet's host would refuse to load. */
export class HostManifestError extends Error {}

/** @deprecated Use {@link HostManifestError}. */
export const ManifestError = HostManifestError;
/** @deprecated Use {@link HostManifestError}. */
export type ManifestError = HostManifestError;

/**
 * Read and check an `extension.toml` as octet's host does (unknown keys
 * denied, name/identifier patterns, API-version-dependent keys).
 * `path` may be the file or the directory holding it.
 */
export function loadManifest(path: string): HostManifest {
  let file = resolve(path);
  if (statSync(file).isDirectory()) file = resolve(file, "extension.toml");
  if (lstatSync(file).isSymbolicLink()) throw new HostManifestError(`${file}: the manifest must not be a symlink`);
  const text = readFileSync(file, "utf8");
  if (Buffer.byteLength(text) > 256 * 1024) throw new HostManifestError(`${file}: manifest exceeds 256 KiB`);
  let raw: Record<string, unknown>;
  try {
    raw = Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new HostManifestError(`${file}: invalid TOML: ${(error as Error).message}`);
  }
  const fail = (message: string): never => {
    throw new HostManifestError(`${file}: ${message}`);
  };
  denyUnknown(raw, TOP_KEYS, "", fail);
  const name = raw.name;
  if (typeof name !== "string" || !NAME.test(name)) fail("`name` must match ^[a-z][a-z0-9-]{0,63}$");
  if (typeof raw.version !== "string" || !SEMVER.test(raw.version)) fail("`version` must be a SemVer version");
  const api = raw.api_version;
  if (api !== "0.1" && api !== "0.2" && api !== "0.3" && api !== "0.4") fail('`api_version` must be "0.1", "0.2", "0.3" or "0.4"');
  const entry = table(raw.entrypoint, "entrypoint", fail);
  denyUnknown(entry, ["command", "args", "env"], "entrypoint.", fail);
  if (typeof entry.command !== "string" || entry.command.trim() === "" || /[\x00-\x1f\x7f]/.test(entry.command)) {
    fail("`entrypoint.command` must be a non-blank string without control characters");
  }
  const args = strings(entry.args ?? [], "entrypoint.args", fail);
  if (args.some((a) => a.includes("\0"))) fail("`entrypoint.args` must not contain NUL bytes");
  const envTable = table(entry.env ?? {}, "entrypoint.env", fail);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(envTable)) {
    if (!ENV_NAME.test(key)) fail(`entrypoint.env name \`${key}\` must match ^[A-Za-z_][A-Za-z0-9_]*$`);
    if (typeof value !== "string" || value.includes("\0")) fail(`entrypoint.env.${key} must be a string without NUL`);
    env[key] = value as string;
  }
  const caps = table(raw.capabilities ?? {}, "capabilities", fail);
  denyUnknown(caps, CAPABILITY_KEYS, "capabilities.", fail);
  const filesystem = caps.filesystem ?? "none";
  if (!isOneOf(filesystem, FILESYSTEM_ACCESS)) fail("`capabilities.filesystem` must be none, workspace or unrestricted");
  const secrets = unique(strings(caps.secrets ?? [], "capabilities.secrets", fail), "capabilities.secrets", fail);
  for (const s of secrets) if (!IDENT.test(s)) fail(`secret name \`${s}\` must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`);
  const environment = strings(caps.environment ?? [], "capabilities.environment", fail);
  if (environment.length > 0 && api === "0.1") fail("`capabilities.environment` requires api_version 0.2");
  const c = table(raw.contributes ?? {}, "contributes", fail);
  denyUnknown(
    c,
    ["tools", "commands", "hooks", "ui", "context", "tool_renderers", "notifications", "confirmations", "presentation", "menu", "shortcuts", "flags", "providers"],
    "contributes.",
    fail,
  );
  const idents = (key: string) => {
    const list = unique(strings(c[key] ?? [], `contributes.${key}`, fail), `contributes.${key}`, fail);
    for (const item of list) if (!IDENT.test(item)) fail(`contributes.${key} name \`${item}\` must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`);
    return list;
  };
  if (api === "0.3") checkContributes03(c, fail);
  const hooks = unique(strings(c.hooks ?? [], "contributes.hooks", fail), "contributes.hooks", fail);
  for (const hook of api === "0.3" ? [] : hooks) {
    if (isOneOf(hook, API02_HOOKS) && api === "0.1") fail(`hook \`${hook}\` requires api_version 0.2`);
    const api04 = isOneOf(hook, API04_HOOKS) || isOneOf(hook, API04_UNSUPPORTED_HOOKS);
    if (api04 && api !== "0.4") fail(`${hook} requires extension API 0.4`);
    if (!isOneOf(hook, LEGACY_HOOKS) && !isOneOf(hook, API02_HOOKS) && !api04) fail(`unknown hook \`${hook}\``);
  }
  const ui = unique(strings(c.ui ?? [], "contributes.ui", fail), "contributes.ui", fail);
  for (const surface of ui) if (!isOneOf(surface, SURFACES)) fail(`unknown ui surface \`${surface}\``);
  const bool = (key: string) => {
    const v = c[key] ?? false;
    if (typeof v !== "boolean") fail(`contributes.${key} must be a boolean`);
    return v as boolean;
  };
  const presentation = bool("presentation");
  if (presentation && api === "0.1") fail("`contributes.presentation` requires api_version 0.2");
  for (const key of ["shortcuts", "flags"]) if (c[key] !== undefined && api === "0.1") fail(`contributes.${key} requires api_version 0.2`);
  const flags = manifestFlags(c.flags ?? [], fail);
  const shortcuts = manifestShortcuts(c.shortcuts ?? [], fail);
  const menu = bool("menu");
  if (menu && api === "0.1") fail("`contributes.menu` requires api_version 0.2");
  if (menu && idents("commands").length === 0) fail("`contributes.menu` needs at least one declared command to route to");
  const manifest: HostManifest = {
    name: name as string,
    version: raw.version as string,
    api_version: api as HostManifest["api_version"],
    entrypoint: { command: entry.command as string, args, env },
    capabilities: { filesystem: filesystem as string, process: Boolean(caps.process), network: Boolean(caps.network), secrets, environment },
    contributes: {
      tools: idents("tools"),
      commands: idents("commands"),
      hooks,
      ui,
      context: bool("context"),
      tool_renderers: idents("tool_renderers"),
      notifications: bool("notifications"),
      confirmations: bool("confirmations"),
      presentation,
      menu,
      flags,
      shortcuts,
      providers: bool("providers"),
    },
    contributesTable: structuredClone(c),
    path: file,
    dir: dirname(file),
  };
  if (typeof raw.requires_octet === "string") manifest.requires_octet = raw.requires_octet;
  if (typeof raw.description === "string") manifest.description = raw.description;
  return manifest;
}

/** One declared CLI flag. */
export interface ManifestFlag {
  name: string;
  type: (typeof FLAG_TYPES)[number];
  default: boolean | string | number;
  description?: string;
}

/** `contributes.flags` as octet checks it (docs/api-0.4.md "CLI flags"). */
function manifestFlags(value: unknown, fail: (m: string) => never): ManifestFlag[] {
  if (!Array.isArray(value)) fail("`contributes.flags` must be an array of tables");
  const list = value as unknown[];
  if (list.length > MAX_FLAGS) fail(`\`contributes.flags\` declares more than ${MAX_FLAGS} flags`);
  const flags: ManifestFlag[] = [];
  for (const entry of list) {
    if (!isObject(entry)) fail("`contributes.flags` entries must be tables");
    const flag = entry as Record<string, unknown>;
    denyUnknown(flag, ["name", "type", "default", "description"], "contributes.flags.", fail);
    const { name, type, description } = flag;
    if (typeof name !== "string" || !FLAG_NAME.test(name)) fail(`flag name ${JSON.stringify(name)} must match ^[a-z][a-z0-9-]{0,63}$`);
    if (flags.some((f) => f.name === name)) fail(`flag \`${name}\` is declared twice`);
    if (!isOneOf(type, FLAG_TYPES)) fail(`flag \`${name}\` type must be boolean, string or integer`);
    if (!flagValueFits(type as ManifestFlag["type"], flag.default)) fail(`flag \`${name}\` needs a ${type} default`);
    if (description !== undefined && (typeof description !== "string" || Buffer.byteLength(description) > MAX_FLAG_DESCRIPTION_BYTES)) {
      fail(`flag \`${name}\` description must be a string of at most ${MAX_FLAG_DESCRIPTION_BYTES} bytes`);
    }
    const parsed: ManifestFlag = { name: name as string, type: type as ManifestFlag["type"], default: flag.default as ManifestFlag["default"] };
    if (description !== undefined) parsed.description = description as string;
    flags.push(parsed);
  }
  return flags;
}

/** One declared key binding: octet sends `shortcut/execute` with `name` when `key` is pressed. */
export interface ManifestShortcut {
  key: string;
  name: string;
  description: string;
}

/** `contributes.shortcuts` as octet checks it (docs/api-0.4.md "Shortcuts"). */
function manifestShortcuts(value: unknown, fail: (m: string) => never): ManifestShortcut[] {
  if (!Array.isArray(value)) fail("`contributes.shortcuts` must be an array of tables");
  const list = value as unknown[];
  if (list.length > MAX_SHORTCUTS) fail(`shortcut catalog contains ${list.length} entries; limit is ${MAX_SHORTCUTS}`);
  const shortcuts: ManifestShortcut[] = [];
  for (const entry of list) {
    if (!isObject(entry)) fail("`contributes.shortcuts` entries must be tables");
    const shortcut = entry as Record<string, unknown>;
    denyUnknown(shortcut, ["key", "name", "description"], "contributes.shortcuts.", fail);
    const { key, name, description } = shortcut;
    if (typeof name !== "string" || !IDENT.test(name)) fail(`invalid shortcut identifier \`${String(name)}\``);
    if (typeof key !== "string" || key === "" || key.trim() !== key || Buffer.byteLength(key) > MAX_SHORTCUT_KEY_BYTES || CONTROL.test(key)) fail(`invalid shortcut key \`${String(key)}\``);
    if (typeof description !== "string" || description.trim() === "" || Buffer.byteLength(description) > MAX_SHORTCUT_DESCRIPTION_BYTES || CONTROL.test(description)) {
      fail(`shortcut \`${name}\` has an invalid description`);
    }
    if (shortcuts.some((s) => s.name === name)) fail(`duplicate shortcut definition \`${name}\``);
    if (shortcuts.some((s) => s.key.toLowerCase() === (key as string).toLowerCase())) fail(`duplicate shortcut key \`${key}\``);
    shortcuts.push({ key: key as string, name: name as string, description: description as string });
  }
  return shortcuts;
}

const CONTROL = /[\x00-\x1f\x7f]/;

/** Whether `value` is a valid value for a flag of `type`. */
export function flagValueFits(type: ManifestFlag["type"], value: unknown): boolean {
  if (type === "boolean") return typeof value === "boolean";
  if (type === "string") return typeof value === "string" && Buffer.byteLength(value) <= MAX_FLAG_STRING_BYTES;
  return (typeof value === "number" && Number.isSafeInteger(value)) || (typeof value === "bigint" && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER));
}

function table(value: unknown, key: string, fail: (m: string) => never): Record<string, unknown> {
  if (!isObject(value)) fail(`\`${key}\` must be a table`);
  return value as Record<string, unknown>;
}

function strings(value: unknown, key: string, fail: (m: string) => never): string[] {
  if (!isStringArray(value)) fail(`\`${key}\` must be an array of strings`);
  return value as string[];
}

function unique(list: string[], key: string, fail: (m: string) => never): string[] {
  if (hasDuplicates(list)) fail(`\`${key}\` contains duplicates`);
  return list;
}

function denyUnknown(value: Record<string, unknown>, allowed: readonly string[], prefix: string, fail: (m: string) => never): void {
  const key = unknownKey(value, allowed);
  if (key !== undefined) fail(`unknown key \`${prefix}${key}\``);
}
