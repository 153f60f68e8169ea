/**
 * native-host-chat, supervised: one conversation read from stdin, a prompt
 * per line, each answered in turn in the same host session. It shows what
 * `Supervisor` adds to `NativeHost`: prompts are queued as soon as they are
 * read (the host serves one request at a time), a run that fails (a crash, a
 * cancel, a timeout) is reported and the next prompt continues the same
 * session on a relaunched host, and every host stderr line goes to the log.
 *
 *   bun examples/native-host-chat/supervised.ts [options] < prompts.txt
 *     --host PATH | --double, --model ID, --workspace DIR, --session ID,
 *     --timeout SEC (per prompt; default 600, 0 = no limit), --env NAME
 *
 * Ctrl-C cancels the prompt being answered; the next one goes on. Exit status
 * 1 when any prompt failed.
 */
import { parseArgs } from "node:util";
import { dirname, resolve } from "node:path";
import { minimalEnv, PROVIDER_CREDENTIAL_VARS, Supervisor, type RunHandle } from "octet-native-host";
import { hostDoublePath } from "octet-native-host/testing";
import { DEFAULT_TIMEOUT_S, HOST_OPTIONS } from "./options.ts";

const DOUBLE = hostDoublePath;

/** A usage mistake: said once, exit 2. */
function usage(message: string): never {
  process.stderr.write(`native-host-chat: ${message}\nusage: supervised.ts [--host PATH | --double] [--model ID] [--workspace DIR] [--session ID] [--timeout SEC] [--env NAME]... < prompts\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    args: Bun.argv.slice(2),
    options: HOST_OPTIONS,
  }));
} catch (error) {
  usage((error as Error).message);
}

const workspace = resolve(values.workspace ?? process.cwd());
const timeoutS = Number(values.timeout ?? DEFAULT_TIMEOUT_S);
if (!Number.isFinite(timeoutS) || timeoutS < 0 || values.timeout?.trim() === "") usage(`--timeout must be a number of seconds, 0 for no limit (got ${JSON.stringify(values.timeout)})`);
let env: Record<string, string>;
try {
  env = minimalEnv(process.env, { providerCredentials: true, pass: values.env });
} catch (error) {
  usage((error as Error).message);
}
const secrets = [...PROVIDER_CREDENTIAL_VARS, ...values.env].map((name) => env[name]).filter((value): value is string => value !== undefined);
if (values.double) {
  env.PATH = `${dirname(process.execPath)}:${env.PATH ?? ""}`;
  for (const [name, value] of Object.entries(process.env)) if (name.startsWith("OCTET_HOST_DOUBLE_") && value !== undefined) env[name] = value;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const supervisor = new Supervisor({
  sessionId: values.session,
  launch: { path: values.double ? DOUBLE : (values.host ?? "octet-host"), cwd: workspace, env, secrets, onStderrLine: (line) => log(`host: ${line}`) },
  onLaunch: (host, models) => log(`[host ${host.pid} ready, ${models.length} models]`),
});

let current: RunHandle | undefined;
// Ctrl-C cancels the prompt being answered; between prompts it ends the conversation.
process.on("SIGINT", () => {
  if (current) void current.cancel();
  else void supervisor.close().finally(() => process.exit(130));
});

let failures = 0;
let turn = 0;
let sessionFile = "";
/** Print one queued prompt's answer; its failure is reported and the conversation goes on. */
async function answer(queued: Promise<RunHandle>): Promise<void> {
  const n = ++turn;
  let open = false;
  try {
    current = await queued;
    for await (const event of current) {
      if (event.type !== "model_delta" || event.data.channel !== "text" || event.data.text === "") continue;
      process.stdout.write(event.data.text);
      open = !event.data.text.endsWith("\n");
    }
    const result = await current.result;
    if (open) process.stdout.write("\n");
    if (result.sessionFile) sessionFile = result.sessionFile;
    if (result.status !== "completed") {
      failures++;
      log(`native-host-chat: turn ${n} ${result.status}: ${result.error}`);
    }
  } catch (error) {
    if (open) process.stdout.write("\n");
    failures++;
    log(`native-host-chat: turn ${n} failed: ${(error as Error).message.split("\n")[0]}`);
  } finally {
    current = undefined;
  }
}

let model = values.model;
if (model === undefined) {
  try {
    model = (await supervisor.models())[0]?.id;
  } catch (error) {
    log(`native-host-chat: ${(error as Error).message}`);
  }
  if (model === undefined) {
    await supervisor.close();
    log("native-host-chat: no model to use; pass --model");
    process.exit(1);
  }
}
let printing = Promise.resolve();
for await (const line of console) {
  if (line.trim() === "") continue;
  // Queued now, answered in order: the supervisor sends it once the previous prompt is done.
  const queued = supervisor.run({ workspace, model, prompt: line, allow_file_mutation: false }, { timeoutMs: timeoutS > 0 ? timeoutS * 1000 : undefined });
  queued.catch(() => {});
  printing = printing.then(() => answer(queued));
}
await printing;
await supervisor.close();
if (sessionFile) log(`session: ${sessionFile}`);
process.exit(failures > 0 ? 1 : 0);
