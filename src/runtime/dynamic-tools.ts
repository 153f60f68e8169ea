import { type CatalogUpdate, MAX_CATALOG_TOOLS } from "./catalog.ts";
import { Registry, type ToolEntry } from "./registry.ts";
import type { ServiceHost } from "./services.ts";
import type { ApiVersion, JsonObject, ToolHandler } from "./types.ts";

/**
 * Live tool catalogs (`dynamic_tools`, spec §4.11, §4.12, §8.7): definitions
 * are checked locally first (plain `Error`s, nothing sent), then the catalog
 * stages the change, asks the host and commits exactly what it published.
 */

/** A tool added at runtime: its definition plus its handler. */
export interface DynamicToolDefinition {
  name: string;
  description: string;
  parameters?: JsonObject | null;
  outputSchema?: JsonObject | null;
  handler: ToolHandler<any>;
}

/** `tools/register`: add or replace tools. */
export function registerTools(host: ServiceHost, definitions: DynamicToolDefinition[]): Promise<CatalogUpdate> {
  try {
    const live = host.initialized();
    host.requireFeature("dynamic_tools");
    const entries = checkDynamicDefinitions(definitions, host.api);
    return live.catalog.mutate(
      (current) => {
        const next = new Map(current);
        for (const entry of entries) next.set(entry.definition.name, entry);
        return next;
      },
      () => live.hostRequests.request("tools/register", { tools: entries.map((e) => e.definition) }),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/** `tools/unregister`: remove tools; unknown names are harmless. */
export function unregisterTools(host: ServiceHost, names: string[]): Promise<CatalogUpdate> {
  try {
    const live = host.initialized();
    host.requireFeature("dynamic_tools");
    if (!Array.isArray(names) || names.length < 1 || names.length > MAX_CATALOG_TOOLS) throw new Error(`unregister needs 1..${MAX_CATALOG_TOOLS} tool names`);
    if (names.some((n) => typeof n !== "string" || n.trim() === "")) throw new Error("tool names must be non-blank strings");
    if (new Set(names).size !== names.length) throw new Error("tool names must be unique");
    return live.catalog.mutate(
      (current) => {
        const next = new Map(current);
        for (const name of names) next.delete(name);
        return next;
      },
      () => live.hostRequests.request("tools/unregister", { names: [...names] }),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Argument checks for registerTools (spec §8.7): plain errors, nothing sent. */
function checkDynamicDefinitions(definitions: DynamicToolDefinition[], api: ApiVersion): ToolEntry[] {
  if (!Array.isArray(definitions) || definitions.length < 1 || definitions.length > MAX_CATALOG_TOOLS) throw new Error(`register needs 1..${MAX_CATALOG_TOOLS} tool definitions`);
  const seen = new Set<string>();
  const staging = new Registry(api);
  return definitions.map((definition) => {
    if (!definition || typeof definition !== "object") throw new Error("a tool definition must be an object");
    for (const key of Object.keys(definition)) {
      if (!["name", "description", "parameters", "outputSchema", "handler"].includes(key)) throw new Error(`tool definition has unknown field ${key}`);
    }
    if (seen.has(definition.name)) throw new Error(`tool \`${definition.name}\` is listed twice`);
    seen.add(definition.name);
    const base: { name: string; description: string; parameters?: JsonObject; outputSchema?: JsonObject } = {
      name: definition.name,
      description: definition.description,
    };
    if (definition.parameters !== undefined && definition.parameters !== null) base.parameters = definition.parameters;
    if (definition.outputSchema !== undefined && definition.outputSchema !== null) base.outputSchema = definition.outputSchema;
    staging.addTool(base, definition.handler);
    return staging.tools.get(definition.name)!;
  });
}
