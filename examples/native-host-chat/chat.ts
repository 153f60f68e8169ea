/**
 * native-host-chat: run one prompt through `octet-host` (native-host protocol
 * 1), stream the answer to stdout with a live status line on stderr, and print
 * usage at the end.
 *
 *   bun examples/native-host-chat/chat.ts [options] <prompt>
 *     --host PATH       octet-host executable (default: octet-host on PATH)
 *     --double          use the repository's host double instead (OCTET_HOST_DOUBLE_* passed through)
 *     --model ID        model id (default: the first of `models --offline`)
 *     --workspace DIR   workspace (default: the current directory)
 *     --session ID      continue or start this session
 *     --timeout SEC     give up after this many seconds (default 600; 0 = no limit)
 *     --env NAME        also pass the variable NAME to the host (repeatable)
 *
 * The host gets a minimal environment plus the provider credential variables
 * that are set (`PROVIDER_CREDENTIAL_VARS`: OPENAI_API_KEY, ANTHROPIC_API_KEY,
 * ...), so catalog models can authenticate; their values are masked in any
 * host stderr this prints. Ctrl-C cancels the run (the host's process group is
 * terminated).
 */
import { dirname, resolve } from "node:path";
import { HostSpawnError, minimalEnv, NativeHost, PROVIDER_CREDENTIAL_VARS, type RunEvent, type RunResult } from "octet-native-host";
import { hostDoublePath } from "octet-native-host/testing";
import { parseChatArgs, USAGE } from "./options.ts";

const DOUBLE = hostDoublePath;

const parsed = parseChatArgs(Bun.argv.slice(2));
if (!parsed.ok) {
  process.stderr.write(`${parsed.error ? `native-host-chat: ${parsed.error}\n` : ""}${USAGE}`);
  process.exit(2);
}
const options = parsed.options;

const workspace = resolve(options.workspace ?? process.cwd());
const env = minimalEnv(process.env, { providerCredentials: true, pass: options.env });
for (const name of options.env) if (process.env[name] === undefined) process.stderr.write(`native-host-chat: --env ${name} is not set; it is not passed\n`);
// Credentials and explicitly passed values are masked in host stderr the client surfaces.
const secrets = [...PROVIDER_CREDENTIAL_VARS, ...options.env].map((name) => env[name]).filter((value): value is string => value !== undefined);
if (options.double) {
  // The double runs on Bun (the one running this example) and takes its script from OCTET_HOST_DOUBLE_*.
  env.PATH = `${dirname(process.execPath)}:${env.PATH ?? ""}`;
  for (const [name, value] of Object.entries(process.env)) if (name.startsWith("OCTET_HOST_DOUBLE_") && value !== undefined) env[name] = value;
}

/** The answer on stdout; remembers whether the last line was ended, so an error never continues a partial line. */
const answer = (() => {
  let atLineStart = true;
  return {
    write(text: string) {
      if (text === "") return;
      process.stdout.write(text);
      atLineStart = text.endsWith("\n");
    },
    endLine() {
      if (!atLineStart) this.write("\n");
    },
  };
})();

/** A one-line status on stderr, redrawn in place on a terminal. */
const status = (() => {
  const live = process.stderr.isTTY === true;
  let last = "";
  return {
    set(text: string) {
      if (text === last) return;
      last = text;
      if (live) process.stderr.write(`\r\x1b[2K${text}`);
    },
    done() {
      if (live && last) process.stderr.write("\r\x1b[2K");
      last = "";
    },
  };
})();

function describe(event: RunEvent, deltas: number): string | undefined {
  switch (event.type) {
    case "accepted":
      return `accepted · ${event.data.resolved_model}`;
    case "started":
      return "thinking…";
    case "model_delta":
      return `streaming · ${deltas} deltas`;
    case "tool_start":
      return `tool ${event.data.toolName}…`;
    case "provider_retry":
      return `retrying (${event.data.attempt}/${event.data.max_attempts}) in ${event.data.delay_ms} ms`;
    case "provider_waiting_for_network":
      return `waiting for the network (attempt ${event.data.attempt})`;
    case "settled":
      return "finishing…";
    default:
      return undefined;
  }
}

function usageLine(result: RunResult): string {
  const u = result.usage;
  const approx = result.usageUncertain ? " (at least: usage uncertain)" : "";
  const tokens = u ? `${u.input_tokens} in, ${u.output_tokens} out, ${u.total_tokens} total tokens` : "no usage reported";
  const cost = result.runCostMicrodollars !== undefined ? ` · $${(result.runCostMicrodollars / 1e6).toFixed(6)}` : "";
  return `[${result.status}] ${tokens}${cost}${approx} · ${result.steps} step(s), ${result.toolCalls} tool call(s)`;
}

let host: NativeHost;
try {
  host = await NativeHost.launch({ path: options.double ? DOUBLE : (options.host ?? "octet-host"), cwd: workspace, env, secrets });
} catch (error) {
  const hint = error instanceof HostSpawnError ? "\n(install octet-host, pass --host PATH, or try --double)" : "";
  process.stderr.write(`native-host-chat: ${(error as Error).message}${hint}\n`);
  process.exit(1);
}
let exitCode = 0;
try {
  const model = options.model ?? (await host.models({ offline: true }))[0]?.id;
  if (!model) throw new Error("the host lists no models; pass --model");
  const run = host.run({ workspace, model, prompt: options.prompt, session_id: options.session, allow_file_mutation: false }, { timeoutMs: options.timeoutMs });
  const cancel = () => void run.cancel();
  process.once("SIGINT", cancel);
  let deltas = 0;
  try {
    for await (const event of run) {
      if (event.type === "model_delta" && event.data.channel === "text") {
        deltas++;
        status.done();
        answer.write(event.data.text);
      } else if (event.type === "client.discard_provisional" && event.data.text) {
        answer.write(`\n[discarded ${event.data.text.length} characters of a replaced attempt]\n`);
      }
      const line = describe(event, deltas);
      if (line) status.set(line);
    }
  } finally {
    process.off("SIGINT", cancel);
  }
  status.done();
  const result = await run.result;
  answer.endLine();
  if (result.status !== "completed") process.stderr.write(`run ${result.status}: ${result.error}\n`);
  process.stderr.write(`${usageLine(result)}\n`);
  if (result.sessionFile) process.stderr.write(`session: ${result.sessionFile}\n`);
  exitCode = result.status === "completed" ? 0 : 1;
  await host.shutdown();
} catch (error) {
  status.done();
  answer.endLine();
  process.stderr.write(`native-host-chat: ${(error as Error).message}\n`);
  await host.kill();
  exitCode = 1;
}
process.exit(exitCode);
