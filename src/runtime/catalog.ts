import { ErrorCode, RpcError } from "../errors.ts";
import { type Feature, MAX_CATALOG_TOOLS } from "../protocol.ts";
import { readUnsigned64 } from "../wire/json.ts";
import { Registry, type ToolEntry, type ToolRegistration, wireDefinition } from "./registry.ts";
import { unnamed } from "./refusals.ts";
import { isObject } from "./results.ts";
import type { ApiVersion, JsonObject, ToolHandler } from "./types.ts";

/** Committed catalogs kept for revision-pinned calls (spec §8.7). */
const RETAINED_CATALOGS = 8;
/** Re-exported for existing importers; defined in `src/protocol.ts`. */
export { MAX_CATALOG_TOOLS };

/** The host's acknowledgement of a catalog mutation. */
export interface CatalogUpdate {
  revision: number;
  tools: string[];
}

/**
 * The tool catalog with its epochs (spec §4.11, §4.12, §8.7). Epoch 0 is the
 * initialize catalog. A mutation is staged as `current + 1` (dispatchable at
 * once, since the host publishes before it acknowledges), sent, and
 * committed with exactly the names the host returned; any failure discards
 * the stage. The newest 8 committed epochs stay dispatchable.
 */
export class ToolCatalog {
  private readonly epochs = new Map<number, Map<string, ToolEntry>>();
  private current = 0;
  private staged: { revision: number; tools: Map<string, ToolEntry> } | undefined;
  private mutations: Promise<unknown> = Promise.resolve();

  constructor(
    initial: ReadonlyMap<string, ToolEntry>,
    private readonly dynamic: boolean,
  ) {
    this.epochs.set(0, new Map(initial));
  }

  /** Last committed revision (0 after initialize). */
  get revision(): number {
    return this.current;
  }

  /** The tools of the current committed catalog, in catalog order. */
  get tools(): ReadonlyMap<string, ToolEntry> {
    return this.epochs.get(this.current)!;
  }

  /** Resolve `tool/call` params: revision checks first, then the name (spec §8.7). */
  lookup(params: JsonObject): ToolEntry {
    let catalog = this.epochs.get(this.current)!;
    if ("catalog_revision" in params) {
      if (!this.dynamic) throw new RpcError(ErrorCode.InvalidParams, "tool/call catalog_revision requires negotiated dynamic_tools");
      const revision = readUnsigned64(params, "catalog_revision");
      if (revision === undefined) throw new RpcError(ErrorCode.InvalidParams, "tool/call catalog_revision must be an unsigned 64-bit integer");
      const pinned = typeof revision === "number" ? this.epochs.get(revision) : undefined;
      const staged = this.staged !== undefined && revision === this.staged.revision ? this.staged.tools : undefined;
      const found = pinned ?? staged;
      if (!found) throw new RpcError(ErrorCode.InvalidParams, `unknown or retired tool catalog revision: ${revision.toString()}`);
      catalog = found;
    }
    const name = params.name;
    if (typeof name !== "string") throw unnamed("tool/call", "tool", name);
    const tool = catalog.get(name);
    if (!tool) throw new RpcError(ErrorCode.MethodNotFound, `unknown tool: ${name}`);
    return tool;
  }

  /**
   * Run one mutation transactionally; mutations are serialised. `stage` builds
   * the next catalog from the current one (throwing plain errors for bad
   * arguments); `send` delivers it and returns the host's raw reply.
   */
  mutate(stage: (current: ReadonlyMap<string, ToolEntry>) => Map<string, ToolEntry>, send: () => Promise<unknown>): Promise<CatalogUpdate> {
    const run = async (): Promise<CatalogUpdate> => {
      const tools = stage(this.tools);
      if (tools.size > MAX_CATALOG_TOOLS) throw new Error(`the tool catalog would hold ${tools.size} tools; at most ${MAX_CATALOG_TOOLS} are allowed`);
      const revision = this.current + 1;
      this.staged = { revision, tools };
      try {
        const update = this.checkReply(await send(), revision, tools);
        const committed = new Map<string, ToolEntry>();
        for (const name of update.tools) committed.set(name, tools.get(name)!);
        this.epochs.set(revision, committed);
        this.current = revision;
        for (const old of [...this.epochs.keys()]) if (old <= revision - RETAINED_CATALOGS) this.epochs.delete(old);
        return update;
      } finally {
        this.staged = undefined;
      }
    };
    const result = this.mutations.then(run, run);
    this.mutations = result.catch(() => undefined);
    return result;
  }

  private checkReply(reply: unknown, expected: number, staged: Map<string, ToolEntry>): CatalogUpdate {
    const invalid = (message: string) => new RpcError(ErrorCode.InternalError, message);
    if (!isObject(reply) || Object.keys(reply).length !== 2 || !("revision" in reply) || !("tools" in reply)) {
      throw invalid("invalid dynamic tool catalog response");
    }
    const revision = readUnsigned64(reply, "revision");
    if (revision === undefined) throw invalid("invalid dynamic tool catalog revision");
    const names = reply.tools;
    if (
      !Array.isArray(names) ||
      names.length > MAX_CATALOG_TOOLS ||
      names.some((n) => typeof n !== "string" || n === "" || !staged.has(n)) ||
      new Set(names).size !== names.length
    ) {
      throw invalid("invalid dynamic tool catalog names");
    }
    if (revision !== expected) throw invalid(`invalid dynamic tool catalog revision: expected ${expected}, got ${revision.toString()}`);
    return { revision: expected, tools: names as string[] };
  }
}

// ---- mutations (`dynamic_tools`, spec §4.11, §4.12, §8.7) ----------------------
// The caller checks initialize and the feature; definitions are checked here first
// (plain `Error`s, nothing sent); then the catalog stages the change, asks the host
// through `send` and commits exactly what it published.

/** Sends one extension→host request and resolves to the host's result. */
type Send = (method: string, params: JsonObject) => Promise<unknown>;

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

/** `tools/register`: add or replace tools. */
export function registerTools(catalog: ToolCatalog, send: Send, api: ApiVersion, definitions: DynamicToolDefinition[], features: ReadonlySet<Feature> = new Set()): Promise<CatalogUpdate> {
  const entries = checkDynamicDefinitions(definitions, api);
  return catalog.mutate(
    (current) => {
      const next = new Map(current);
      for (const entry of entries) next.set(entry.definition.name, entry);
      return next;
    },
    () => send("tools/register", { tools: entries.map((e) => wireDefinition(e.definition, features)) }),
  );
}

/** `tools/unregister`: remove tools; unknown names are harmless. */
export function unregisterTools(catalog: ToolCatalog, send: Send, names: string[]): Promise<CatalogUpdate> {
  if (!Array.isArray(names) || names.length < 1 || names.length > MAX_CATALOG_TOOLS) throw new Error(`unregister needs 1..${MAX_CATALOG_TOOLS} tool names`);
  if (names.some((n) => typeof n !== "string" || n.trim() === "")) throw new Error("tool names must be non-blank strings");
  if (new Set(names).size !== names.length) throw new Error("tool names must be unique");
  return catalog.mutate(
    (current) => {
      const next = new Map(current);
      for (const name of names) next.delete(name);
      return next;
    },
    () => send("tools/unregister", { names: [...names] }),
  );
}

/** Argument checks for registerTools (spec §8.7): plain errors, nothing sent. */
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
