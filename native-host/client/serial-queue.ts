/**
 * One task at a time, in the order they were queued: what a host that serves
 * one request at a time (docs/native-host-protocol.md §3 "Serial processing", §18 scenario 59)
 * needs in front of it. A task resolves its caller with a value as soon as it
 * has one (a run's handle, while the run goes on) and may hold the queue
 * until a promise of its own settles (the run's result).
 */

export interface Turn<T> {
  /** What the caller of {@link SerialQueue.enqueue} receives. */
  value: T;
  /** The next task starts once this settles (fulfilled or rejected). Default: at once. */
  holdUntil?: Promise<unknown>;
}

interface Waiting {
  started: boolean;
  dropped: boolean;
  reject(error: Error): void;
}

export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();
  private readonly waiting = new Set<Waiting>();
  private closedWith: Error | undefined;

  /** Tasks queued and not started yet. */
  get size(): number {
    return this.waiting.size;
  }

  /**
   * Queue `task`. It starts after every task queued before it has finished
   * (and released the queue). While it waits, aborting `signal` drops it:
   * the promise rejects with `aborted()` and the task never runs. Once it
   * started, the task itself is responsible for `signal`.
   */
  enqueue<T>(task: () => Promise<Turn<T>>, signal: AbortSignal | undefined, aborted: () => Error): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (signal?.aborted) return Promise.reject(aborted());
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = { started: false, dropped: false, reject };
      const onAbort = () => this.drop(entry, aborted());
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.add(entry);
      const previous = this.tail;
      let release!: () => void;
      this.tail = new Promise<void>((done) => (release = done));
      void previous.then(async () => {
        signal?.removeEventListener("abort", onAbort);
        this.waiting.delete(entry);
        if (!entry.dropped) {
          entry.started = true;
          try {
            const turn = await task();
            resolve(turn.value);
            await turn.holdUntil?.then(
              () => undefined,
              () => undefined,
            );
          } catch (error) {
            reject(error as Error);
          }
        }
        release();
      });
    });
  }

  /** Refuse new tasks and drop the waiting ones with `error`; the task running now finishes. */
  close(error: Error): void {
    this.closedWith ??= error;
    for (const entry of [...this.waiting]) this.drop(entry, error);
  }

  /** Resolves once every task queued so far has finished. */
  idle(): Promise<void> {
    return this.tail;
  }

  private drop(entry: Waiting, error: Error): void {
    if (entry.started || entry.dropped) return;
    entry.dropped = true;
    this.waiting.delete(entry);
    entry.reject(error);
  }
}
