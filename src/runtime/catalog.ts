import { ErrorCode, RpcError } from "../errors.ts";
import { isObject } from "../check.ts";
import { MAX_CATALOG_TOOLS } from "../protocol.ts";
import { readUnsigned64 } from "../wire/json.ts";
import type { ToolEntry } from "./registry.ts";
import { unnamed } from "./refusals.ts";
import type { JsonObject } from "./types.ts";

/** Committed catalogs kept for revision-pinned calls (docs/protocol-0.2.md §8.7). */
const RETAINED_CATALOGS = 8;

/** The host's acknowledgement of a catalog mutation. */
export interface CatalogUpdate {
  revision: number;
  tools: string[];
}

/**
 * The tool catalog with its epochs (docs/protocol-0.2.md §4.11, §4.12, §8.7). Epoch 0 is the
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

  /**
   * Resolve `tool/call` params: an object first, revision checks next, then the name (docs/protocol-0.2.md §8.7).
   * (The object check is here rather than in the caller: one call site fewer that never runs in `toolCall`.)
   */
  lookup(params: unknown): ToolEntry {
    const name = isObject(params) ? params.name : undefined;
    const tool = typeof name === "string" && !("catalog_revision" in (params as JsonObject)) ? this.epochs.get(this.current)!.get(name) : undefined;
    return tool ?? this.lookupPinnedOrUnknown(params, name);
  }

  /** {@link lookup} with a pinned revision, or for a name that is not a current tool (out of line: see docs/design.md, "Hot functions"). */
  private lookupPinnedOrUnknown(params: unknown, name: unknown): ToolEntry {
    if (!isObject(params)) throw new RpcError(ErrorCode.InvalidParams, "tool/call params must be an object");
    const catalog = "catalog_revision" in params ? this.pinned(params) : this.epochs.get(this.current)!;
    const tool = typeof name === "string" ? catalog.get(name) : undefined;
    return tool ?? this.unknown(name);
  }

  private unknown(name: unknown): never {
    if (typeof name !== "string") throw unnamed("tool/call", "tool", name);
    throw new RpcError(ErrorCode.MethodNotFound, `unknown tool: ${name}`);
  }

  /** The catalog a `tool/call` pins with `catalog_revision` (docs/protocol-0.2.md §8.7). */
  private pinned(params: JsonObject): ReadonlyMap<string, ToolEntry> {
    if (!this.dynamic) throw new RpcError(ErrorCode.InvalidParams, "tool/call catalog_revision requires negotiated dynamic_tools");
    const revision = readUnsigned64(params, "catalog_revision");
    if (revision === undefined) throw new RpcError(ErrorCode.InvalidParams, "tool/call catalog_revision must be an unsigned 64-bit integer");
    const pinned = typeof revision === "number" ? this.epochs.get(revision) : undefined;
    const staged = this.staged !== undefined && revision === this.staged.revision ? this.staged.tools : undefined;
    const found = pinned ?? staged;
    if (!found) throw new RpcError(ErrorCode.InvalidParams, `unknown or retired tool catalog revision: ${revision.toString()}`);
    return found;
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
