import { cancelledError } from "../errors.ts";

/**
 * Cooperative cancellation of one host request (docs/protocol-0.2.md §8.5). Backed by an
 * `AbortSignal`, so it composes with `fetch`, `Bun.spawn` and timers.
 *
 * @example
 * for (const item of items) {
 *   ctx.cancellation.throwIfCancelled();
 *   await ctx.cancellation.sleep(100);
 * }
 */
export class CancellationToken {
  // Created on first use: most requests never look at their signal.
  private declare controller: AbortController | undefined;
  private declare cancelReason: string | undefined;

  // Fields are assigned here, not declared with initialisers: a class field is defined by a separate
  // initialiser call on every construction, which the request path pays until the JIT inlines it.
  constructor() {
    this.controller = undefined;
    this.cancelReason = undefined;
  }

  /** Aborts when the request is cancelled; `signal.reason` is the `-32800` error. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelReason !== undefined) this.controller.abort(cancelledError(this.cancelReason));
    }
    return this.controller.signal;
  }

  get cancelled(): boolean {
    return this.cancelReason !== undefined;
  }

  /** The host's reason (`"user"`, `"timeout"`, `"shutdown"`, `"transport_lost"`, …), once cancelled. */
  get reason(): string | undefined {
    return this.cancelReason;
  }

  /** Throw the `-32800` error carrying the reason if the request was cancelled. */
  throwIfCancelled(): void {
    if (this.cancelReason !== undefined) throw cancelledError(this.cancelReason);
  }

  /** Sleep `ms` milliseconds; rejects with the `-32800` error as soon as the request is cancelled. */
  sleep(ms: number): Promise<void> {
    if (this.cancelReason !== undefined) return Promise.reject(cancelledError(this.cancelReason));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(cancelledError(this.cancelReason ?? "cancelled"));
      };
      const timer = setTimeout(() => {
        this.signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Resolve `true` when cancelled, or `false` after `timeoutMs` (wait forever when omitted). */
  wait(timeoutMs?: number): Promise<boolean> {
    if (this.cancelled) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
        this.signal.removeEventListener("abort", onAbort);
        resolve(false);
      }, timeoutMs);
      const onAbort = () => {
        if (timer) clearTimeout(timer);
        resolve(true);
      };
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Cancel (idempotent: the first reason sticks). Returns whether this call cancelled it. */
  cancel(reason: string): boolean {
    if (this.cancelReason !== undefined) return false;
    this.cancelReason = reason;
    this.controller?.abort(cancelledError(reason));
    return true;
  }
}
