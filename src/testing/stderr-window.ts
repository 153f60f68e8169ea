/**
 * The latest stderr lines, bounded: each line costs its length in UTF-16
 * code units plus {@link LINE_COST}, and when the total passes `limit` the
 * oldest lines are dropped (in one batch, down to three quarters of the
 * limit; the newest line always stays) and counted. The kept lines are
 * a plain array, oldest first.
 */
export const LINE_COST = 64;

/** The default bound of {@link StderrWindow} (4 Mi units: about 30,000 typical log records). */
export const DEFAULT_STDERR_WINDOW = 4 * 1024 * 1024;

export class StderrWindow {
  /** What was dropped: lines, and their length in UTF-16 code units. */
  readonly dropped = { lines: 0, chars: 0 };
  private cost = 0;

  constructor(
    readonly lines: string[],
    private readonly limit = DEFAULT_STDERR_WINDOW,
  ) {}

  push(line: string): void {
    this.lines.push(line);
    this.cost += line.length + LINE_COST;
    if (this.cost > this.limit) this.trim();
  }

  private trim(): void {
    const target = Math.floor(this.limit * 0.75);
    let count = 0;
    let chars = 0;
    while (this.cost > target && count < this.lines.length - 1) {
      const length = this.lines[count]!.length;
      this.cost -= length + LINE_COST;
      chars += length;
      count++;
    }
    this.lines.splice(0, count);
    this.dropped.lines += count;
    this.dropped.chars += chars;
  }
}
