/**
 * Errors the author fixes. The CLI prints each as one line (no stack unless
 * `--debug`): where (file, key or line:column), what is wrong, and the fix.
 */

/** A problem in the author's project that the tooling reports instead of crashing. */
export class ToolError extends Error {
  override name = "ToolError";
}

/** A problem in the author's `manifest.toml`: file, key (or line:column) and what to do. */
export class AuthorManifestError extends ToolError {
  // The name printed before this class was renamed; kept so output does not change.
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

/** @deprecated Use {@link AuthorManifestError}. */
export const ManifestError = AuthorManifestError;
/** @deprecated Use {@link AuthorManifestError}. */
export type ManifestError = AuthorManifestError;

/** How the manifest checks report a problem: throw an {@link AuthorManifestError} for `key`. */
export type ManifestFail = (key: string, problem: string, fix: string) => never;
