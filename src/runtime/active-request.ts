import type { RequestId } from "../wire/ids.ts";
import { CancellationToken } from "./cancellation.ts";
import type { HostSession } from "./host-session.ts";

/**
 * An admitted host request, from admission until its one reply is handed to
 * the writer. It is its own cancellation token and its own ambient scope
 * (one object per request on the hot path).
 */
export class ActiveRequest extends CancellationToken {
  settled = false;
  /** The handler was called. */
  started = false;
  /** Answered -32800 while its handler kept running; its worker slot was lent out (see `abandonStuck`). */
  abandoned = false;
  /** Last `$/progress` sequence sent for it (sequences start at 1). */
  progressSequence = 0;
  /** Cancelled or answered: no more progress (a plain field, read once per `$/progress`). */
  ended = false;
  /** The session that writes this request's `$/progress` fast (numeric id, `request_progress` negotiated); set when dispatched. */
  progressSession: HostSession | undefined;
  /** Callbacks for after the reply (see `RequestScope.afterReply`); rare, so made on first use. */
  replied: ((succeeded: boolean, result: unknown) => void)[] | undefined;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly params: unknown,
  ) {
    super();
  }

  afterReply(callback: (succeeded: boolean, result: unknown) => void): void {
    if (this.settled) throw new Error("the request has already been answered");
    (this.replied ??= []).push(callback);
  }

  override cancel(reason: string): boolean {
    this.ended = true;
    return super.cancel(reason);
  }

  /** The ambient-scope shape (`RequestScope`): the request is its own token. */
  get token(): CancellationToken {
    return this;
  }
}
