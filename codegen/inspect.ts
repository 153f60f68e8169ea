/**
 * `octet-extension inspect [--dir DIR]`: an interactive session with the
 * extension under the strict test host (docs/tools.md "Inspector"). It lists
 * tools and commands, calls them (Tab completes names; `call NAME` without
 * arguments fills in a skeleton from the schema to edit), shows every frame
 * as it passes (progress as a bar), cancels the running call on Ctrl-C, asks
 * you to answer the extension's confirmation, input, policy and secret
 * requests, and shows each violation of octet's rules as it happens.
 * Whatever the extension wrote is printed with its controls made visible, and
 * a secret typed in answer is neither echoed nor shown (docs/security.md).
 */
import type { JsonRecord } from "octet-extension/validation";
import { createInterface, type Interface } from "node:readline";
import { resolve } from "node:path";
import { KIND_HELP, kindRequest, kindWords } from "./inspect-kinds.ts";
import { MutableOutput } from "./mutable-output.ts";
import { sampleArguments } from "./sample-arguments.ts";
import { TabEndsRead } from "./tab-input.ts";
import { escapeControls } from "./terminal-text.ts";
import { SECRET_PLACEHOLDER, secretRedactor, TestHost, type TranscriptEntry } from "octet-extension/testing";

const HELP = `commands:
  tools                   list tools with their parameter schemas
  commands                list slash commands
  call NAME [JSON]        call a tool (without JSON: a skeleton from its schema to edit)
  /NAME [ARGS...]         run a slash command
${KIND_HELP}
  frames on|off           show or hide the frames as they pass (default on)
  help                    this list
  quit                    shut the extension down and leave (also Ctrl-D)
Ctrl-C cancels the running call; at the prompt, press it twice to leave.`;

/** Arguments to start editing from: every property, each value one `schema` accepts (sample-arguments.ts). */
export function skeleton(schema: unknown): unknown {
  return sampleArguments(schema ?? { type: "object" }, { optional: true })?.value ?? {};
}

/** A one-line progress bar for a `$/progress` status event. */
function progressBar(event: JsonRecord): string {
  const current = typeof event.current === "number" ? event.current : undefined;
  const total = typeof event.total === "number" && event.total > 0 ? event.total : undefined;
  const message = typeof event.message === "string" ? event.message : String(event.type ?? "");
  if (current === undefined || total === undefined) return `  … ${message}`;
  const width = 24;
  const filled = Math.min(width, Math.round((current / total) * width));
  return `  [${"#".repeat(filled)}${".".repeat(width - filled)}] ${current}/${total} ${message}`;
}

export async function inspect(dir: string, input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): Promise<number> {
  // Every line may quote the extension: its controls never reach the terminal.
  const print = (line: string) => output.write(`${escapeControls(line)}\n`);
  const host = await TestHost.start(resolve(dir), { workspace: process.cwd() });
  let tools: JsonRecord[] = [];
  let commands: JsonRecord[] = [];
  let showFrames = true;
  let running: number | undefined;
  let seenViolations = 0;
  let rl: Interface | undefined;
  const screen = new MutableOutput(output);
  const say = (line: string) => {
    // Keep the prompt below whatever arrives while it is shown.
    if (rl && running === undefined) output.write(`\r\x1b[K${escapeControls(line)}\n`);
    else print(line);
    if (rl && running === undefined) rl.prompt(true);
  };
  const redact = secretRedactor();
  host.watch((entry: TranscriptEntry) => {
    const frame = entry.frame;
    const text = redact(entry).text;
    if (frame?.method === "$/progress") say(progressBar(((frame.params as JsonRecord)?.event ?? {}) as JsonRecord));
    else if (showFrames) say(`${entry.from === "host" ? "→" : "←"} ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`);
    while (seenViolations < host.violations.length) say(`!! octet would kill the extension: ${host.violations[seenViolations++]}`);
  });
  // A violation is found after the line that caused it was recorded: look for new ones as well.
  const violationWatch = setInterval(() => {
    while (seenViolations < host.violations.length) say(`!! octet would kill the extension: ${host.violations[seenViolations++]}`);
  }, 100);
  const ask = (question: string): Promise<string> => new Promise((answer) => (rl ? rl.question(escapeControls(question), answer) : answer("")));
  /** Like `ask`, but nothing typed is drawn or kept in the history; the line shows the placeholder. */
  const askSecret = (question: string): Promise<string> =>
    new Promise((answer) => {
      if (!rl) return answer("");
      rl.question(escapeControls(question), (value) => {
        screen.muted = false;
        const history = (rl as unknown as { history?: string[] } | undefined)?.history;
        if (history?.[0] === value) history.shift();
        output.write(`${value === "" ? "" : SECRET_PLACEHOLDER}\n`);
        answer(value);
      });
      screen.muted = true; // after the question is drawn
    });
  host.onRequest("confirmation/request", async (params) => ({ confirmed: /^y(es)?$/i.test((await ask(`? confirm: ${String(params.prompt)}${params.detail ? ` (${String(params.detail)})` : ""} [y/N] `)).trim()) }));
  host.onRequest("input/request", async (params) => {
    const value = await (params.secret === true ? askSecret : ask)(`? input${params.secret ? " (secret)" : ""}: ${String(params.prompt)} (empty: cancel) `);
    return { value: value === "" ? null : value };
  });
  host.onRequest("policy/evaluate", async (params) => {
    const intent = (params.intent ?? {}) as JsonRecord;
    const answer = (await ask(`? policy: ${String(intent.kind)} ${String(intent.operation)} — allow, deny or ask [deny] `)).trim();
    return { decision: ["allow", "ask"].includes(answer) ? answer : "deny" };
  });
  host.onRequest("secret/get", async (params) => ({ value: await askSecret(`? secret ${String(params.name)}: `) }));

  try {
    const result = await host.initialize();
    tools = (result.tools ?? []) as JsonRecord[];
    commands = (result.commands ?? []) as JsonRecord[];
    const features = ((result.protocol as JsonRecord | undefined)?.features ?? []) as string[];
    print(`${host.manifest.name} · API ${String(result.api_version)}${features.length ? ` · ${features.join(", ")}` : ""}`);
    print(`tools: ${tools.map((t) => t.name).join(", ") || "none"} · commands: ${commands.map((c) => `/${String(c.name)}`).join(", ") || "none"} · type help`);
  } catch (error) {
    clearInterval(violationWatch);
    print(`initialize failed: ${(error as Error).message}`);
    host.kill();
    return 1;
  }

  const words = () => ["tools", "commands", "call ", "frames on", "frames off", "help", "quit", ...commands.map((c) => `/${String(c.name)}`), ...kindWords(host.manifest)];
  const keys = new TabEndsRead(input);
  rl = createInterface({
    input: keys,
    output: screen as unknown as NodeJS.WritableStream,
    prompt: "octet> ",
    terminal: true,
    completer: (line: string) => {
      if (line.startsWith("call ")) {
        const names = tools.map((t) => `call ${String(t.name)} `);
        const hits = names.filter((n) => n.startsWith(line));
        return [hits.length ? hits : names, line];
      }
      const hits = words().filter((w) => w.startsWith(line));
      return [hits.length ? hits : words(), line];
    },
  });
  let interrupts = 0;
  const closed = new Promise<void>((done) =>
    rl!.once("close", () => {
      rl = undefined; // what arrives from now on (the shutdown) is printed plainly
      keys.detach();
      done();
    }),
  );
  rl.on("SIGINT", () => {
    if (running !== undefined) {
      print(`^C cancelling request ${running}`);
      host.cancel(running, "cancelled in the inspector");
      return;
    }
    if (++interrupts >= 2) return rl!.close();
    say("(press Ctrl-C again or type quit to leave)");
  });
  const run = async (line: string): Promise<boolean> => {
    const text = line.trim();
    if (text === "") return true;
    interrupts = 0;
    if (text === "quit" || text === "exit") return false;
    if (text === "help") print(HELP);
    else if (text === "tools") for (const t of tools) print(`${String(t.name)}: ${String(t.description)}\n  ${JSON.stringify(t.parameters ?? { type: "object" })}`);
    else if (text === "commands") for (const c of commands) print(`/${String(c.name)}${c.usage ? ` (${String(c.usage)})` : ""}: ${String(c.description)}`);
    else if (text === "frames on" || text === "frames off") showFrames = text === "frames on";
    else if (text.startsWith("/")) {
      const [name, ...args] = text.slice(1).split(/\s+/);
      await track("command/execute", { name, arguments: args, context: host.executionContext() });
    } else if (text.startsWith("call ")) {
      const rest = text.slice(5).trim();
      const space = rest.indexOf(" ");
      const name = space === -1 ? rest : rest.slice(0, space);
      const tool = tools.find((t) => t.name === name);
      if (!tool) print(`no tool ${name}; tools: ${tools.map((t) => t.name).join(", ")}`);
      else if (space === -1) {
        // Fill the next line with a skeleton to edit.
        // Typed into the line as keys: a control in a schema default would act as one.
        setTimeout(() => rl!.write(escapeControls(`call ${name} ${JSON.stringify(skeleton(tool.parameters))}`)), 0);
      } else {
        let args: unknown;
        try {
          args = JSON.parse(rest.slice(space + 1));
        } catch (error) {
          print(`arguments are not JSON: ${(error as Error).message}`);
          return true;
        }
        await track("tool/call", { name, arguments: args, context: host.executionContext({ execution_scope: `inspect-${host.peekNextId()}` }) });
      }
    } else {
      const request = kindRequest(text, host);
      if (request === undefined) print(`unknown command ${JSON.stringify(text)}; type help`);
      else if ("error" in request) print(request.error);
      else await track(request.method, request.params);
    }
    return true;
  };
  const track = async (method: string, params: JsonRecord) => {
    running = host.peekNextId();
    const started = performance.now();
    try {
      const reply = await host.request(method, params);
      const ms = Math.round(performance.now() - started);
      print("error" in reply ? `= error ${JSON.stringify(reply.error)} (${ms} ms)` : `= ${JSON.stringify(reply.result)} (${ms} ms)`);
    } catch (error) {
      print(`= failed: ${(error as Error).message}`);
    } finally {
      running = undefined;
    }
  };
  rl.prompt();
  let busy: Promise<void> = Promise.resolve();
  rl.on("line", (line) => {
    // Keep reading while a call runs: Ctrl-C must reach the SIGINT handler, and answers reach rl.question.
    busy = busy.then(async () => {
      const goOn = await run(line);
      if (!goOn) return rl!.close();
      // Keys typed while the line ran are on the line already: keep the cursor after them.
      rl!.prompt(true);
    });
  });
  await closed;
  await busy;
  clearInterval(violationWatch);
  const code = await host.shutdown().catch((error: Error) => (print(`shutdown failed: ${error.message}`), -1));
  print(`extension exited with status ${code}`);
  for (const violation of host.violations.slice(seenViolations)) print(`!! octet would kill the extension: ${violation}`);
  return host.violations.length > 0 ? 1 : 0;
}
