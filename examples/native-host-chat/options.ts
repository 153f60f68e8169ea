/**
 * The command line of native-host-chat: parsed and checked before anything
 * is started, so a mistake is a usage error (exit 2), never a stack trace.
 */
import { parseArgs } from "node:util";

/** Seconds a run may take unless `--timeout` says otherwise. */
export const DEFAULT_TIMEOUT_S = 600;

export const USAGE = `usage: chat.ts [options] <prompt>
  --host PATH       octet-host executable (default: octet-host on PATH)
  --double          use the repository's host double instead (OCTET_HOST_DOUBLE_* passed through)
  --model ID        model id (default: the first of \`models --offline\`)
  --workspace DIR   workspace (default: the current directory)
  --session ID      continue or start this session
  --timeout SEC     give up after SEC seconds (default ${DEFAULT_TIMEOUT_S}; 0 = no limit)
  --env NAME        also pass the environment variable NAME to the host (repeatable)
The host gets a minimal environment (HOME, PATH, TLS and temp settings) plus the
provider credential variables that are set (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).
Ctrl-C cancels the run (the host's process group is terminated).
`;

export interface ChatOptions {
  prompt: string;
  host?: string;
  double: boolean;
  model?: string;
  workspace?: string;
  session?: string;
  /** The run's deadline; undefined = none. */
  timeoutMs?: number;
  /** Variables passed by name with `--env`. */
  env: string[];
}

export type Parsed = { ok: true; options: ChatOptions } | { ok: false; error?: string };

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The options both examples take (chat.ts also takes the prompt as positionals). */
export const HOST_OPTIONS = {
  host: { type: "string" },
  double: { type: "boolean", default: false },
  model: { type: "string" },
  workspace: { type: "string" },
  session: { type: "string" },
  timeout: { type: "string" },
  env: { type: "string", multiple: true, default: [] as string[] },
} as const;

/** `argv` (without the runtime and script) as options, or why it is not usable (`error` absent: print the usage only). */
export function parseChatArgs(argv: string[]): Parsed {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: HOST_OPTIONS,
      allowPositionals: true,
    });
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const { values, positionals } = parsed;
  const prompt = positionals.join(" ");
  if (prompt === "") return { ok: false };
  const bad = values.env.find((name) => !VARIABLE_NAME.test(name));
  if (bad !== undefined) return { ok: false, error: `--env needs a variable name, such as HTTPS_PROXY (got ${JSON.stringify(bad)})` };
  const seconds = values.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(values.timeout);
  if (values.timeout?.trim() === "" || !Number.isFinite(seconds) || seconds < 0) {
    return { ok: false, error: `--timeout must be a number of seconds, 0 for no limit (got ${JSON.stringify(values.timeout)})` };
  }
  return {
    ok: true,
    options: {
      prompt,
      host: values.host,
      double: values.double,
      model: values.model,
      workspace: values.workspace,
      session: values.session,
      timeoutMs: seconds === 0 ? undefined : seconds * 1000,
      env: values.env,
    },
  };
}
