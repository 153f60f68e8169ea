/**
 * Errors the author fixes. The CLI prints each as one line (no stack unless
 * `--debug`): where (file, key or line:column), what is wrong, and the fix.
 */

/** A problem in the author's project that the tooling reports instead of crashing. */
export class ToolError extends Error {
  override name = "ToolError";
}

/** A manifest problem: file, key (or line:column) and what to do. */
export class ManifestError extends ToolError {
  override name = "ManifestError";
  constructor(
    readonly file: string,
    readonly key: string,
    readonly problem: string,
    readonly fix: string,
    /** 1-based line and column, for TOML syntax errors. */
    readonly position?: { line: number; column: number },
  ) {
    super(position ? `${file}:${position.line}:${position.column}: ${problem} (${fix})` : `${file}: ${key}: ${problem} (${fix})`);
  }
}
