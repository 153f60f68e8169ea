import type { AsyncLocalStorage } from "node:async_hooks";
import type { RequestId } from "../wire/ids.ts";
import type { CancellationToken } from "./cancellation.ts";

/** What a running handler can see ambiently. */
export interface RequestScope {
  id: RequestId;
  method: string;
  token: CancellationToken;
  /** The request's params as the host sent them. */
  readonly params?: unknown;
  /** Run `callback` once the request's reply was handed to the writer (`succeeded`: a result, not an error or an `is_error` tool result). */
  afterReply?(callback: (succeeded: boolean, result: unknown) => void): void;
}

// Created on first use: loading node:async_hooks costs ~1 ms, which would
// otherwise land on every cold start before the initialize reply.
let storage: AsyncLocalStorage<RequestScope> | undefined;

/**
 * The scope of the handler whose synchronous part is running now: the same as the store then, read
 * without the store's lookup (a handler calling `ext.progress` in a loop asks once per event).
 */
export let running: RequestScope | undefined;

/** Run `fn(a, b, c)` with `scope` as the ambient host request (fixed arity: no rest array per request). */
export function runInScope<T>(scope: RequestScope, fn: () => T): T;
export function runInScope<A, T>(scope: RequestScope, fn: (a: A) => T, a: A): T;
export function runInScope<A, B, C, T>(scope: RequestScope, fn: (a: A, b: B, c: C) => T, a: A, b: B, c: C): T;
export function runInScope<T>(scope: RequestScope, fn: (a?: unknown, b?: unknown, c?: unknown) => T, a?: unknown, b?: unknown, c?: unknown): T {
  storage ??= new (require("node:async_hooks") as typeof import("node:async_hooks")).AsyncLocalStorage<RequestScope>();
  const outer = running;
  running = scope;
  try {
    return storage.run(scope, fn, a, b, c);
  } finally {
    running = outer;
  }
}

/** A worker-pool turn left a request's store entered (see {@link runEntered}). */
let entered = false;

/**
 * {@link runInScope} for the worker pool's turn: the store is entered rather than run, so nothing is
 * restored per request (`AsyncLocalStorage.run` was ~8% of a pipelined call while JSC warms up,
 * docs/performance.md). The store stays set after `fn` returns, while only the pool's own code runs,
 * until the next request's is entered or {@link leaveScope} ends it: before anything that must not
 * see the request (a handler's promise is awaited, after-reply callbacks run, the writer schedules a
 * flush: `FrameWriter`'s `detach`) and when the turn ends.
 */
export function runEntered<A, B, C, T>(scope: RequestScope, fn: (a: A, b: B, c: C) => T, a: A, b: B, c: C): T {
  storage ??= new (require("node:async_hooks") as typeof import("node:async_hooks")).AsyncLocalStorage<RequestScope>();
  storage.enterWith(scope);
  entered = true;
  const outer = running;
  running = scope;
  try {
    return fn(a, b, c);
  } finally {
    running = outer;
  }
}

/**
 * End a store {@link runEntered} left set: continuations made from here on see no request. Nothing
 * happens while a handler's synchronous part runs (it made the call, through a write): its later
 * continuations must keep its scope.
 */
export function leaveScope(): void {
  if (!entered || running !== undefined) return;
  entered = false;
  storage!.enterWith(undefined as unknown as RequestScope);
}

/** The host request whose handler is running, if any. */
export function currentScope(): RequestScope | undefined {
  return running ?? storage?.getStore();
}

/** Id of the host request being handled (`undefined` outside a handler). */
export function currentRequestId(): RequestId | undefined {
  return currentScope()?.id;
}

/**
 * Cancellation token of the host request being handled (`undefined` outside a
 * handler), like Python's `current_cancellation()`.
 */
export function currentCancellation(): CancellationToken | undefined {
  return currentScope()?.token;
}
