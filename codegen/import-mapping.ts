/**
 * What `octet-extension import` maps (docs/tools.md, "Porting an extension"):
 * an extension's `extension.toml` and its own initialize reply → the tables
 * of a `manifest.toml` from which gen writes the same `extension.toml`, and
 * one line for each thing manifest.toml cannot say. The extension's text is
 * data: it is copied, never interpreted.
 */
import { isObject, type JsonRecord } from "octet-extension/validation";
import { MAX_CONCURRENT_REQUESTS } from "octet-extension/protocol";
import type { HostManifest } from "octet-extension/testing";
import { CONTRIBUTES } from "./manifest-host-tables.ts";
import { tomlCannotHold } from "./toml-text.ts";

/** The extension to import: its `extension.toml` as written and as octet checks it, and its initialize reply. */
export interface ImportSource {
  raw: JsonRecord;
  manifest: HostManifest;
  reply: JsonRecord;
}

/** A schema TOML cannot hold, written as JSON beside manifest.toml and named by its path. */
export interface SchemaFile {
  /** Relative to the project, e.g. `schemas/search.parameters.json`. */
  path: string;
  text: string;
  /** The manifest key (`tools.search.parameters`). */
  key: string;
  /** What TOML cannot hold in it (`null`). */
  why: string;
}

export interface Mapping {
  /** manifest.toml's tables, in the order they are written. */
  manifest: JsonRecord;
  schemaFiles: SchemaFile[];
  /** One line per thing manifest.toml cannot say. */
  notMapped: string[];
}

/** The command gen's `extension.toml` names: the kit's own wrapper. */
export const KIT_ENTRYPOINT = "extension";
const TOOL_KEYS = ["name", "description", "parameters", "output_schema"];

const json = (value: unknown) => JSON.stringify(value, (_, v) => (typeof v === "bigint" ? Number(v) : v));

/** Map `source` into manifest.toml tables; `keep` holds the project's own `[source]` table, if any. */
export function mapExtension(source: ImportSource, keep: { source?: JsonRecord } = {}): Mapping {
  const { raw, manifest: host, reply } = source;
  const notMapped: string[] = [];
  const schemaFiles: SchemaFile[] = [];
  const manifest: JsonRecord = { name: raw.name, version: raw.version, api_version: raw.api_version };
  for (const key of ["requires_octet", "description"]) if (typeof raw[key] === "string") manifest[key] = raw[key];

  const entrypoint = entrypointTable(raw.entrypoint as JsonRecord, notMapped);
  if (entrypoint) manifest.entrypoint = entrypoint;
  const capabilities = presentKeys(raw.capabilities);
  if (Object.keys(capabilities).length > 0) manifest.capabilities = capabilities;

  const schema = (tool: string, kind: string, value: JsonRecord): JsonRecord | string => {
    const why = tomlCannotHold(value);
    if (!why) return value;
    const path = `schemas/${tool}.${kind}.json`;
    schemaFiles.push({ path, text: jsonText(value), key: `tools.${tool}.${kind}`, why });
    return path;
  };
  const replied = new Map(((reply.tools ?? []) as JsonRecord[]).map((tool) => [String(tool.name), tool]));
  const tools: JsonRecord = {};
  for (const name of host.contributes.tools) {
    const definition = replied.get(name);
    if (!definition) {
      notMapped.push(`not mapped: tools.${name}: declared in contributes.tools but not in the initialize reply: imported with a placeholder description and an open schema; describe it in manifest.toml`);
      tools[name] = { description: `${name} (describe this tool)`, parameters: { type: "object" } };
      continue;
    }
    const tool: JsonRecord = { description: definition.description, parameters: schema(name, "parameters", (definition.parameters as JsonRecord | undefined) ?? { type: "object" }) };
    if (definition.output_schema !== undefined) tool.output_schema = schema(name, "output_schema", definition.output_schema as JsonRecord);
    for (const key of Object.keys(definition)) {
      if (!TOOL_KEYS.includes(key)) notMapped.push(`not mapped: tools.${name}.${key}: manifest.toml has no key for it, so the port does not send it`);
    }
    tools[name] = tool;
  }
  for (const name of replied.keys()) {
    if (!host.contributes.tools.includes(name)) notMapped.push(`not mapped: tools.${name}: in the initialize reply but not in contributes.tools (a dynamic tool): register it at run time with ext.tools.register`);
  }
  if (Object.keys(tools).length > 0) manifest.tools = tools;

  const repliedCommands = new Map(((reply.commands ?? []) as JsonRecord[]).map((command) => [String(command.name), command]));
  const commands: JsonRecord = {};
  for (const name of host.contributes.commands) {
    const definition = repliedCommands.get(name);
    const command: JsonRecord = { description: definition?.description ?? `/${name} (describe this command)` };
    if (typeof definition?.usage === "string") command.usage = definition.usage;
    commands[name] = command;
  }
  if (Object.keys(commands).length > 0) manifest.commands = commands;

  if (host.contributes.flags.length > 0) {
    manifest.flags = Object.fromEntries(host.contributes.flags.map(({ name, ...flag }) => [name, flag]));
  }
  if (host.contributes.shortcuts.length > 0) {
    manifest.shortcuts = Object.fromEntries(host.contributes.shortcuts.map(({ name, key, description }) => [name, { key, description }]));
  }
  const contributes = contributesTable(raw.contributes, raw.api_version, notMapped);
  if (Object.keys(contributes).length > 0) manifest.contributes = contributes;
  const runtime = presentKeys(raw.runtime);
  if (Object.keys(runtime).length > 0) manifest.runtime = runtime;
  if (keep.source && Object.keys(keep.source).length > 0) manifest.source = keep.source;

  notMapped.push(...protocolLines(reply, host));
  return { manifest, schemaFiles, notMapped };
}

/**
 * The entry point becomes the kit's `extension` wrapper (build ships its own):
 * `env` is kept, a different command or any args are named.
 */
function entrypointTable(entry: JsonRecord, notMapped: string[]): JsonRecord | undefined {
  const args = (entry.args ?? []) as string[];
  if (entry.command !== KIT_ENTRYPOINT || args.length > 0) {
    const what = `entrypoint.command ${json(entry.command)}${args.length > 0 ? ` and args ${json(args)}` : ""}`;
    notMapped.push(`not mapped: ${what}: the port runs src/extension.ts through the kit's \`${KIT_ENTRYPOINT}\` wrapper (build ships its own); entrypoint.env is kept`);
  }
  const env = isObject(entry.env) ? entry.env : {};
  return Object.keys(env).length > 0 ? { command: KIT_ENTRYPOINT, env } : undefined;
}

/** `[contributes]` minus what manifest.toml derives (tools, commands, flags, shortcuts). */
function contributesTable(value: unknown, apiVersion: unknown, notMapped: string[]): JsonRecord {
  const table = presentKeys(value);
  const contributes: JsonRecord = {};
  for (const key of CONTRIBUTES) if (table[key] !== undefined) contributes[key] = table[key];
  // manifest.toml takes providers on API 0.3 only (models are provided on the canonical wire).
  if (table.providers !== undefined && apiVersion !== "0.3") {
    delete contributes.providers;
    if (table.providers === true) notMapped.push(`not mapped: contributes.providers: manifest.toml declares model providers on API 0.3 only (this extension is API ${String(apiVersion)})`);
  }
  return contributes;
}

/** What the reply shows was set in code: concurrency, lifecycle subscriptions, renderers registered at run time. */
function protocolLines(reply: JsonRecord, host: HostManifest): string[] {
  const lines: string[] = [];
  const protocol = isObject(reply.protocol) ? reply.protocol : {};
  const limit = isObject(protocol.limits) ? protocol.limits.max_concurrent_requests : undefined;
  if ((typeof limit === "number" || typeof limit === "bigint") && Number(limit) !== MAX_CONCURRENT_REQUESTS) {
    lines.push(`not mapped: protocol.limits.max_concurrent_requests = ${limit}: set in code: pass { maxConcurrentRequests: ${limit} } to new Extension() in src/extension.ts`);
  }
  const features = Array.isArray(protocol.features) ? protocol.features : [];
  if (features.includes("lifecycle_events")) {
    const events = Array.isArray(protocol.lifecycle_events) && protocol.lifecycle_events.length > 0 ? json(protocol.lifecycle_events) : "(all)";
    lines.push(`not mapped: protocol.lifecycle_events ${events}: subscribed in code: register each with ext.onLifecycle in src/extension.ts`);
  }
  const renderers = Array.isArray(reply.tool_renderers) ? reply.tool_renderers : [];
  if (renderers.length > 0 && json(renderers) !== json(host.contributes.tool_renderers)) {
    lines.push(`not mapped: tool_renderers ${json(renderers)} in the initialize reply (dynamic_tool_renderers): register them in code`);
  }
  return lines;
}

/** The keys written in a table (TOML has no null), without empty lists: gen leaves those out as octet's defaults. */
function presentKeys(value: unknown): JsonRecord {
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => !(Array.isArray(v) && v.length === 0)));
}

/** JSON with every `bigint` written with its exact digits. */
export function jsonText(value: unknown): string {
  const marker = "\u0000bigint:";
  const text = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${marker}${v}` : v), 2);
  return `${text.replace(/"\\u0000bigint:(-?\d+)"/g, "$1")}\n`;
}
