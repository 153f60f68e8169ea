/** How a wait for a slot ended. */
export type SlotOutcome = "taken" | "closed" | "aborted";

interface Waiter {
  settle(outcome: SlotOutcome): void;
}

/**
 * A counting bound. {@link SlotPool.tryTake} takes a free slot at once (so a
 * caller that finds one writes its frame in the same tick); otherwise
 * {@link SlotPool.take} queues the caller, and {@link SlotPool.give} hands the
 * freed slot straight to the longest waiter, so no newcomer can overtake it.
 * A waiter whose signal aborts leaves the queue at once; closing the pool
 * wakes every waiter with `"closed"`.
 */
export class SlotPool {
  private inUse = 0;
  private readonly waiters: Waiter[] = [];
  private closed = false;

  constructor(readonly capacity: number) {}

  get used(): number {
    return this.inUse;
  }

  /** Take a free slot now; false when none is free or the pool is closed. */
  tryTake(): boolean {
    if (this.closed || this.inUse >= this.capacity) return false;
    this.inUse++;
    return true;
  }

  /** Wait for a slot (first come, first served). */
  take(signal?: AbortSignal): Promise<SlotOutcome> {
    if (this.closed) return Promise.resolve("closed");
    if (signal?.aborted) return Promise.resolve("aborted");
    if (this.tryTake()) return Promise.resolve("taken");
    return new Promise((resolve) => {
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index === -1) return;
        this.waiters.splice(index, 1);
        resolve("aborted");
      };
      const waiter: Waiter = {
        settle: (outcome) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(outcome);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Release a slot: it passes to the longest waiter, if any. */
  give(): void {
    const next = this.waiters.shift();
    if (next) next.settle("taken");
    else this.inUse--;
  }

  /** Wake every waiter with `"closed"`; later takes fail at once. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.settle("closed");
  }
}
