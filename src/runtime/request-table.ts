import { isObject } from "../check.ts";
import { ErrorCode, RpcError, cancelledError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { WIRE_ERRORS } from "../protocol.ts";
import type { RequestId } from "../wire/ids.ts";
import { ActiveRequest } from "./active-request.ts";
import { failureReply } from "./failure.ts";
import { type MethodEnv, methodFor } from "./methods.ts";
import { RequestContext } from "./request-context.ts";
import type { Outcome, Replies } from "./replies.ts";
import type { Scheduler } from "./scheduler.ts";
import { leaveScope, runEntered } from "./scope.ts";

/** The narrow lookup `HostSession` has into the table (progress, the parent rule). */
export interface LiveRequests {
  /** The admitted request with `id` that is not yet answered. */
  get(id: RequestId): ActiveRequest | undefined;
}

/**
 * The admitted host requests of one connection (docs/protocol-0.2.md §8.5, §8.10): admission
 * (the pending bound, duplicate ids), running each through the method layer
 * on the worker pool, the one reply per request (`settle`), host
 * cancellation, and answering a handler that ignores its cancel.
 */
export class RequestTable implements LiveRequests {
  /**
   * Replaced by a new map whenever it empties: a JS `Map` that grows and shrinks again with every burst
   * keeps what it held alive through the young-generation collections, so a third of all frames reached
   * the old generation (docs/performance-log.md, "The request table's map").
   */
  private active = new Map<RequestId, ActiveRequest>();
  /** What the method layer needs; set once initialize succeeded (no request is admitted before). */
  private env: MethodEnv | undefined;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly replies: Replies,
    private readonly logger: Logger,
    private readonly cancelledReplyMs: number,
  ) {}

  /** Serve requests with the env `make` gives (after a successful initialize; made on the first request). */
  open(make: () => MethodEnv): void {
    this.makeEnv = make;
  }

  private makeEnv: (() => MethodEnv) | undefined;

  get(id: RequestId): ActiveRequest | undefined {
    return this.active.get(id);
  }

  /** Admit a request and queue it for a worker, or answer why not. */
  admit(id: RequestId, method: string, params: unknown): void {
    const admitted = this.scheduler.admit();
    if (!admitted || this.active.has(id)) return this.refuse(id, admitted);
    const request = new ActiveRequest(id, method, params);
    this.active.set(id, request);
    this.scheduler.run(this.executeQueued, request);
  }

  /** A full queue, or a duplicate of an unanswered id (which gives its admission slot back). */
  private refuse(id: RequestId, admitted: boolean): void {
    if (!admitted) {
      this.replies.write(id, { error: new RpcError(ErrorCode.ServerError, WIRE_ERRORS.queueFull) });
      return;
    }
    this.scheduler.release();
    this.replies.write(id, { error: new RpcError(ErrorCode.InvalidRequest, WIRE_ERRORS.duplicateId) });
  }

  /**
   * Run one admitted request to its reply. Synchronous when the handler is, so
   * the common path spends no promise; a promise otherwise (the scheduler waits).
   * A request answered or cancelled before its turn is skipped (`ended`: a plain
   * field, where `cancelled` is a getter). Its rare paths are out of line
   * (docs/design.md, "Hot functions").
   */
  private readonly executeQueued = (request: ActiveRequest): void | Promise<void> => {
    if (request.ended) return this.skip(request);
    let result: unknown;
    try {
      const method = methodFor(request.method);
      request.started = true;
      const env = this.env ?? this.openEnv();
      if (env.host.progressOn && typeof request.id === "number") request.progressSession = env.host;
      // `dispatch` and `isThenable` written out: each would otherwise be compiled on its own as well.
      result = runEntered(request, method, env, request.params, new RequestContext(request, env.host));
    } catch (error) {
      return this.concludeFailed(request, error);
    }
    if (typeof (result as { then?: unknown } | null)?.then !== "function") return this.conclude(request, { result });
    return this.concludeLater(request, result as PromiseLike<unknown>);
  };

  private openEnv(): MethodEnv {
    return (this.env = this.makeEnv!());
  }

  private concludeFailed(request: ActiveRequest, error: unknown): void {
    this.conclude(request, this.failed(request, error));
  }

  /** A request answered or cancelled before its turn: nothing to run (a cancelled one is answered `-32800`). */
  private skip(request: ActiveRequest): void {
    if (!request.settled) this.settle(request, { error: cancelledError(request.reason!) });
  }

  private concludeLater(request: ActiveRequest, result: PromiseLike<unknown>): Promise<void> {
    // The handler's own continuations carry its scope; the runtime's wait for them does not.
    leaveScope();
    return Promise.resolve(result).then(
      (value) => this.conclude(request, { result: value }),
      (error) => this.conclude(request, this.failed(request, error)),
    );
  }

  private failed(request: ActiveRequest, error: unknown): Outcome {
    return { error: failureReply(error, this.logger, "request handler failed", { method: request.method }) };
  }

  /** Commit the outcome, unless a cancel was seen first (docs/protocol-0.2.md §8.5). */
  private conclude(request: ActiveRequest, outcome: Outcome): void {
    if (request.abandoned || request.ended || "error" in outcome) return this.concludeOther(request, outcome);
    this.settle(request, outcome);
  }

  /** {@link conclude} for a failure, a cancelled request or an abandoned one (out of line: rare). */
  private concludeOther(request: ActiveRequest, outcome: Outcome): void {
    if (request.abandoned) {
      // Answered long ago (abandonStuck): give the lent worker slot back, write nothing.
      request.abandoned = false;
      this.scheduler.unlend();
      this.logger.info("cancelled handler finished after its reply", { method: request.method });
      return;
    }
    if (request.cancelled) outcome = { error: cancelledError(request.reason!) };
    if ("error" in outcome && outcome.error.code !== ErrorCode.RequestCancelled) {
      this.logger.error("request failed", { method: request.method, code: outcome.error.code, error: outcome.error.message });
    }
    this.settle(request, outcome);
  }

  /** Commit the one reply of `request` and free its admission slot; then run its after-reply callbacks. */
  private settle(request: ActiveRequest, outcome: Outcome): void {
    if (request.settled) return;
    request.settled = true;
    request.ended = true;
    this.active.delete(request.id);
    if (this.active.size === 0) this.active = new Map();
    const encoded = this.replies.write(request.id, outcome);
    this.scheduler.release();
    if (request.replied !== undefined) this.runReplied(request, request.replied, outcome, encoded);
  }

  /** The request's after-reply callbacks (`RequestScope.afterReply`). */
  private runReplied(request: ActiveRequest, replied: NonNullable<ActiveRequest["replied"]>, outcome: Outcome, encoded: boolean): void {
    leaveScope(); // the request is answered: the callbacks run outside it
    // A tool result with is_error is a failure of the operation, like an error reply.
    const succeeded = encoded && "result" in outcome && !(isObject(outcome.result) && outcome.result.is_error === true);
    const result = "result" in outcome ? outcome.result : undefined;
    for (const callback of replied.splice(0)) callback(succeeded, result);
  }

  /** The host cancelled request `id`; false when no unanswered request has it. */
  cancel(id: RequestId, reason: string): boolean {
    const request = this.active.get(id);
    if (!request || request.settled) return false;
    if (!request.cancelled) setTimeout(() => this.abandonStuck(request), this.cancelledReplyMs).unref();
    request.cancel(reason);
    return true;
  }

  /**
   * A cancelled request still unanswered after `cancelledReplyMs`: answer
   * `-32800` now, before octet's 2 s grace ends and it restarts the process,
   * and let the handler finish in the background. Its worker slot is lent to
   * the pool meanwhile, so one stuck tool does not stall the others.
   */
  private abandonStuck(request: ActiveRequest): void {
    if (request.settled || this.active.get(request.id) !== request) return;
    this.logger.warning("handler did not stop after cancellation: answered -32800, still running", { method: request.method, ms: this.cancelledReplyMs });
    if (request.started) {
      request.abandoned = true;
      this.scheduler.lend();
    }
    this.settle(request, { error: cancelledError(request.reason!) });
  }

  /** Cancel every unanswered request with `reason` (a drain deadline, the stop). */
  cancelAll(reason: string): void {
    for (const request of this.active.values()) request.cancel(reason);
  }

  /** Answer every unanswered request `-32800` with its own reason, else `fallback`. */
  settleAll(fallback: string): void {
    for (const request of [...this.active.values()]) this.settle(request, { error: cancelledError(request.reason ?? fallback) });
  }
}
