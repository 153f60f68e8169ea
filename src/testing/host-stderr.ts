/**
 * What the test host keeps of an extension's stderr: the latest lines in a
 * bounded {@link StderrWindow}, and, when strict, a violation for every
 * unstructured line and for every line octet would cut. The first
 * {@link LISTED_STDERR_VIOLATIONS} are listed; the rest are counted in one
 * last entry, so a flood of bad lines cannot grow the list either.
 */
import { checkStderrLine, type LinePart, longStderrLine } from "./stderr-reader.ts";
import { StderrWindow } from "./stderr-window.ts";

export const LISTED_STDERR_VIOLATIONS = 100;

export class HostStderr {
  readonly window: StderrWindow;
  private count = 0;
  private summaryAt = -1;

  constructor(
    lines: string[],
    private readonly violations: string[],
    private readonly strict: boolean,
    windowLimit?: number,
  ) {
    this.window = new StderrWindow(lines, windowLimit);
  }

  /** One line (or piece of a long one) as read. */
  line(line: string, part: LinePart): void {
    this.window.push(line);
    if (!this.strict || part === "more") return;
    const violation = part === "first" ? longStderrLine(line) : checkStderrLine(line);
    if (violation) this.violation(violation);
  }

  private violation(message: string): void {
    const n = ++this.count;
    if (n <= LISTED_STDERR_VIOLATIONS) this.violations.push(message);
    else {
      const summary = `${n - LISTED_STDERR_VIOLATIONS} more unstructured stderr lines (not listed)`;
      if (this.summaryAt === -1) this.summaryAt = this.violations.push(summary) - 1;
      else this.violations[this.summaryAt] = summary;
    }
  }
}
