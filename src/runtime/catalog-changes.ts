/**
 * Tool catalog changes at runtime (`dynamic_tools`, docs/protocol-0.2.md §4.11, §4.12, §8.7):
 * `tools/register` and `tools/unregister`. The session and the feature are
 * checked first (`-32600`, `-32601`), then the definitions (plain `Error`s,
 * nothing sent); then the catalog stages the change, asks the host and
 * commits exactly what it published (`ToolCatalog.mutate`).
 */
import { MAX_CATALOG_TOOLS } from "../protocol.ts";
import type { CatalogUpdate } from "./catalog.ts";
import type { HostAccess, HostSession } from "./host-session.ts";
import { Registry, type ToolEntry, type ToolRegistration, wireDefinition } from "./registry.ts";
import type { ApiVersion, JsonObject, ToolHandler } from "./types.ts";

/** A tool added at runtime: its definition plus its handler. */
export interface DynamicToolDefinition {
  name: string;
  description: string;
  parameters?: JsonObject | null;
  outputSchema?: JsonObject | null;
  /** API 0.4, sent where `tool_prompt_metadata_v1` was negotiated (see `ext.tool`). */
  promptSnippet?: string;
  promptGuidelines?: string[];
  handler: ToolHandler<any>;
}

/** `tools/register`: add or replace tools; resolves to the host's `{revision, tools}`. */
export function registerTools(access: HostAccess, definitions: DynamicToolDefinition[]): Promise<CatalogUpdate> {
  const call = "ext.tools.register()";
  return change(access, call, (host) => {
    const entries = checkDynamicDefinitions(definitions, access.api);
    const tools = entries.map((e) => wireDefinition(e.definition, host.negotiated.features));
    return host.catalog.mutate(
      (current) => {
        const next = new Map(current);
        for (const entry of entries) next.set(entry.definition.name, entry);
        return next;
      },
      () => host.request("tools/register", { tools }, call, undefined, { parent: "none" }),
    );
  });
}

/** `tools/unregister`: remove tools; unknown names are harmless. */
export function unregisterTools(access: HostAccess, names: string[]): Promise<CatalogUpdate> {
  const call = "ext.tools.unregister()";
  return change(access, call, (host) => {
    if (!Array.isArray(names) || names.length < 1 || names.length > MAX_CATALOG_TOOLS) throw new Error(`unregister needs 1..${MAX_CATALOG_TOOLS} tool names`);
    if (names.some((n) => typeof n !== "string" || n.trim() === "")) throw new Error("tool names must be non-blank strings");
    if (new Set(names).size !== names.length) throw new Error("tool names must be unique");
    return host.catalog.mutate(
      (current) => {
        const next = new Map(current);
        for (const name of names) next.delete(name);
        return next;
      },
      () => host.request("tools/unregister", { names: [...names] }, call, undefined, { parent: "none" }),
    );
  });
}

/** Gate a change (initialized, then `dynamic_tools`) and run it; every failure rejects. */
function change(access: HostAccess, call: string, run: (host: HostSession) => Promise<CatalogUpdate>): Promise<CatalogUpdate> {
  try {
    const host = access.session();
    host.requireFeature("dynamic_tools", call);
    return run(host);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Argument checks for registerTools (docs/protocol-0.2.md §8.7): plain errors, nothing sent. */
function checkDynamicDefinitions(definitions: DynamicToolDefinition[], api: ApiVersion): ToolEntry[] {
  if (!Array.isArray(definitions) || definitions.length < 1 || definitions.length > MAX_CATALOG_TOOLS) throw new Error(`register needs 1..${MAX_CATALOG_TOOLS} tool definitions`);
  const seen = new Set<string>();
  const staging = new Registry(api);
  return definitions.map((definition) => {
    if (!definition || typeof definition !== "object") throw new Error("a tool definition must be an object");
    for (const key of Object.keys(definition)) {
      if (!["name", "description", "parameters", "outputSchema", "promptSnippet", "promptGuidelines", "handler"].includes(key)) throw new Error(`tool definition has unknown field ${key}`);
    }
    if (seen.has(definition.name)) throw new Error(`tool \`${definition.name}\` is listed twice`);
    seen.add(definition.name);
    const base: ToolRegistration = { name: definition.name, description: definition.description };
    if (definition.promptSnippet !== undefined) base.promptSnippet = definition.promptSnippet;
    if (definition.promptGuidelines !== undefined) base.promptGuidelines = definition.promptGuidelines;
    if (definition.parameters !== undefined && definition.parameters !== null) base.parameters = definition.parameters;
    if (definition.outputSchema !== undefined && definition.outputSchema !== null) base.outputSchema = definition.outputSchema;
    staging.addTool(base, definition.handler);
    return staging.tools.get(definition.name)!;
  });
}
