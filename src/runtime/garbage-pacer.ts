/** Frame traffic between two young-generation collections by default (see docs/performance.md). */
export const GC_PACING_BYTES = 512 * 1024;

/**
 * Keeps the garbage that frame traffic leaves behind bounded. Left alone,
 * Bun's collector lets the decoded, parsed and encoded copies of every frame
 * pile up for a long time, and the allocator keeps the pages: peak memory then
 * follows traffic rather than live data. The reader asks {@link GarbagePacer.pace}
 * between reads with the bytes read and written so far; once `budget` bytes
 * have passed since the last collection it runs an eden (young-generation)
 * collection, which is cheap because it only visits what was allocated since.
 * It never runs inside a write, so replies are not delayed. A budget of 0 turns
 * pacing off.
 */
export class GarbagePacer {
  private collectedAt = 0;

  constructor(
    private readonly budget: number,
    private readonly collect: () => void = () => Bun.gc(false),
  ) {}

  /** `traffic`: bytes read plus bytes written since the start (monotonic). */
  pace(traffic: number): void {
    if (this.budget === 0 || traffic - this.collectedAt < this.budget) return;
    this.collectedAt = traffic;
    this.collect();
  }
}
