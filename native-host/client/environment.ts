/**
 * The host's environment (docs/native-host-protocol.md §2): an explicit minimal set,
 * never the whole parent environment by default.
 */
import { NativeHostError } from "./errors.ts";
import { providerEnv } from "./provider-credentials.ts";

const PASSED_WHEN_SET = ["SSL_CERT_FILE", "SSL_CERT_DIR", "TMPDIR", "TMP", "TEMP"];

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface MinimalEnvOptions {
  /** Also pass the provider credential variables that are set ({@link PROVIDER_CREDENTIAL_VARS}). Default false. */
  providerCredentials?: boolean;
  /** More variables to pass by name, when set in `from` (e.g. `AWS_SESSION_TOKEN`, a proxy setting). */
  pass?: readonly string[];
}

/**
 * `HOME` and `PATH` from `from`, logging and backtraces off, and the TLS and
 * temporary-directory variables that are set. With `providerCredentials`,
 * the provider credential variables that are set too; `pass` names more.
 * Values are copied, never logged.
 *
 * @example
 * const env = minimalEnv(process.env, { providerCredentials: true, pass: ["HTTPS_PROXY"] });
 * const host = await NativeHost.launch({ env });
 */
export function minimalEnv(from: Record<string, string | undefined> = process.env, options: MinimalEnvOptions = {}): Record<string, string> {
  const env: Record<string, string> = { RUST_BACKTRACE: "0", RUST_LOG: "off" };
  for (const name of options.pass ?? []) {
    if (!VARIABLE_NAME.test(name)) throw new NativeHostError(`minimalEnv: ${JSON.stringify(name)} is not an environment variable name (pass names; values come from \`from\`)`);
  }
  for (const name of ["HOME", "PATH", ...PASSED_WHEN_SET]) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  if (options.providerCredentials) Object.assign(env, providerEnv(from));
  for (const name of options.pass ?? []) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
