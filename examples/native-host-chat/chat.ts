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
 *     --timeout SEC     give up after this many seconds
 *
 * Ctrl-C cancels the run (the host's process group is terminated).
 */
import { parseArgs } from "node:util";
import { dirname, resolve } from "node:path";
import { HostSpawnError, minimalEnv, NativeHost, type RunEvent, type RunResult } from "../../src/native-host/index.ts";

const DOUBLE = resolve(import.meta.dir, "../../src/bin/octet-host-double");

const { values, positionals } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    host: { type: "string" },
    double: { type: "boolean", default: false },
    model: { type: "string" },
    workspace: { type: "string" },
    session: { type: "string" },
    timeout: { type: "string" },
  },
  allowPositionals: true,
});

const prompt = positionals.join(" ");
if (prompt === "") {
  process.stderr.write("usage: chat.ts [--host PATH | --double] [--model ID] [--workspace DIR] [--session ID] [--timeout SEC] <prompt>\n");
  process.exit(2);
}

const workspace = resolve(values.workspace ?? process.cwd());
const env = minimalEnv();
if (values.double) {
  // The double runs on Bun (the one running this example) and takes its script from OCTET_HOST_DOUBLE_*.
  env.PATH = `${dirname(process.execPath)}:${env.PATH ?? ""}`;
  for (const [name, value] of Object.entries(process.env)) if (name.startsWith("OCTET_HOST_DOUBLE_") && value !== undefined) env[name] = value;
}

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
  host = await NativeHost.launch({ path: values.double ? DOUBLE : (values.host ?? "octet-host"), cwd: workspace, env });
} catch (error) {
  const hint = error instanceof HostSpawnError ? "\n(install octet-host, pass --host PATH, or try --double)" : "";
  process.stderr.write(`native-host-chat: ${(error as Error).message}${hint}\n`);
  process.exit(1);
}
let exitCode = 0;
try {
  const model = values.model ?? (await host.models({ offline: true }))[0]?.id;
  if (!model) throw new Error("the host lists no models; pass --model");
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout) * 1000;
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new Error(`--timeout must be a positive number of seconds (got ${JSON.stringify(values.timeout)})`);
  const run = host.run({ workspace, model, prompt, session_id: values.session, allow_file_mutation: false }, { timeoutMs });
  const cancel = () => void run.cancel();
  process.once("SIGINT", cancel);
  let deltas = 0;
  for await (const event of run) {
    if (event.type === "model_delta" && event.data.channel === "text") {
      deltas++;
      status.done();
      process.stdout.write(event.data.text);
    } else if (event.type === "client.discard_provisional" && event.data.text) {
      process.stdout.write(`\n[discarded ${event.data.text.length} characters of a replaced attempt]\n`);
    }
    const line = describe(event, deltas);
    if (line) status.set(line);
  }
  status.done();
  const result = await run.result.finally(() => process.off("SIGINT", cancel));
  process.stdout.write(result.text.endsWith("\n") ? "" : "\n");
  if (result.status !== "completed") process.stderr.write(`run ${result.status}: ${result.error}\n`);
  process.stderr.write(`${usageLine(result)}\n`);
  if (result.sessionFile) process.stderr.write(`session: ${result.sessionFile}\n`);
  exitCode = result.status === "completed" ? 0 : 1;
  await host.shutdown();
} catch (error) {
  status.done();
  process.stderr.write(`native-host-chat: ${(error as Error).message}\n`);
  await host.kill();
  exitCode = 1;
}
process.exit(exitCode);
