/**
 * Where a handler works (`ctx.workspace`, `ctx.scratch`): the directories
 * octet names in the request context, the initialize params and the process
 * environment (docs/protocol-0.2.md §1.5, §3, §3.1).
 */
import type { JsonObject } from "./types.ts";

/**
 * The active workspace root: the request's `context.workspace`, else the
 * `workspace` of initialize (requests without a context, such as shutdown),
 * else `OCTET_WORKSPACE`, else the working directory (octet starts the
 * process there).
 */
export function workspaceOf(context: JsonObject, initializeParams: JsonObject | undefined): string {
  if (typeof context.workspace === "string" && context.workspace !== "") return context.workspace;
  const initial = initializeParams?.workspace;
  if (typeof initial === "string" && initial !== "") return initial;
  return process.env.OCTET_WORKSPACE || process.cwd();
}

/**
 * `OCTET_EXTENSION_SCRATCH`: the host-owned directory of this process
 * generation, where relative artifact paths resolve. Throws outside a host.
 */
export function scratchDirectory(): string {
  const dir = process.env.OCTET_EXTENSION_SCRATCH;
  if (!dir) throw new Error("ctx.scratch: OCTET_EXTENSION_SCRATCH is not set; octet and the test host set it, so run the extension under one (TestHost, octet-extension call)");
  return dir;
}
