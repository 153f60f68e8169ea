/** How a wait for a slot ended. */
export type SlotOutcome = "taken" | "closed" | "aborted";

interface Waiter {
  signal: AbortSignal | undefined;
  /** Settled; an aborted waiter stays in the queue like this until skipped or compacted. */
  ended: boolean;
  /** Resolve the waiter's promise; false when it had already ended (an abort left it in the queue). */
  settle(outcome: SlotOutcome): boolean;
}

/** Aborted entries are dropped from the queue once there are this many and they are half of it. */
const COMPACT_AT = 64;

/** The one abort listener a signal gets, and the waiters that share it. */
interface Watch {
  onAbort: () => void;
  waiters: Set<Waiter>;
}

/**
 * A counting bound. {@link SlotPool.tryTake} takes a free slot at once (so a
 * caller that finds one writes its frame in the same tick); otherwise
 * {@link SlotPool.take} queues the caller, and {@link SlotPool.give} hands the
 * freed slot straight to the longest waiter, so no newcomer can overtake it.
 * A waiter whose signal aborts ends at once (its queue entry is skipped when
 * its turn comes, or dropped when aborted entries make up half of a long
 * queue); closing the pool wakes every waiter with `"closed"`.
 *
 * Waiters that share a signal (every reverse request of one handler does)
 * share one abort listener: the engine's `addEventListener` checks for
 * duplicates, so one listener per waiter made 65,536 queued requests take
 * seconds.
 */
export class SlotPool {
  private inUse = 0;
  private queue: Waiter[] = [];
  private aborted = 0;
  private readonly watches = new Map<AbortSignal, Watch>();
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
      const waiter: Waiter = {
        signal,
        ended: false,
        settle: (outcome) => {
          if (waiter.ended) return false;
          waiter.ended = true;
          this.unwatch(waiter);
          waiter.signal = undefined;
          resolve(outcome);
          return true;
        },
      };
      this.watch(waiter);
      this.queue.push(waiter);
    });
  }

  /** Release a slot: it passes to the longest waiter still waiting, if any. */
  give(): void {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      if (next.settle("taken")) return;
      this.aborted--;
    }
    this.inUse--;
  }

  /** Wake every waiter with `"closed"`; later takes fail at once. */
  close(): void {
    this.closed = true;
    this.aborted = 0;
    for (const waiter of this.queue.splice(0)) waiter.settle("closed");
  }

  /** Queue entries, aborted ones not yet dropped included (for tests). */
  get queued(): number {
    return this.queue.length;
  }

  private watch(waiter: Waiter): void {
    const signal = waiter.signal;
    if (!signal) return;
    let watch = this.watches.get(signal);
    if (!watch) {
      const waiters = new Set<Waiter>();
      const onAbort = () => {
        for (const w of [...waiters]) if (w.settle("aborted")) this.aborted++;
        if (this.aborted >= COMPACT_AT && this.aborted * 2 >= this.queue.length) {
          this.queue = this.queue.filter((w) => !w.ended);
          this.aborted = 0;
        }
      };
      watch = { onAbort, waiters };
      this.watches.set(signal, watch);
      signal.addEventListener("abort", onAbort, { once: true });
    }
    watch.waiters.add(waiter);
  }

  private unwatch(waiter: Waiter): void {
    const signal = waiter.signal;
    const watch = signal && this.watches.get(signal);
    if (!watch) return;
    watch.waiters.delete(waiter);
    if (watch.waiters.size > 0) return;
    this.watches.delete(signal);
    signal.removeEventListener("abort", watch.onAbort);
  }
}
