/**
 * Admission and the worker pool (spec §8.10). `admit` is a non-blocking
 * counter over running + queued work; `run` starts jobs FIFO with at most
 * `concurrency` running at once (1 on API 0.1, so requests are answered in order).
 */
export class Scheduler {
  private admitted = 0;
  private running = 0;
  private queue: (() => Promise<void>)[] = [];
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
    this.admitted--;
    if (this.admitted === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Admitted and not yet released. */
  get pending(): number {
    return this.admitted;
  }

  /** Queue a job for a worker. */
  run(job: () => Promise<void>): void {
    this.queue.push(job);
    this.startMore();
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
    while (this.running < this.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running++;
      void job().then(this.jobDone, this.jobDone);
    }
  }

  private readonly jobDone = (): void => {
    this.running--;
    this.startMore();
  };
}
