/**
 * `manifest.schema.json`: a JSON Schema (draft-07, what Taplo / Even Better
 * TOML read through the scaffold's `#:schema` line) of `manifest.toml`, built
 * from the tables gen checks against, so editors complete keys and flag
 * errors as gen would. What JSON Schema cannot say is listed in
 * docs/manifest.md, "Checked by gen only". `bun codegen/manifest-schema.ts`
 * rewrites the committed file; a test fails while it is stale.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  API_VERSIONS,
  CAPABILITY_KEYS,
  ENV_NAME,
  FILESYSTEM_ACCESS,
  FLAG_NAME,
  FLAG_TYPES,
  hookApi,
  IDENT,
  API02_HOOKS,
  API04_HOOKS,
  LEGACY_HOOKS,
  MAX_CATALOG_TOOLS,
  MAX_FLAG_DESCRIPTION_BYTES,
  MAX_FLAG_STRING_BYTES,
  MAX_FLAGS,
  MAX_SHORTCUT_DESCRIPTION_BYTES,
  MAX_SHORTCUT_KEY_BYTES,
  MAX_SHORTCUTS,
  NAME,
  SEMVER,
  SURFACES,
} from "octet-extension/protocol";
import type { JsonRecord } from "octet-extension/validation";
import { FLAG_KEYS, SHORTCUT_KEYS } from "./manifest-bindings.ts";
import { COMMAND_KEYS, TOOL_KEYS } from "./manifest-declarations.ts";
import { BOOLEAN_CONTRIBUTES, CONTRIBUTES, ENTRYPOINT_KEYS } from "./manifest-host-tables.ts";
import { MIGRATION_KEYS, REFUSED_CONTRIBUTES_03, SESSION_HOOKS } from "./manifest-v03.ts";
import { SEMVER_REQ, SOURCE_KEYS, TOP } from "./manifest.ts";
import { ISOLATED_LIFECYCLES, LIFECYCLES, RUNTIME_KEYS, SHARINGS, WORKSPACE_LIFECYCLES } from "./runtime-table.ts";

/** A JSON Schema object. */
type Schema = JsonRecord;

/** Where the file is written, beside this module (it ships in the package root). */
export const MANIFEST_SCHEMA_FILE = join(import.meta.dir, "manifest.schema.json");

/** A validator's pattern as a JSON Schema pattern: `\d` spelt `[0-9]`, which every regex engine reads alike. */
const pattern = (re: RegExp) => re.source.replaceAll("\\d", "[0-9]");
const CONTROL = "\\x00-\\x1f\\x7f";
/** Non-blank, as `text.trim() !== ""`. */
const NON_BLANK = "\\S";
/** Non-blank, without control characters (one line). */
const LINE = `^[^${CONTROL}]*[^${CONTROL}\\s][^${CONTROL}]*$`;
/** Non-empty, without control characters or surrounding whitespace. */
const TRIMMED = `^[^${CONTROL}\\s](?:[^${CONTROL}]*[^${CONTROL}\\s])?$`;
/** Absolute, or leaving the project through a leading `..`. */
const OUTSIDE = [{ type: "string", pattern: "^/" }, { type: "string", pattern: "^(?:\\./)*\\.\\.(?:/|$)" }];
const NEEDS_API02 = "requires api_version 0.2 or later";

const string = (description: string, extra: Schema = {}): Schema => ({ type: "string", description, ...extra });
const boolean = (description: string, extra: Schema = {}): Schema => ({ type: "boolean", description, ...extra });
const refused = (description: string): Schema => ({ not: {}, description });
const names = (item: Schema, description: string): Schema => ({ type: "array", description, items: item, uniqueItems: true });

/** Table `at` with exactly `keys` (the validator's list), each described. */
function closed(at: string, description: string, keys: readonly string[], properties: Record<string, Schema>, extra: Schema = {}): Schema {
  const described = Object.keys(properties);
  if (keys.length !== described.length || keys.some((k) => !described.includes(k))) {
    throw new Error(`manifest schema: gen allows ${JSON.stringify(keys)} in ${at}, the schema describes ${JSON.stringify(described)}: describe each key in codegen/manifest-schema.ts`);
  }
  return { type: "object", description, additionalProperties: false, properties, ...extra };
}

/** `[key.NAME]` tables. */
function tables(description: string, name: RegExp, item: Schema, max?: number): Schema {
  return { type: "object", description, propertyNames: { pattern: pattern(name) }, ...(max === undefined ? {} : { maxProperties: max }), additionalProperties: item };
}

/** A tool's schema: an inline table, or a relative `.json` path inside the project. */
function schemaValue(description: string, inline: Schema): Schema {
  return { description, anyOf: [{ type: "string", pattern: "\\.json$", not: { anyOf: OUTSIDE } }, { type: "object", ...inline }] };
}

/** A `[source]` path: relative, inside the project, not under node_modules/ or dist/. */
function sourcePath(description: string, suffix: string, refusedSuffixes: string[]): Schema {
  return string(description, {
    pattern: suffix,
    not: { anyOf: [...OUTSIDE, { type: "string", pattern: "^(?:\\./)*(?:node_modules|dist)/" }, ...refusedSuffixes.map((p) => ({ type: "string", pattern: p }))] },
  });
}

const HOOKS = [...LEGACY_HOOKS, ...API02_HOOKS, ...API04_HOOKS];
/** Every api_version gen takes: the legacy wire's and the canonical wire's 0.3. */
const VERSIONS = ["0.4", "0.3", "0.2", "0.1"];
const TO_04 = 'not available on API 0.3 (remove it or set api_version = "0.4")';
const apiAtLeast = (api: string, oldest: string) => API_VERSIONS.indexOf(api as (typeof API_VERSIONS)[number]) >= API_VERSIONS.indexOf(oldest as (typeof API_VERSIONS)[number]);
const whenApi = (api: string, then: Record<string, Schema>): Schema => ({ if: { properties: { api_version: { const: api } }, required: ["api_version"] }, then: { properties: then } });
/** A table's `properties` (typed, as Ajv's strict mode wants in every subschema). */
const within = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: "object", properties, ...extra });

const contributesTable = closed("[contributes]", "Contributions besides tools, commands, flags and shortcuts (those are derived from their own tables).", CONTRIBUTES, {
  hooks: names({ enum: [...HOOKS, ...SESSION_HOOKS] }, `Hooks the extension handles. API 0.1: ${LEGACY_HOOKS.join(", ")}; API 0.2 adds ${API02_HOOKS.join(", ")}; API 0.4 adds ${API04_HOOKS.join(", ")}; API 0.3 has only the pair ${SESSION_HOOKS.join(", ")} (both or neither).`),
  ui: names({ enum: [...SURFACES] }, "UI surfaces a status provider contributes to."),
  context: boolean("The extension contributes context to prompts."),
  tool_renderers: names({ type: "string", pattern: pattern(IDENT) }, "Tools whose calls this extension renders."),
  notifications: boolean("The extension sends notifications."),
  confirmations: boolean("The extension asks the user for confirmations."),
  presentation: boolean("The extension publishes presentation snapshots (API 0.2 or later)."),
  menu: boolean("An options menu (handlers.menu) whose items run declared commands; API 0.2 or later, needs a [commands.NAME].", { default: false }),
  providers: boolean("The extension provides models to octet (API 0.3 only: provider_catalog, provider_stream, provider_auth)."),
});
if (!BOOLEAN_CONTRIBUTES.every((key) => (contributesTable.properties as Record<string, Schema>)[key]?.type === "boolean")) throw new Error("manifest schema: a boolean contribution is not typed boolean");

const toolTable = closed("[tools.NAME]", "A model tool; gen writes its typed stub and argument validator.", TOOL_KEYS, {
  description: string("What the tool does, for the model.", { pattern: NON_BLANK }),
  parameters: schemaValue("The arguments' JSON Schema (an object schema; draft-07 unless $schema says 2019-09 or 2020-12): an inline table or a relative .json file.", {
    properties: { type: { const: "object", description: "Tool arguments are always a JSON object." } },
  }),
  output_schema: schemaValue("The JSON Schema of the tool's structured result, within octet's bounded subset (API 0.2 or later): an inline table or a relative .json file.", {}),
  validate: boolean("Check each call's arguments against parameters before the handler runs.", { default: true }),
}, { required: ["description"] });

const commandTable = closed("[commands.NAME]", "A slash command (the table name has no leading /).", COMMAND_KEYS, {
  description: string("What the command does.", { pattern: NON_BLANK }),
  usage: string("How to call it, e.g. /weather [city]."),
}, { required: ["description"] });

/** A flag's `default` for each flag type (the type checker holds this to FLAG_TYPES). */
const FLAG_DEFAULTS: Record<(typeof FLAG_TYPES)[number], Schema> = {
  boolean: { type: "boolean" },
  string: { type: "string", maxLength: MAX_FLAG_STRING_BYTES },
  integer: { type: "integer", minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
};

const flagTable = closed("[flags.NAME]", "A CLI flag octet parses for the extension: --NAME VALUE, or --NAME / --no-NAME for a boolean.", FLAG_KEYS, {
  type: { enum: [...FLAG_TYPES], description: "The flag's type." },
  default: { type: [...FLAG_TYPES], description: "The value when the user gives none, of the flag's type." },
  description: string(`Help text (at most ${MAX_FLAG_DESCRIPTION_BYTES} bytes).`, { maxLength: MAX_FLAG_DESCRIPTION_BYTES }),
}, {
  required: ["type", "default"],
  allOf: FLAG_TYPES.map((type) => ({ if: within({ type: { const: type } }, { required: ["type"] }), then: within({ default: FLAG_DEFAULTS[type] }) })),
});

const shortcutTable = closed("[shortcuts.NAME]", "A key binding; octet sends shortcut/execute and handlers.shortcuts.NAME answers like a command.", SHORTCUT_KEYS, {
  key: string("ctrl, alt or super (shift optional) plus one key, e.g. ctrl+shift+p; octet's own keys are refused by gen.", { pattern: TRIMMED, maxLength: MAX_SHORTCUT_KEY_BYTES }),
  description: string(`What the key does (one line, at most ${MAX_SHORTCUT_DESCRIPTION_BYTES} bytes).`, { pattern: LINE, maxLength: MAX_SHORTCUT_DESCRIPTION_BYTES }),
}, { required: ["key", "description"] });

const properties: Record<string, Schema> = {
  name: string("The extension's name; octet loads it only from a directory named like it.", { pattern: pattern(NAME) }),
  version: string("The extension's SemVer version, e.g. 0.1.0.", { pattern: pattern(SEMVER) }),
  api_version: { enum: VERSIONS, default: "0.4", description: 'The extension API: "0.4" (current), "0.3" (the canonical wire: providers, migration adapters), "0.2", or "0.1" (unpackaged only).' },
  requires_octet: string("The octet versions it runs on, e.g. =0.8.0 (octet's bundle installer takes only an exact one).", { pattern: pattern(SEMVER_REQ) }),
  description: string("A one-line description."),
  entrypoint: closed("[entrypoint]", "The process octet starts; without it gen writes a dev wrapper `extension`, and build ships its own (keeping only env).", ENTRYPOINT_KEYS, {
    command: string("The program to run.", { pattern: LINE }),
    args: { type: "array", description: "Its arguments.", items: { type: "string", pattern: "^[^\\x00]*$" } },
    env: { type: "object", description: "Environment variables for it.", propertyNames: { pattern: pattern(ENV_NAME) }, additionalProperties: { type: "string", pattern: "^[^\\x00]*$" } },
  }, { required: ["command"] }),
  capabilities: closed("[capabilities]", "Consent metadata, copied into extension.toml as is.", CAPABILITY_KEYS, {
    filesystem: { enum: [...FILESYSTEM_ACCESS], description: "File system access the extension needs." },
    process: boolean("The extension starts processes."),
    network: boolean("The extension uses the network."),
    secrets: names({ type: "string", pattern: pattern(IDENT) }, "Exact secret names for ext.secrets.get (API 0.2)."),
    environment: { type: "array", items: { type: "string" }, description: "Environment variables passed through to the extension (API 0.2 or later)." },
    system_prompt: boolean("The extension contributes to the system prompt."),
  }),
  contributes: contributesTable,
  runtime: closed("[runtime]", "How long octet keeps the process (octet only; not sent on the wire).", RUNTIME_KEYS, {
    lifecycle: { enum: LIFECYCLES, default: "legacy_resident", description: `Process lifetime. ${WORKSPACE_LIFECYCLES.join(", ")} need sharing = "workspace"; ${ISOLATED_LIFECYCLES.join(", ")} need "isolated"; lazy_resident takes either.` },
    sharing: { enum: SHARINGS, default: "isolated", description: 'One process per session ("isolated") or per workspace ("workspace", API 0.2 or later).' },
  }),
  tools: tables("Model tools, one [tools.NAME] table each.", IDENT, toolTable, MAX_CATALOG_TOOLS),
  commands: tables("Slash commands, one [commands.NAME] table each.", IDENT, commandTable),
  flags: tables("CLI flags (API 0.2 or later), one [flags.NAME] table each.", FLAG_NAME, flagTable, MAX_FLAGS),
  shortcuts: tables("Key bindings (API 0.2 or later), one [shortcuts.NAME] table each, in the order octet compares.", IDENT, shortcutTable, MAX_SHORTCUTS),
  source: closed("[source]", "Where gen reads the handlers and writes its modules.", SOURCE_KEYS, {
    file: sourcePath("The handlers' source, a .ts file inside the project (not .gen.ts or .d.ts).", "\\.ts$", ["\\.(?:gen|d)\\.ts$"]),
    generated: sourcePath("The generated module, ending in .gen.ts (the validators go beside it as .validators.gen.ts).", "[^/]\\.gen\\.ts$", ["\\.validators\\.gen\\.ts$"]),
  }),
  migration: closed("[migration]", "API 0.3 only, author-side (not written to extension.toml): the extension serves a migration adapter.", MIGRATION_KEYS, {
    adapter: boolean("Handlers get a typed migration slot (detect, import) served as migration/detect and migration/import (migration.adapter.v1)."),
  }),
};

/** What a version refuses: hooks of later versions on each, and on 0.1 every API 0.2 key. */
function apiRules(): Schema[] {
  const rules = API_VERSIONS.flatMap((api) => {
    const allowed = HOOKS.filter((hook) => apiAtLeast(api, hookApi(hook)!));
    return [whenApi(api, { contributes: within({ hooks: { type: "array", items: { enum: allowed } }, providers: refused("contributes.providers requires api_version 0.3") }), migration: refused("[migration] requires api_version 0.3") })];
  });
  rules.push(
    whenApi("0.3", {
      commands: { type: "object", maxProperties: 0, description: `commands: ${TO_04}` },
      shortcuts: { type: "object", maxProperties: 0, description: `shortcuts: ${TO_04}` },
      contributes: within({
        ...Object.fromEntries(REFUSED_CONTRIBUTES_03.map((key) => [key, refused(`contributes.${key}: ${TO_04}`)])),
        hooks: { type: "array", items: { enum: [...SESSION_HOOKS] }, not: { type: "array", minItems: 1, maxItems: 1 }, description: "API 0.3: the session_start/session_end pair, both or neither" },
      }),
    }),
  );
  rules.push(
    whenApi("0.1", {
      capabilities: within({ environment: refused(`capabilities.environment ${NEEDS_API02}`) }),
      contributes: within({ presentation: { const: false, description: `presentation ${NEEDS_API02}` }, menu: { const: false, description: `menu ${NEEDS_API02}` } }),
      tools: { type: "object", additionalProperties: within({ output_schema: refused(`output_schema ${NEEDS_API02}`) }) },
      flags: { type: "object", maxProperties: 0, description: `flags ${NEEDS_API02}` },
      shortcuts: { type: "object", maxProperties: 0, description: `shortcuts ${NEEDS_API02}` },
      runtime: within({ sharing: { const: "isolated", description: `workspace sharing ${NEEDS_API02}` } }),
    }),
  );
  return rules;
}

/** Rules between keys: the menu needs a command; lifecycle and sharing must fit. */
const CROSS_RULES: Schema[] = [
  {
    if: within({ contributes: within({ menu: { const: true } }, { required: ["menu"] }) }, { required: ["contributes"] }),
    then: within({ commands: { type: "object", minProperties: 1, description: "contributes.menu needs at least one command" } }, { required: ["commands"] }),
  },
  {
    if: within({ runtime: within({ lifecycle: { enum: WORKSPACE_LIFECYCLES } }, { required: ["lifecycle"] }) }, { required: ["runtime"] }),
    then: within({ runtime: within({ sharing: { const: "workspace" } }, { required: ["sharing"] }) }),
  },
  {
    if: within({ runtime: within({ sharing: { const: "workspace" } }, { required: ["sharing"] }) }, { required: ["runtime"] }),
    then: within({ runtime: within({ lifecycle: { not: { enum: ISOLATED_LIFECYCLES } } }, { required: ["lifecycle"] }) }),
  },
];

/** The schema of manifest.toml. */
export function manifestSchema(): Schema {
  const top = closed("the top level", "", TOP, properties);
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $comment: "Generated by octet-extension-tools (codegen/manifest-schema.ts) from the rules gen checks; docs/manifest.md lists what only gen checks.",
    title: "manifest.toml",
    description: "An octet extension's manifest.toml: `octet-extension gen` writes extension.toml, the typed module and the validators from it.",
    type: "object",
    additionalProperties: false,
    required: ["name", "version", "api_version"],
    properties: top.properties,
    allOf: [...apiRules(), ...CROSS_RULES],
  };
}

/** The file's text (what is committed). */
export function manifestSchemaText(): string {
  return `${JSON.stringify(manifestSchema(), null, 2)}\n`;
}

if (import.meta.main) {
  writeFileSync(MANIFEST_SCHEMA_FILE, manifestSchemaText());
  console.log(MANIFEST_SCHEMA_FILE);
}
