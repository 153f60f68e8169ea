/**
 * The host's environment (spec native-host §2): an explicit minimal set,
 * never the whole parent environment by default.
 */

const PASSED_WHEN_SET = ["SSL_CERT_FILE", "SSL_CERT_DIR", "TMPDIR", "TMP", "TEMP"];

/**
 * `HOME` and `PATH` from `from`, logging and backtraces off, and the TLS and
 * temporary-directory variables that are set. Add provider credentials
 * yourself when the host should see them.
 */
export function minimalEnv(from: Record<string, string | undefined> = process.env): Record<string, string> {
  const env: Record<string, string> = { RUST_BACKTRACE: "0", RUST_LOG: "off" };
  for (const name of ["HOME", "PATH", ...PASSED_WHEN_SET]) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
