/** Options of `TestHost.start`. */
export interface TestHostOptions {
  /** Workspace root (cwd of the extension); default: a fresh temporary directory. */
  workspace?: string;
  /** The host's own environment, filtered as octet does (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** `octet_version` sent in initialize (default `"0.8.0"`). */
  octetVersion?: string;
  /** API 0.2 offer (default: required two, octet's five optional, limit 64). */
  offer?: { required?: string[]; optional?: string[]; maxConcurrentRequests?: number };
  /**
   * CLI flag values, as a user passes them to octet (`--dry-run`, `--depth 3`):
   * sent in `flag_values` over the manifest's defaults. Unknown flags and
   * values of the wrong type are refused.
   */
  flags?: Record<string, boolean | string | number>;
  /**
   * API 0.4: offer `bulk_objects_v1` with a private `local-file.v1` transfer
   * directory, as a host with bulk storage configured does (default false,
   * as octet without it). `TestHost.bulk` holds the committed blobs.
   */
  bulk?: boolean;
  /** API 0.3: offer `session_lifecycle` (octet does with a bound lifecycle service); the host answers with fresh session ids. */
  sessions?: boolean;
  /** API 0.3: offer `event_bus` (octet does with a configured bus); the host runs a tiny in-memory bus and grants a binding after initialize. */
  bus?: boolean;
  /**
   * Launch this command line instead of the manifest's `[entrypoint]` (as
   * the conformance check does for `-- CMD ARGS…`); it is resolved and staged
   * as octet stages an entry point.
   */
  entrypoint?: { command: string; args?: string[] };
  /** Timeout for each host request in ms (default 30 000, as octet). */
  requestTimeoutMs?: number;
  /** Add a `bun` to PATH when there is none (default true; false to test bundles that must not need Bun). */
  addBunToPath?: boolean;
  /** `OCTET_EXTENSION_SCRATCH` to use and keep (default: a fresh directory removed at exit). */
  scratch?: string;
  /** Treat non-JSON stderr lines as violations (octet 0.8.0 runtime contract; default true). */
  strictStderr?: boolean;
  /**
   * How much of the latest stderr `TestHost.stderr` keeps, in UTF-16 code
   * units with 64 more per line (default 4 Mi); older lines are dropped and
   * counted in `stderrDropped`. `Infinity` keeps everything.
   */
  stderrWindow?: number;
}
