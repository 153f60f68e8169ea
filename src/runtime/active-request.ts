import type { RequestId } from "../wire/ids.ts";
import { CancellationToken } from "./cancellation.ts";
import type { HostSession } from "./host-session.ts";

/**
 * An admitted host request, from admission until its one reply is handed to
 * the writer. It is its own cancellation token and its own ambient scope
 * (one object per request on the hot path).
 */
export class ActiveRequest extends CancellationToken {
  declare readonly id: RequestId;
  declare readonly method: string;
  declare readonly params: unknown;
  declare settled: boolean;
  /** The handler was called. */
  declare started: boolean;
  /** Answered -32800 while its handler kept running; its worker slot was lent out (see `abandonStuck`). */
  declare abandoned: boolean;
  /** Last `$/progress` sequence sent for it (sequences start at 1). */
  declare progressSequence: number;
  /** Cancelled or answered: no more progress (a plain field, read once per `$/progress`). */
  declare ended: boolean;
  /** The session that writes this request's `$/progress` fast (numeric id, `request_progress` negotiated); set when dispatched. */
  declare progressSession: HostSession | undefined;
  /** Callbacks for after the reply (see `RequestScope.afterReply`); rare, so made on first use. */
  declare replied: ((succeeded: boolean, result: unknown) => void)[] | undefined;

  // Assigned here rather than as class fields (see `CancellationToken`): one of these is made per request.
  constructor(id: RequestId, method: string, params: unknown) {
    super();
    this.id = id;
    this.method = method;
    this.params = params;
    this.settled = false;
    this.started = false;
    this.abandoned = false;
    this.progressSequence = 0;
    this.ended = false;
    this.progressSession = undefined;
    this.replied = undefined;
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
