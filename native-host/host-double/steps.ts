/**
 * Execution of scenario steps (see `scenario.ts`) for one request — or for
 * the preamble, which belongs to no request: its `event` steps carry no
 * request_id unless their envelope patch adds one, and count seq from 1.
 *
 * An `event` without `data` gets the default data of that type: in a run,
 * `accepted`/`started`/`settled`/`final_result` as the real host fills them
 * in for this run (see `run-data.ts`); else the context's default (hello
 * data, the catalog, `{accepted:true}`), else `{}`. Events of a run are
 * tallied (see `run-context.ts`), so an `accepted` event counts as written.
 * `defaultRun` and `accepted` need a run; elsewhere they are skipped with a
 * note on stderr. A step whose event was replaced by the outbound-oversize
 * protocol_error ends the request (`abandoned`).
 *
 * {@link runSteps} also counts the terminal events the steps wrote, so the
 * caller can warn about a script that ends a request with none or several.
 */
import { spawnChild } from "./children.ts";
import { defaultRun, type RunOutcome } from "./default-run.ts";
import type { EmitResult, EventWriter, Scope } from "./event-writer.ts";
import { exitAfterFlush } from "./exit.ts";
import { diagnostic, stderr, stdout } from "./output.ts";
import { emitRunEvent, type RunContext } from "./run-context.ts";
import { acceptedData, runEventData } from "./run-data.ts";
import type { Step } from "./scenario.ts";

export interface StepContext {
  scope: Scope;
  events: EventWriter;
  /** Present while serving a run. */
  run?: RunContext;
  /** Data of an `event` step that gives none, outside a run's lifecycle types. */
  defaultData: (type: string) => Record<string, unknown>;
}

export interface StepsResult {
  outcome: RunOutcome;
  /** Terminal events written (a replacement protocol_error counts). */
  terminals: number;
  /** A `raw` step wrote bytes whose events cannot be counted. */
  uncounted: boolean;
}

const TERMINAL_TYPES = new Set(["hello", "models", "shutdown", "final_result", "protocol_error"]);

export async function runSteps(steps: readonly Step[], ctx: StepContext): Promise<StepsResult> {
  const result: StepsResult = { outcome: "continue", terminals: 0, uncounted: false };
  for (const step of steps) {
    if ((await runStep(step, ctx, result)) === "abandoned") {
      result.outcome = "abandoned";
      break;
    }
  }
  return result;
}

/** Count a written (or replaced) event of `type`; "abandoned" when it was replaced. */
function counted(result: StepsResult, type: string, emitted: EmitResult): RunOutcome {
  if (emitted === "replaced" || TERMINAL_TYPES.has(type)) result.terminals++;
  return emitted === "written" ? "continue" : "abandoned";
}

async function runStep(step: Step, ctx: StepContext, result: StepsResult): Promise<RunOutcome> {
  if ("event" in step) {
    const run = ctx.run;
    const data = step.data ?? (run !== undefined ? runEventData(step.event, run) : undefined) ?? ctx.defaultData(step.event);
    const emitted =
      run !== undefined
        ? await emitRunEvent(run, step.event, data, step.envelope, step.splitAt)
        : await ctx.events.emit(ctx.scope, step.event, data, step.envelope, step.splitAt);
    const type = typeof step.envelope?.type === "string" ? step.envelope.type : step.event;
    return counted(result, type, emitted);
  }
  if ("defaultRun" in step) {
    if (ctx.run === undefined) return skip("defaultRun");
    result.terminals++; // It always ends with final_result (or a replacement protocol_error).
    return defaultRun(ctx.run, step.envPresence !== undefined ? envPresence(step.envPresence) : step.answer);
  }
  if ("accepted" in step) {
    if (ctx.run === undefined) return skip("accepted");
    return counted(result, "accepted", await emitRunEvent(ctx.run, "accepted", acceptedData(ctx.run.plan)));
  }
  if ("raw" in step) {
    result.uncounted = true;
    await ctx.events.raw(Buffer.from(step.raw, "utf8"), step.splitAt);
    return "continue";
  }
  if ("paddedEvent" in step) {
    await ctx.events.padded(ctx.scope, step.paddedEvent, step.bytes);
    if (TERMINAL_TYPES.has(step.paddedEvent)) result.terminals++;
    return "continue";
  }
  if ("stderr" in step) {
    await writeStderr(step.stderr, step.repeat ?? 1);
    return "continue";
  }
  if ("sleepMs" in step) {
    await Bun.sleep(step.sleepMs);
    return "continue";
  }
  if ("stall" in step) return stall();
  if ("exit" in step) return exitAfterFlush(step.exit);
  if ("signal" in step) {
    await stdout.drain();
    process.kill(process.pid, step.signal);
    // A handled signal exits from its handler; give it the chance to run.
    await Bun.sleep(50);
    return "continue";
  }
  const pid = spawnChild(step.spawn);
  await stderr.write(`child-pid ${pid}\n`);
  return "continue";
}

/** `NAME=set` / `NAME=unset` for each name, from the double's own environment (values never appear). */
function envPresence(names: readonly string[]): string {
  return names.map((name) => `${name}=${process.env[name] !== undefined ? "set" : "unset"}`).join(" ");
}

async function skip(name: string): Promise<RunOutcome> {
  await diagnostic(`scenario step ${name} needs a run; skipped`);
  return "continue";
}

/** Alive and silent until a signal ends the process. */
function stall(): Promise<never> {
  setInterval(() => undefined, 60_000);
  return new Promise<never>(() => undefined);
}

/** `text` × `repeat` on stderr in writes of about 1 MiB, each awaited (back-pressure). */
async function writeStderr(text: string, repeat: number): Promise<void> {
  const unit = Buffer.from(text, "utf8");
  if (unit.length === 0 || repeat <= 0) return;
  const perWrite = Math.max(1, Math.min(repeat, Math.floor((1024 * 1024) / unit.length)));
  const block = Buffer.alloc(unit.length * perWrite);
  for (let i = 0; i < perWrite; i++) unit.copy(block, i * unit.length);
  let left = repeat;
  while (left >= perWrite) {
    await stderr.write(block);
    left -= perWrite;
  }
  if (left > 0) await stderr.write(block.subarray(0, unit.length * left));
}
