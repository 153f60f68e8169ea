import { existsSync, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { redactSecrets, TestHost } from "octet-extension/testing";
import { type Answer, CALL_KINDS } from "./call-kinds.ts";
import { escapeControls } from "./terminal-text.ts";

/** How `call` runs and prints. */
export interface CallOptions {
  /** A line for stdout. */
  out: (line: string) => void;
  /** A line for stderr. */
  err: (line: string) => void;
  /** Save the session as a transcript here (`octet-extension replay FILE`). */
  record?: string;
  /** `OCTET_EXTENSION_SCRATCH`, kept across calls (created 0700 when missing); default a fresh one. */
  scratch?: string;
  /** Only the result's text on stdout; everything else goes to stderr. */
  quiet?: boolean;
  /** Print the frames even when the call went well. */
  frames?: boolean;
}

/**
 * `octet-extension call TOOL [JSON]` / `call /COMMAND [ARGS...]`: start the
 * extension as octet would, initialize it, make one call and print the
 * result's text, its other parts and the extension's log lines. The frames
 * are printed with `--frames`, and whenever the call failed: exit status 1
 * when the call was answered with an error, the tool answered
 * `is_error: true`, the extension exited non-zero, or octet would have killed
 * it; 2 for bad usage. What the extension wrote is printed with its controls
 * made visible and without the secrets it was given.
 */
export async function call(dir: string, args: string[], options: CallOptions): Promise<number> {
  const escaped = (print: (line: string) => void) => (line: string) => print(escapeControls(line));
  const out = escaped(options.out);
  const info = escaped(options.quiet ? options.err : options.out);
  const target = args[0];
  if (!target) {
    info(`usage: octet-extension ${CALL_KINDS.map((kind) => kind.usage).join(" | ")}`);
    return 2;
  }
  const invoke = CALL_KINDS.find((kind) => kind.matches(target))!.prepare(target, args.slice(1));
  if ("error" in invoke) {
    info(invoke.error);
    return 2;
  }
  const scratchError = options.scratch === undefined ? undefined : prepareScratch(options.scratch);
  if (scratchError) {
    info(scratchError);
    return 2;
  }
  const host = await TestHost.start(resolve(dir), { workspace: process.cwd(), ...(options.scratch === undefined ? {} : { scratch: options.scratch }) });
  let answer: Answer | undefined;
  const problems: string[] = [];
  try {
    await host.initialize();
    answer = await invoke(host);
    if (answer.failure) problems.push(answer.failure);
    const code = await host.shutdown();
    if (code !== 0) problems.push(`the extension exited with status ${code} after shutdown`);
  } catch (error) {
    problems.push((error as Error).message);
  } finally {
    host.kill();
    await host.exited;
  }
  const failed = problems.length > 0 || host.violations.length > 0;
  const dropped = host.stderrDropped.lines;
  const stderr = host.stderr.filter((line) => line.trim() !== "");
  if (options.frames || failed) {
    for (const entry of redactSecrets(host.transcript)) info(`${entry.from === "host" ? "→" : "←"} ${entry.text}`);
    if (dropped > 0) info(`  stderr (${dropped} earlier lines not kept: the test host keeps the latest 4 Mi characters)`);
    for (const line of stderr) info(`  stderr ${line}`);
  }
  // A text that ends its last line gets no second newline.
  if (answer && answer.text !== "") out(answer.text.endsWith("\n") ? answer.text.slice(0, -1) : answer.text);
  for (const detail of answer?.details ?? []) info(`  ${detail}`);
  if (!(options.frames || failed)) {
    if (dropped > 0) info(`  log (${dropped} earlier lines not kept)`);
    for (const line of stderr) info(`  ${logLine(line)}`);
  }
  // A recorded conversation is a golden test: `octet-extension replay FILE`.
  if (options.record !== undefined) {
    host.saveTranscript(options.record);
    info(`recorded ${host.transcript.length} frames to ${options.record}`);
  }
  for (const problem of problems) info(`! ${problem}`);
  for (const violation of host.violations) info(`! octet would kill the extension: ${violation}`);
  return failed ? 1 : 0;
}

/** Create `dir` (0700) when missing; a one-line error when it is not a directory. */
function prepareScratch(dir: string): string | undefined {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else if (!statSync(dir).isDirectory()) return `error: --scratch ${dir} is not a directory: name a directory (it is created when missing)`;
  return undefined;
}

/** A structured stderr record as `log LEVEL: MESSAGE {fields}`; any other line as `stderr LINE`. */
function logLine(line: string): string {
  try {
    const { level, message, ...fields } = JSON.parse(line) as Record<string, unknown>;
    if (typeof level === "string" && typeof message === "string") {
      return `log ${level}: ${message}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ""}`;
    }
  } catch {
    // not a record: shown as written
  }
  return `stderr ${line}`;
}
