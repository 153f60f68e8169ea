/**
 * A counting bound with first-come waiters: {@link SlotPool.take} resolves
 * once one of `capacity` slots is free, or with `false` once the pool was
 * closed (nothing taken then).
 */
export class SlotPool {
  private inUse = 0;
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(readonly capacity: number) {}

  get used(): number {
    return this.inUse;
  }

  async take(): Promise<boolean> {
    while (this.inUse >= this.capacity && !this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.closed) return false;
    this.inUse++;
    return true;
  }

  give(): void {
    this.inUse--;
    this.waiters.shift()?.();
  }

  /** Wake every waiter with `false`; later `take`s fail at once. */
  close(): void {
    this.closed = true;
    for (const wake of this.waiters.splice(0)) wake();
  }
}
