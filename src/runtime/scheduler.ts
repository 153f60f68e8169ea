import { leaveScope } from "./scope.ts";

/**
 * Admission and the worker pool (docs/protocol-0.2.md §8.10). `admit` is a non-blocking
 * counter over running + queued work; `run` starts jobs FIFO with at most
 * `concurrency` running at once (1 on API 0.1, so requests are answered in order).
 */
export class Scheduler {
  private admitted = 0;
  private running = 0;
  /** Queued jobs as pairs: the function, then its argument (no closure per request). */
  private queue: unknown[] = [];
  private head = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private concurrency: number,
    private readonly maxPending: number,
  ) {}

  /** Take an admission slot; false when `maxPending` are admitted already. */
  admit(): boolean {
    if (this.admitted >= this.maxPending) return false;
    this.admitted++;
    return true;
  }

  /** Give an admission slot back (when the reply was handed to the writer). */
  release(): void {
    if (--this.admitted === 0 && this.idleWaiters.length > 0) this.wakeIdle();
  }

  private wakeIdle(): void {
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Admitted and not yet released. */
  get pending(): number {
    return this.admitted;
  }

  /**
   * Queue a job for a worker; a job that returns no promise finished
   * synchronously. Jobs start from a microtask, never inside the caller, so
   * the reader only queues: every frame of a chunk is routed (a cancel
   * included) before any handler runs. `argument` is passed to `job`, so a caller can queue one
   * shared function per kind of job instead of a closure per job.
   */
  run<T>(job: (argument: T) => void | Promise<void>, argument: T): void;
  run(job: () => void | Promise<void>): void;
  run(job: (argument: unknown) => void | Promise<void>, argument?: unknown): void {
    this.queue.push(job, argument);
    if (!this.startScheduled) {
      this.startScheduled = true;
      queueMicrotask(this.startQueued);
    }
  }

  private startScheduled = false;
  private readonly startQueued = (): void => {
    this.startScheduled = false;
    this.startMore();
  };

  /** One more worker while an abandoned handler still holds its slot (see Connection.abandonStuck). */
  lend(): void {
    this.concurrency++;
    this.startMore();
  }

  /** The abandoned handler finished: its slot is the pool's again. */
  unlend(): void {
    this.concurrency--;
  }

  setConcurrency(concurrency: number): void {
    this.concurrency = concurrency;
    this.startMore();
  }

  /** Resolves once nothing is admitted, or after `timeoutMs`; true when idle. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.admitted === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      this.idleWaiters.push(done);
    });
  }

  private startMore(): void {
    const queue = this.queue;
    while (this.running < this.concurrency && this.head < queue.length) {
      const job = queue[this.head] as (argument: unknown) => void | Promise<void>;
      const argument = queue[this.head + 1];
      queue[this.head] = queue[this.head + 1] = undefined;
      this.head += 2;
      this.running++;
      let pending: void | Promise<void>;
      try {
        pending = job(argument);
      } catch {
        pending = undefined;
      }
      if (!pending) this.running--;
      else this.awaitJob(pending);
    }
    // A job may leave its request's scope entered (scope.ts `runEntered`): the turn ends it.
    leaveScope();
    // Drained: start the list over (a queue that keeps some jobs waiting is compacted once it is mostly spent).
    if (this.head === queue.length) {
      queue.length = 0;
      this.head = 0;
    } else this.compact();
  }

  // Out of line: the usual job is synchronous and the usual turn drains the queue (docs/design.md, "Hot functions").
  private awaitJob(pending: Promise<void>): void {
    pending.then(this.jobDone, this.jobDone);
  }

  private compact(): void {
    if (this.head < 1024 || this.head * 2 < this.queue.length) return;
    this.queue.splice(0, this.head);
    this.head = 0;
  }

  private readonly jobDone = (): void => {
    this.running--;
    this.startMore();
  };
}
