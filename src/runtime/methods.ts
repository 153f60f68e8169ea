import { isObject } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { type ArgumentIssue, invalidArgumentsText } from "./arguments.ts";
import type { ToolCatalog } from "./catalog.ts";
import { failureReply, toolFailureText } from "./failure.ts";
import type { HostSession } from "./host-session.ts";
import type { Negotiated } from "./initialize.ts";
import { menuResult } from "./menu.ts";
import { unnamed } from "./refusals.ts";
import type { Registry, ToolEntry } from "./registry.ts";
import * as results from "./results.ts";
import { checkSessionLeaf, SESSION_HOOKS, sessionHookResult } from "./session-hooks.ts";
import type { HandlerContext, HookName, JsonObject, Surface } from "./types.ts";

/** What a host-method handler needs besides its request; made once per session. */
export interface MethodEnv {
  registry: Registry;
  negotiated: Negotiated;
  logger: Logger;
  /** Resolves `tool/call` (dynamic catalogs pin revisions, docs/protocol-0.2.md §8.7). */
  catalog: ToolCatalog;
  /** What `ctx.host` calls through. */
  host: HostSession;
}

/**
 * A host→extension request method handler (docs/protocol-0.2.md §3.2–§3.7). It returns the
 * result directly when the author's handler was synchronous, else a promise:
 * no async frame is spent per request on the common synchronous path.
 */
export type Method = (env: MethodEnv, params: unknown, ctx: HandlerContext) => unknown;

/** True for promises and other thenables an author's handler may return. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** Call `handler`, then `finish` its value; `failed` maps anything it throws or rejects with. */
function settleHandler(handler: () => unknown, finish: (value: unknown) => unknown, failed: (error: unknown) => unknown): unknown {
  let value: unknown;
  try {
    value = handler();
  } catch (error) {
    return failed(error);
  }
  return isThenable(value) ? Promise.resolve(value).then(finish, failed) : finish(value);
}

const notFound = (message: string) => new RpcError(ErrorCode.MethodNotFound, message);
const badParams = (message: string) => new RpcError(ErrorCode.InvalidParams, message);

function objectParams(method: string, params: unknown): JsonObject {
  if (!isObject(params)) throw badParams(`${method} params must be an object`);
  return params;
}

/** Run a handler, then `finish`; what it throws is mapped by `failureReply`, logged as `failure`. */
function guarded(env: MethodEnv, failure: string, fields: JsonObject, handler: () => unknown, finish: (value: unknown) => unknown): unknown {
  return settleHandler(handler, finish, (error) => {
    throw failureReply(error, env.logger, failure, fields);
  });
}

/** Refuse `name` unless `contributes[key]` lists it; an absent key means no check (docs/protocol-0.2.md §8.4). */
function requireDeclared(session: Negotiated, key: string, name: string, what: string): void {
  if (!(key in session.contributes)) return;
  const list = session.contributes[key];
  if (!Array.isArray(list) || !list.includes(name)) throw notFound(`${name} is not a declared ${what}`);
}

function toolSuccess(env: MethodEnv, tool: ToolEntry, value: unknown): unknown {
  return env.negotiated.api === "0.1" ? results.toolResult01(value) : toolSuccess02(env, tool, value);
}

/** {@link toolSuccess} on API 0.2/0.4 (its own function: a session takes one API's path only). */
function toolSuccess02(env: MethodEnv, tool: ToolEntry, value: unknown): unknown {
  // Text only (most results): no options object, no feature lookups.
  const plain = tool.definition.output_schema === undefined ? results.plainTextResult(value) : undefined;
  return plain !== undefined ? plain : anyToolResult02(env, tool, value);
}

function anyToolResult02(env: MethodEnv, tool: ToolEntry, value: unknown): unknown {
  const negotiated = env.negotiated;
  return results.toolResult02(value, { api: negotiated.api, outputSchema: tool.definition.output_schema, artifacts: negotiated.features.has("artifacts"), bulk: negotiated.features.has("bulk_objects_v1") });
}

function toolFailure(env: MethodEnv, tool: ToolEntry, error: unknown): unknown {
  return results.toolErrorResult(env.negotiated.api, toolFailureText(error, env.logger, tool.definition.name));
}

function invalidArguments(env: MethodEnv, tool: ToolEntry, issues: readonly ArgumentIssue[]): unknown {
  env.logger.warning("tool arguments rejected", { tool: tool.definition.name, issues: issues.length });
  return results.toolErrorResult(env.negotiated.api, invalidArgumentsText(tool.definition.name, issues));
}

// The hottest method: written out so that a synchronous handler costs no closures, its rare paths
// out of line (docs/design.md, "Hot functions").
const toolCall: Method = (env, raw, ctx) => {
  const tool = env.catalog.lookup(raw);
  const params = raw as JsonObject; // an object: lookup refuses anything else
  const args = params.arguments === undefined ? {} : params.arguments;
  const refused = tool.validate === undefined ? undefined : refusedArguments(env, tool, args);
  if (refused !== undefined) return refused;
  const value = callHandler(tool, args, ctx);
  // A failure and a promise in one call out of line: a call site that never runs counts against the function when
  // JSC decides whether it has run enough to optimise (docs/design.md, "Hot functions").
  if (value instanceof Threw || typeof (value as { then?: unknown } | null)?.then === "function") return toolFinished(env, tool, value);
  return toolSuccess(env, tool, value);
};

/** What a tool handler threw (made only when it throws; private to this module, so no handler returns one). */
class Threw {
  constructor(readonly error: unknown) {}
}

/** The handler's value, or a {@link Threw} (its own function: the `catch` would otherwise count against {@link toolCall}). */
function callHandler(tool: ToolEntry, args: unknown, ctx: HandlerContext): unknown {
  try {
    return tool.handler(args, ctx);
  } catch (error) {
    return new Threw(error);
  }
}

/** {@link toolCall}'s handler threw, or returned a promise. */
function toolFinished(env: MethodEnv, tool: ToolEntry, value: unknown): unknown {
  return value instanceof Threw ? toolFailure(env, tool, value.error) : toolSettled(env, tool, value as PromiseLike<unknown>);
}

/** For a tool with an argument schema: the error result when its arguments do not match, else undefined. */
function refusedArguments(env: MethodEnv, tool: ToolEntry, args: unknown): unknown {
  const issues = tool.validate!(args);
  return issues === null ? undefined : invalidArguments(env, tool, issues);
}

function toolSettled(env: MethodEnv, tool: ToolEntry, value: PromiseLike<unknown>): Promise<unknown> {
  return Promise.resolve(value).then(
    (resolved) => toolSuccess(env, tool, resolved),
    (error) => toolFailure(env, tool, error),
  );
}

const commandExecute: Method = (env, raw, ctx) => {
  const params = objectParams("command/execute", raw);
  const name = params.name;
  if (typeof name !== "string") throw unnamed("command/execute", "command", name);
  const command = env.registry.commands.get(name);
  if (!command) throw notFound(`unknown command: ${name}`);
  const args = params.arguments === undefined ? [] : params.arguments;
  if (!Array.isArray(args)) throw badParams("command arguments must be an array");
  return guarded(env, "command handler failed", { command: command.definition.name }, () => command.handler(args, ctx), results.commandResult);
};

/** octet typed hook fields (docs/protocol-0.2.md §3.4), allowed only for their own hook. */
const TYPED_HOOK_FIELDS: Partial<Record<HookName, string>> = {
  provider_retry: "provider_retry",
  before_persistence: "persistence_metadata",
  post_mutation: "post_mutation",
  cache_warming_decision: "cache_warming_decision",
  compaction_strategy: "compaction_frames",
};

const hookRun: Method = (env, raw, ctx) => {
  const params = objectParams("hook/run", raw);
  const hook = params.hook;
  if (typeof hook !== "string" || hook === "") throw badParams("hook must be a string");
  requireDeclared(env.negotiated, "hooks", hook, "hook");
  const handler = env.registry.hooks.get(hook as HookName);
  // octet fails a compaction that comes back without frames: say why here rather than there.
  if (!handler && hook === "compaction_strategy") throw new RpcError(ErrorCode.InternalError, "compaction_strategy is declared but no handler returns compaction_frames");
  if (!handler) return results.hookResult(null);
  const payload = params.payload === undefined ? {} : params.payload;
  if ((SESSION_HOOKS as readonly string[]).includes(hook)) {
    checkSessionLeaf(params);
    return guarded(env, "hook handler failed", { hook }, () => handler(payload as never, ctx), (value) => sessionHookResult(hook, value));
  }
  const typed = TYPED_HOOK_FIELDS[hook as HookName];
  return guarded(env, "hook handler failed", { hook }, () => handler(payload as never, ctx), (value) => results.hookResult(value, typed, payload));
};

const contextCollect: Method = (env, raw, ctx) => {
  const params = objectParams("context/collect", raw);
  if (env.negotiated.contributes.context !== true) throw notFound("context contributions are not declared");
  const handler = env.registry.contextHandler;
  if (!handler) return [];
  return guarded(env, "request handler failed", { method: "context/collect" }, () => handler(params as never, ctx), results.contextResult);
};

const statusCollect: Method = (env, raw, ctx) => {
  const params = objectParams("status/collect", raw);
  const surface = params.surface;
  if (typeof surface !== "string" || surface === "") throw badParams("status surface must be a string");
  requireDeclared(env.negotiated, "ui", surface, "ui");
  const handler = env.registry.statuses.get(surface as Surface);
  if (!handler) return null;
  return guarded(env, "request handler failed", { method: "status/collect" }, () => handler(params as never, ctx), results.statusResult);
};

const toolRender: Method = (env, raw, ctx) => {
  const params = objectParams("tool/render", raw);
  const name = params.name;
  if (typeof name !== "string" || name === "") throw badParams("renderer name must be a string");
  requireDeclared(env.negotiated, "tool_renderers", name, "tool_renderer");
  const handler = env.registry.renderers.get(name);
  if (!handler) return { segments: [] };
  return guarded(env, "request handler failed", { method: "tool/render" }, () => handler(params as never, ctx), results.renderResult);
};

const menuCollect: Method = (env, raw, ctx) => {
  const params = objectParams("menu/collect", raw);
  if (env.negotiated.contributes.menu !== true) throw notFound("menu/collect requires contributes.menu = true");
  const handler = env.registry.menuHandler;
  if (!handler) throw notFound("menu/collect: contributes.menu is true but no menu handler is registered; register one with ext.menu(handler) before ext.run()");
  const commands = [...env.registry.commands.keys()];
  return guarded(env, "menu handler failed", { method: "menu/collect" }, () => handler(params as never, ctx), (value) => menuResult(value, commands));
};

const shortcutExecute: Method = (env, raw, ctx) => {
  const params = objectParams("shortcut/execute", raw);
  const name = params.name;
  if (typeof name !== "string") throw unnamed("shortcut/execute", "shortcut", name);
  const handler = env.registry.shortcuts.get(name);
  if (!handler) throw notFound(`unknown shortcut: ${name}`);
  return guarded(env, "shortcut handler failed", { shortcut: name }, () => handler(params as never, ctx), results.commandResult);
};

/** `resource/dispose` (API 0.4, `resource_refs_v1`): the runtime runs the types' disposers. */
const resourceDispose: Method = (env, raw) => {
  if (!env.negotiated.features.has("resource_refs_v1")) throw notFound("resource/dispose requires negotiated resource_refs_v1");
  return env.registry.resources.dispose(raw);
};

/** The method serving host requests named `name`; `-32601` for any other. */
export function methodFor(name: string): Method {
  const method = METHODS.get(name);
  if (!method) throw notFound(`unknown method: ${name}`);
  return method;
}

/** Host request methods the runtime answers through the worker pool. */
const METHODS: ReadonlyMap<string, Method> = new Map([
  ["tool/call", toolCall],
  ["command/execute", commandExecute],
  ["hook/run", hookRun],
  ["context/collect", contextCollect],
  ["status/collect", statusCollect],
  ["tool/render", toolRender],
  ["menu/collect", menuCollect],
  ["shortcut/execute", shortcutExecute],
  ["resource/dispose", resourceDispose],
]);
