/** Pacing may take at most 1/50 (2%) of wall time: after a request that took t, none for 49·t. */
const COST_SHARE = 50;

/**
 * Keeps the garbage that long frames leave behind bounded. Left alone, Bun's
 * collector lets the decoded, parsed and encoded copies of long frames pile
 * up for a long time, and the allocators keep the pages: peak memory then
 * follows traffic rather than live data. Short frames (under 4 KiB) are not
 * counted: the collector's own schedule keeps their garbage bounded, and
 * pacing them only doubled the collections (docs/performance.md). The reader
 * reports the long-frame traffic so far (lines read + frames queued for the
 * writer, each at least `LONG_FRAME_LENGTH`) after each read; once `budget`
 * more has passed, the pacer asks Bun for a young-generation collection
 * (`Bun.gc(false)`, which also lets mimalloc return free pages) from a
 * macrotask, i.e. after the replies of that read's synchronous handlers were
 * handed to stdout. The request costs microseconds with a small heap but grows
 * with the live heap (~0.1 ms at 1M live objects, ~0.4 ms at 3M), so the pacer
 * also keeps its own cost under 2% of wall time. A budget of 0 turns it off,
 * as does a collector that throws.
 */
export class GarbagePacer {
  private collectedAt = 0;
  private notBefore = Number.NEGATIVE_INFINITY;
  private scheduled = false;

  constructor(
    private budget: number,
    private readonly collect: () => void = () => Bun.gc(false),
    private readonly schedule: (run: () => void) => void = (run) => void setImmediate(run),
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** `traffic`: the long frames' length read plus written since the start (monotonic). */
  pace(traffic: number): void {
    if (this.scheduled || this.budget === 0 || traffic - this.collectedAt < this.budget) return;
    this.scheduled = true;
    this.schedule(() => this.run(traffic));
  }

  private run(traffic: number): void {
    this.scheduled = false;
    const start = this.now();
    if (start < this.notBefore) return;
    this.collectedAt = traffic;
    try {
      this.collect();
    } catch {
      this.budget = 0;
      return;
    }
    this.notBefore = start + (this.now() - start) * COST_SHARE;
  }
}
