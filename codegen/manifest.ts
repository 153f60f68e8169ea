import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { API02_HOOKS, checkOutputSchema, ENV_NAME, IDENT, LEGACY_HOOKS, NAME, SEMVER } from "octet-extension/protocol";
import { resetAjv } from "./ajv.ts";
import { ManifestError } from "./errors.ts";
import { sourcePaths } from "./paths.ts";
import { runtimeTable } from "./runtime-table.ts";
import { checkParameters, loadSchema } from "./schema.ts";
import { parseToml } from "./toml.ts";

export { ManifestError } from "./errors.ts";

/**
 * `manifest.toml`: what the author edits (docs/manifest.md). The host's fields
 * plus, per tool and command, its description, JSON Schema and usage. Every
 * check names the file, the key and the fix.
 */

type Obj = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Obj;
  outputSchema?: Obj;
  /** Check each call's arguments against `parameters` before the handler runs (default true). */
  validate: boolean;
}

export interface CommandSpec {
  name: string;
  description: string;
  usage?: string;
}

export interface AuthorManifest {
  path: string;
  dir: string;
  name: string;
  version: string;
  apiVersion: "0.1" | "0.2";
  requiresOctet?: string;
  description?: string;
  entrypoint?: { command: string; args: string[]; env: Record<string, string> };
  capabilities: Obj;
  /** `[contributes]` minus tools and commands (those come from `[tools.*]`/`[commands.*]`). */
  contributes: Obj;
  /** `[runtime]`: octet's process lifetime (checked against its lifecycles and sharing rules). */
  runtime?: { lifecycle?: string; sharing?: string };
  tools: ToolSpec[];
  commands: CommandSpec[];
  /** The author's source file (`[source].file`, default `src/extension.ts`). */
  sourceFile: string;
  /** The generated module (`[source].generated`, default beside the source as `<name>.gen.ts`). */
  generatedFile: string;
  /** The argument validators, beside the generated module as `<name>.validators.gen.ts`. */
  validatorsFile: string;
}

const SEMVER_REQ = /^\s*(?:[=^~<>]=?|)\s*v?\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?(?:\s*,?\s*(?:[=^~<>]=?)\s*\d+(?:\.\d+){0,2})*\s*$/;
const HOOKS_01: readonly string[] = LEGACY_HOOKS;
const HOOKS_02: readonly string[] = API02_HOOKS;
const TOP = ["name", "version", "api_version", "requires_octet", "description", "entrypoint", "capabilities", "contributes", "runtime", "tools", "commands", "source"];
const CONTRIBUTES = ["hooks", "ui", "context", "tool_renderers", "notifications", "confirmations", "presentation", "menu"];

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Read and check `manifest.toml` (path to the file or its directory). */
export function loadAuthorManifest(path: string): AuthorManifest {
  let file = resolve(path);
  if (existsSync(file) && statSync(file).isDirectory()) file = resolve(file, "manifest.toml");
  if (!existsSync(file)) throw new ManifestError(file, "(file)", "not found", "create manifest.toml or run `bun create octet-extension NAME`");
  const fail = (key: string, problem: string, fix: string): never => {
    throw new ManifestError(file, key, problem, fix);
  };
  const raw: Obj = parseToml(readFileSync(file, "utf8"), file);
  resetAjv();
  for (const key of Object.keys(raw)) if (!TOP.includes(key)) fail(key, "unknown key", `remove it; allowed: ${TOP.join(", ")}`);
  const dir = dirname(file);
  const name = raw.name;
  if (typeof name !== "string" || !NAME.test(name)) fail("name", `${JSON.stringify(name)} is not a valid extension name`, "use 1-64 of a-z, 0-9 and '-', starting with a letter");
  if (typeof raw.version !== "string" || !SEMVER.test(raw.version)) fail("version", `${JSON.stringify(raw.version)} is not SemVer`, 'use e.g. "0.1.0"');
  const api = raw.api_version;
  if (api !== "0.1" && api !== "0.2") fail("api_version", `${JSON.stringify(api)} is not a legacy API version`, 'use "0.2" (octet installs no new 0.1 bundles) or "0.1"');
  if (raw.requires_octet !== undefined && (typeof raw.requires_octet !== "string" || !SEMVER_REQ.test(raw.requires_octet))) {
    fail("requires_octet", "must be a SemVer requirement", 'use e.g. "=0.8.0"');
  }
  if (raw.description !== undefined && typeof raw.description !== "string") fail("description", "must be a string", "quote it");

  let entrypoint: AuthorManifest["entrypoint"];
  if (raw.entrypoint !== undefined) {
    const e = raw.entrypoint;
    if (!isObj(e)) return fail("entrypoint", "must be a table", "write [entrypoint]");
    for (const key of Object.keys(e)) if (!["command", "args", "env"].includes(key)) fail(`entrypoint.${key}`, "unknown key", "allowed: command, args, env");
    if (typeof e.command !== "string" || e.command.trim() === "" || /[\x00-\x1f\x7f]/.test(e.command)) fail("entrypoint.command", "must be a non-blank string without control characters", "name the program to run");
    const args = e.args ?? [];
    if (!Array.isArray(args) || args.some((a) => typeof a !== "string" || a.includes("\0"))) fail("entrypoint.args", "must be an array of strings without NUL", 'e.g. args = ["--stdio"]');
    const env = e.env ?? {};
    if (!isObj(env)) return fail("entrypoint.env", "must be a table of strings", 'e.g. env = { LOG = "1" }');
    for (const [k, v] of Object.entries(env)) {
      if (!ENV_NAME.test(k)) fail(`entrypoint.env.${k}`, "is not a valid variable name", "use letters, digits and _");
      if (typeof v !== "string" || v.includes("\0")) fail(`entrypoint.env.${k}`, "must be a string without NUL", "quote the value");
    }
    entrypoint = { command: e.command as string, args: args as string[], env: env as Record<string, string> };
  }

  const capabilities = raw.capabilities ?? {};
  if (!isObj(capabilities)) return fail("capabilities", "must be a table", "write [capabilities]");
  const capKeys = ["filesystem", "process", "network", "secrets", "environment", "system_prompt"];
  for (const key of Object.keys(capabilities)) if (!capKeys.includes(key)) fail(`capabilities.${key}`, "unknown key", `allowed: ${capKeys.join(", ")}`);
  if (capabilities.filesystem !== undefined && !["none", "workspace", "unrestricted"].includes(capabilities.filesystem as string)) {
    fail("capabilities.filesystem", `${JSON.stringify(capabilities.filesystem)} is not allowed`, 'use "none", "workspace" or "unrestricted"');
  }
  for (const key of ["process", "network", "system_prompt"]) if (capabilities[key] !== undefined && typeof capabilities[key] !== "boolean") fail(`capabilities.${key}`, "must be true or false", "use a boolean");
  const secrets = capabilities.secrets ?? [];
  if (!Array.isArray(secrets) || secrets.some((s) => typeof s !== "string" || !IDENT.test(s))) fail("capabilities.secrets", "must be names matching ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$", 'e.g. secrets = ["service.api_token"]');
  if (new Set(secrets as string[]).size !== (secrets as string[]).length) fail("capabilities.secrets", "contains duplicates", "list each secret once");
  if (capabilities.environment !== undefined) {
    if (api === "0.1") fail("capabilities.environment", "requires api_version 0.2", 'remove it or set api_version = "0.2"');
    if (!Array.isArray(capabilities.environment) || capabilities.environment.some((v) => typeof v !== "string")) fail("capabilities.environment", "must be an array of variable names", 'e.g. environment = ["SSH_AUTH_SOCK"]');
  }

  const contributes = raw.contributes ?? {};
  if (!isObj(contributes)) return fail("contributes", "must be a table", "write [contributes]");
  for (const key of Object.keys(contributes)) {
    if (key === "tools" || key === "commands") fail(`contributes.${key}`, "is derived, not written", `declare each one as a [${key}.NAME] table instead`);
    if (!CONTRIBUTES.includes(key)) fail(`contributes.${key}`, "unknown key", `allowed: ${CONTRIBUTES.join(", ")}`);
  }
  const list = (key: string, allowed?: string[]): string[] => {
    const value = contributes[key] ?? [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) return fail(`contributes.${key}`, "must be an array of strings", "e.g. [\"...\"]");
    if (new Set(value).size !== value.length) fail(`contributes.${key}`, "contains duplicates", "list each entry once");
    for (const v of value as string[]) {
      if (allowed && !allowed.includes(v)) fail(`contributes.${key}`, `${JSON.stringify(v)} is not allowed`, `use ${allowed.join(", ")}`);
      if (!allowed && !IDENT.test(v)) fail(`contributes.${key}`, `${JSON.stringify(v)} is not a valid name`, "use ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$");
    }
    return value as string[];
  };
  const hooks = list("hooks", [...HOOKS_01, ...HOOKS_02]);
  for (const hook of hooks) if (HOOKS_02.includes(hook) && api === "0.1") fail("contributes.hooks", `${hook} requires api_version 0.2`, 'remove it or set api_version = "0.2"');
  list("ui", ["status", "header", "footer"]);
  list("tool_renderers");
  for (const key of ["context", "notifications", "confirmations", "presentation", "menu"]) {
    if (contributes[key] !== undefined && typeof contributes[key] !== "boolean") fail(`contributes.${key}`, "must be true or false", "use a boolean");
  }
  if (contributes.presentation === true && api === "0.1") fail("contributes.presentation", "requires api_version 0.2", 'remove it or set api_version = "0.2"');

  const tools = table(raw.tools, "tools", fail).map(([toolName, spec]) => {
    if (!IDENT.test(toolName)) fail(`tools.${toolName}`, "is not a valid tool name", "use ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$");
    for (const key of Object.keys(spec)) if (!["description", "parameters", "output_schema", "validate"].includes(key)) fail(`tools.${toolName}.${key}`, "unknown key", "allowed: description, parameters, output_schema, validate");
    if (typeof spec.description !== "string" || spec.description.trim() === "") fail(`tools.${toolName}.description`, "is missing or blank", "describe what the tool does for the model");
    if (spec.validate !== undefined && typeof spec.validate !== "boolean") fail(`tools.${toolName}.validate`, "must be true or false", "set validate = false only if the handler checks its own arguments");
    const parameters = loadSchema(spec.parameters, `tools.${toolName}.parameters`, dir, fail) ?? { type: "object" };
    checkParameters(parameters, `tools.${toolName}.parameters`, fail);
    const tool: ToolSpec = { name: toolName, description: spec.description as string, parameters, validate: spec.validate !== false };
    if (spec.output_schema !== undefined) {
      if (api === "0.1") fail(`tools.${toolName}.output_schema`, "requires api_version 0.2", 'remove it or set api_version = "0.2"');
      const schema = loadSchema(spec.output_schema, `tools.${toolName}.output_schema`, dir, fail)!;
      try {
        checkOutputSchema(schema);
      } catch (error) {
        fail(`tools.${toolName}.output_schema`, (error as Error).message.replace(/^output_schema\.?/, "at "), "use only the bounded JSON Schema subset (docs/manifest.md)");
      }
      tool.outputSchema = schema;
    }
    return tool;
  });
  if (tools.length > 256) fail("tools", `declares ${tools.length} tools`, "at most 256 tools are allowed");
  const commands = table(raw.commands, "commands", fail).map(([commandName, spec]) => {
    if (!IDENT.test(commandName)) fail(`commands.${commandName}`, "is not a valid command name", "use ^[A-Za-z_][A-Za-z0-9_.-]{0,63} (no leading /)");
    for (const key of Object.keys(spec)) if (!["description", "usage"].includes(key)) fail(`commands.${commandName}.${key}`, "unknown key", "allowed: description, usage");
    if (typeof spec.description !== "string" || spec.description.trim() === "") fail(`commands.${commandName}.description`, "is missing or blank", "describe the command");
    if (spec.usage !== undefined && typeof spec.usage !== "string") fail(`commands.${commandName}.usage`, "must be a string", 'e.g. usage = "/name [args]"');
    const command: CommandSpec = { name: commandName, description: spec.description as string };
    if (spec.usage !== undefined) command.usage = spec.usage as string;
    return command;
  });
  if (contributes.menu === true && api === "0.1") fail("contributes.menu", "requires api_version 0.2", 'remove it or set api_version = "0.2"');
  if (contributes.menu === true && commands.length === 0) fail("contributes.menu", "needs at least one command", "declare a [commands.NAME] table");

  const source = raw.source ?? {};
  if (!isObj(source)) return fail("source", "must be a table", "write [source]");
  for (const key of Object.keys(source)) if (!["file", "generated"].includes(key)) fail(`source.${key}`, "unknown key", "allowed: file, generated");
  const { sourceFile, generatedFile, validatorsFile } = sourcePaths(dir, source, fail);
  const runtime = runtimeTable(raw.runtime, api as "0.1" | "0.2", fail);

  const manifest: AuthorManifest = {
    path: file,
    dir,
    name: name as string,
    version: raw.version as string,
    apiVersion: api as "0.1" | "0.2",
    capabilities,
    contributes,
    tools,
    commands,
    sourceFile,
    generatedFile,
    validatorsFile,
  };
  if (raw.requires_octet !== undefined) manifest.requiresOctet = raw.requires_octet as string;
  if (raw.description !== undefined) manifest.description = raw.description as string;
  if (entrypoint) manifest.entrypoint = entrypoint;
  if (runtime) manifest.runtime = runtime;
  return manifest;
}

function table(value: unknown, key: string, fail: (k: string, p: string, f: string) => never): [string, Obj][] {
  if (value === undefined) return [];
  if (!isObj(value)) return fail(key, "must be a table of tables", `write [${key}.NAME] sections`);
  return Object.entries(value).map(([name, spec]) => {
    if (!isObj(spec)) return fail(`${key}.${name}`, "must be a table", `write [${key}.${name}] with a description`);
    return [name, spec] as [string, Obj];
  });
}
