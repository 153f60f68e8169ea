/**
 * `manifest.toml`: what the author edits (docs/manifest.md). The host's fields
 * plus, per tool and command, its description, JSON Schema and usage. Every
 * check names the file, the key and the fix; the first problem throws an
 * {@link AuthorManifestError}.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { NAME, SEMVER } from "octet-extension/protocol";
import { isObject, type JsonRecord, unknownKey } from "octet-extension/validation";
import { resetAjv } from "./ajv.ts";
import { AuthorManifestError, type ManifestFail } from "./errors.ts";
import { checkFlags, checkShortcuts, type FlagSpec, type ShortcutSpec } from "./manifest-bindings.ts";
import { checkCommands, checkTools, type CommandSpec, type ToolSpec } from "./manifest-declarations.ts";
import { checkCapabilities, checkContributes, checkEntrypoint, checkMenu, type Entrypoint } from "./manifest-host-tables.ts";
import { checkApi03, checkMigration } from "./manifest-v03.ts";
import { sourcePaths, type SourcePaths } from "./paths.ts";
import { runtimeTable } from "./runtime-table.ts";
import { parseToml } from "./toml.ts";

export { AuthorManifestError, ManifestError } from "./errors.ts";
export type { CommandSpec, ToolSpec } from "./manifest-declarations.ts";
export type { FlagSpec, ShortcutSpec } from "./manifest-bindings.ts";

type ApiVersion = "0.1" | "0.2" | "0.3" | "0.4";

export interface AuthorManifest {
  path: string;
  dir: string;
  name: string;
  version: string;
  apiVersion: ApiVersion;
  requiresOctet?: string;
  description?: string;
  entrypoint?: Entrypoint;
  capabilities: JsonRecord;
  /** `[contributes]` minus tools and commands (those come from `[tools.*]`/`[commands.*]`). */
  contributes: JsonRecord;
  /** `[runtime]`: octet's process lifetime (checked against its lifecycles and sharing rules). */
  runtime?: { lifecycle?: string; sharing?: string };
  tools: ToolSpec[];
  commands: CommandSpec[];
  /** `[flags.*]`: CLI flags (API 0.2/0.4). */
  flags: FlagSpec[];
  /** `[shortcuts.*]`: key bindings (API 0.2/0.4), in file order. */
  shortcuts: ShortcutSpec[];
  /** `[migration] adapter = true` (API 0.3; author-side only, not in extension.toml). */
  migrationAdapter?: boolean;
  /** The author's source file (`[source].file`, default `src/extension.ts`). */
  sourceFile: string;
  /** The generated module (`[source].generated`, default beside the source as `<name>.gen.ts`). */
  generatedFile: string;
  /** The argument validators, beside the generated module as `<name>.validators.gen.ts`. */
  validatorsFile: string;
}

/** The top-level fields that name the extension. */
interface Identity {
  name: string;
  version: string;
  apiVersion: ApiVersion;
  requiresOctet?: string;
  description?: string;
}

/** A `requires_octet` requirement (`=0.8.0`, `^0.8`, `>=0.8.0, <0.9.0`). */
export const SEMVER_REQ = /^\s*(?:[=^~<>]=?|)\s*v?\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?(?:\s*,?\s*(?:[=^~<>]=?)\s*\d+(?:\.\d+){0,2})*\s*$/;
/** The keys of `[source]`. */
export const SOURCE_KEYS = ["file", "generated"];
/** The top-level keys of manifest.toml. */
export const TOP = ["name", "version", "api_version", "requires_octet", "description", "entrypoint", "capabilities", "contributes", "runtime", "tools", "commands", "flags", "shortcuts", "source", "migration"];

/** Read and check `manifest.toml` (path to the file or its directory). */
export function loadAuthorManifest(path: string): AuthorManifest {
  const file = manifestFile(path);
  const fail: ManifestFail = (key, problem, fix) => {
    throw new AuthorManifestError(file, key, problem, fix);
  };
  const raw: JsonRecord = parseToml(readFileSync(file, "utf8"), file);
  resetAjv();
  const dir = dirname(file);
  const identity = checkIdentity(raw, fail);
  const api = identity.apiVersion;
  if (api === "0.3") checkApi03(raw, fail);
  const entrypoint = checkEntrypoint(raw.entrypoint, fail);
  const capabilities = checkCapabilities(raw.capabilities, api, fail);
  const contributes = checkContributes(raw.contributes, api, fail);
  const tools = checkTools(raw.tools, api, dir, fail);
  const commands = checkCommands(raw.commands, fail);
  checkMenu(contributes, commands.length, api, fail);
  const flags = checkFlags(raw.flags, api, fail);
  const shortcuts = checkShortcuts(raw.shortcuts, api, fail);
  const { sourceFile, generatedFile, validatorsFile } = checkSource(raw.source, dir, fail);
  const runtime = runtimeTable(raw.runtime, api, fail);
  const migrationAdapter = checkMigration(raw.migration, api, fail);

  const manifest: AuthorManifest = {
    path: file,
    dir,
    name: identity.name,
    version: identity.version,
    apiVersion: api,
    capabilities,
    contributes,
    tools,
    commands,
    flags,
    shortcuts,
    sourceFile,
    generatedFile,
    validatorsFile,
  };
  if (identity.requiresOctet !== undefined) manifest.requiresOctet = identity.requiresOctet;
  if (identity.description !== undefined) manifest.description = identity.description;
  if (entrypoint) manifest.entrypoint = entrypoint;
  if (runtime) manifest.runtime = runtime;
  if (migrationAdapter) manifest.migrationAdapter = true;
  return manifest;
}

/** The manifest's path: `path` itself, or `manifest.toml` in the directory `path`. */
function manifestFile(path: string): string {
  let file = resolve(path);
  if (existsSync(file) && statSync(file).isDirectory()) file = resolve(file, "manifest.toml");
  if (!existsSync(file)) throw new AuthorManifestError(file, "(file)", "not found", "create manifest.toml or run `bun create octet-extension NAME`");
  return file;
}

/** No unknown top-level key; name, version, api_version, requires_octet and description. */
function checkIdentity(raw: JsonRecord, fail: ManifestFail): Identity {
  const extra = unknownKey(raw, TOP);
  if (extra !== undefined) fail(extra, "unknown key", `remove it; allowed: ${TOP.join(", ")}`);
  const { name, version, api_version: api, requires_octet: requiresOctet, description } = raw;
  if (typeof name !== "string" || !NAME.test(name)) fail("name", `${JSON.stringify(name)} is not a valid extension name`, "use 1-64 of a-z, 0-9 and '-', starting with a letter");
  if (typeof version !== "string" || !SEMVER.test(version)) fail("version", `${JSON.stringify(version)} is not SemVer`, 'use e.g. "0.1.0"');
  if (api !== "0.1" && api !== "0.2" && api !== "0.3" && api !== "0.4") {
    fail("api_version", `${JSON.stringify(api)} is not an extension API version`, 'use "0.4" (current), "0.3" (the canonical wire), "0.2", or "0.1" (unpackaged only)');
  }
  if (requiresOctet !== undefined && (typeof requiresOctet !== "string" || !SEMVER_REQ.test(requiresOctet))) {
    fail("requires_octet", "must be a SemVer requirement", 'use e.g. "=0.8.0"');
  }
  if (description !== undefined && typeof description !== "string") fail("description", "must be a string", "quote it");
  const identity: Identity = { name: name as string, version: version as string, apiVersion: api as ApiVersion };
  if (requiresOctet !== undefined) identity.requiresOctet = requiresOctet as string;
  if (description !== undefined) identity.description = description as string;
  return identity;
}

/** `[source]` (default empty): where gen reads the handlers and writes its modules. */
function checkSource(value: unknown, dir: string, fail: ManifestFail): SourcePaths {
  const source = value ?? {};
  if (!isObject(source)) return fail("source", "must be a table", "write [source]");
  const extra = unknownKey(source, SOURCE_KEYS);
  if (extra !== undefined) fail(`source.${extra}`, "unknown key", "allowed: file, generated");
  return sourcePaths(dir, source, fail);
}
