/**
 * The environment variables through which `octet-host` finds provider
 * credentials (docs/native-host-protocol.md §2: "the normal provider-credential
 * variables used by the catalog resolvers"). Without `base_url`, a run's
 * model goes through those resolvers, so a host started with only
 * {@link minimalEnv}'s variables reaches no provider that authenticates
 * from the environment.
 *
 * The list is the union, over two stored revisions of octet's built-in
 * provider declarations, of the variables a provider authenticates from (or
 * builds its base URL from, for Cloudflare's account and gateway ids).
 * Passing a variable the installed host does not read is harmless. Values
 * are only ever copied into the host's environment, never logged.
 *
 * Credentials octet finds elsewhere need nothing from the environment:
 * `~/.octet/credentials/` (under `HOME`, which {@link minimalEnv} passes)
 * and the one-time Codex CLI import from `~/.codex/auth.json`. Provider
 * settings outside this list (for example `AWS_SESSION_TOKEN` for temporary
 * AWS keys, or Google application-default credentials) are passed by name
 * with `minimalEnv(from, { pass: [...] })`.
 *
 * The client masks credentials it put into the host's environment
 * ({@link credentialValues}) wherever it shows the host's stderr.
 */

/** Provider credential variables octet's host reads, in octet's provider order. */
export const PROVIDER_CREDENTIAL_VARS: readonly string[] = Object.freeze([
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_OAUTH_TOKEN",
  "DEEPSEEK_API_KEY",
  "OPENROUTER_API_KEY",
  "GROQ_API_KEY",
  "CEREBRAS_API_KEY",
  "XAI_API_KEY",
  "TOGETHER_API_KEY",
  "FIREWORKS_API_KEY",
  "NVIDIA_API_KEY",
  "HF_TOKEN",
  "MOONSHOT_API_KEY",
  "XIAOMI_API_KEY",
  "MINIMAX_API_KEY",
  "GEMINI_API_KEY",
  "OPENCODE_API_KEY",
  "MISTRAL_API_KEY",
  "CLOUDFLARE_API_KEY",
  "CLOUDFLARE_ACCOUNT_ID",
  "CLOUDFLARE_GATEWAY_ID",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_PROFILE",
  "AWS_REGION",
  "AZURE_OPENAI_API_KEY",
  "KIMI_API_KEY",
  "MINIMAX_CN_API_KEY",
  "AI_GATEWAY_API_KEY",
  "XIAOMI_TOKEN_PLAN_AMS_API_KEY",
  "XIAOMI_TOKEN_PLAN_CN_API_KEY",
  "XIAOMI_TOKEN_PLAN_SGP_API_KEY",
  "BASETEN_API_KEY",
  "QWEN_TOKEN_PLAN_API_KEY",
  "QWEN_TOKEN_PLAN_CN_API_KEY",
  "ZAI_CODING_CN_API_KEY",
]);

/**
 * The provider credential variables of {@link PROVIDER_CREDENTIAL_VARS} that
 * are set (and non-empty) in `from`.
 *
 * @example
 * const host = await NativeHost.launch({ env: { ...minimalEnv(), ...providerEnv() } });
 */
export function providerEnv(from: Record<string, string | undefined> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PROVIDER_CREDENTIAL_VARS) {
    const value = from[name];
    if (value !== undefined && value !== "") env[name] = value;
  }
  return env;
}

/** Provider settings that are not secrets (a profile name, a region): not masked. */
const NOT_SECRET = new Set(["AWS_PROFILE", "AWS_REGION"]);
/** A variable name with a credential word as one of its `_` parts (`API_KEY`, `AWS_SESSION_TOKEN`, `DB_PASSWORD`). */
const CREDENTIAL_NAME = /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|AUTH)(?:_|$)/i;

/**
 * The values in `env` that are credentials, to mask in what the client shows
 * of the host's stderr: those of {@link PROVIDER_CREDENTIAL_VARS} (except
 * `AWS_PROFILE` and `AWS_REGION`) and of any variable whose name has a
 * credential word (`KEY`, `TOKEN`, `SECRET`, `PASSWORD`, … as a `_` part).
 */
export function credentialValues(env: Record<string, string | undefined>): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || NOT_SECRET.has(name)) continue;
    if (PROVIDER_CREDENTIAL_VARS.includes(name) || CREDENTIAL_NAME.test(name)) values.push(value);
  }
  return values;
}
