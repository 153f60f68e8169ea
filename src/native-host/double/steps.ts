/**
 * Execution of scenario steps (see `scenario.ts`) for one request — or for
 * the preamble, which belongs to no request: its `event` steps carry no
 * request_id unless their envelope patch adds one, and count seq from 1.
 *
 * An `event` without `data` gets the default data of that type for the
 * current context (hello data, the catalog, `{accepted:true}`), else `{}`.
 * `defaultRun` and `accepted` need a run; elsewhere they are skipped with a
 * note on stderr. A step whose event was replaced by the outbound-oversize
 * protocol_error ends the request (`abandoned`).
 */
import { defaultRun, writeAccepted, type RunContext, type RunOutcome } from "./default-run.ts";
import type { EventWriter, Scope } from "./events.ts";
import { diagnostic, stderr, stdout } from "./output.ts";
import type { Step } from "./scenario.ts";
import { spawnChild } from "./signals.ts";

export interface StepContext {
  scope: Scope;
  events: EventWriter;
  /** Present while serving a run. */
  run?: RunContext;
  /** Data of an `event` step that gives none. */
  defaultData: (type: string) => Record<string, unknown>;
}

export async function runSteps(steps: readonly Step[], ctx: StepContext): Promise<RunOutcome> {
  for (const step of steps) {
    if ((await runStep(step, ctx)) === "abandoned") return "abandoned";
  }
  return "continue";
}

/** Let pending writes reach the kernel, then exit. */
export async function exitAfterFlush(code: number): Promise<never> {
  await stdout.drain();
  await stderr.drain();
  process.exit(code);
}

async function runStep(step: Step, ctx: StepContext): Promise<RunOutcome> {
  if ("event" in step) {
    const result = await ctx.events.emit(ctx.scope, step.event, step.data ?? ctx.defaultData(step.event), step.envelope, step.splitAt);
    return result === "written" ? "continue" : "abandoned";
  }
  if ("defaultRun" in step) {
    if (ctx.run === undefined) return skip("defaultRun");
    return defaultRun(ctx.run, step.answer);
  }
  if ("accepted" in step) {
    if (ctx.run === undefined) return skip("accepted");
    return writeAccepted(ctx.run);
  }
  if ("raw" in step) {
    await ctx.events.raw(Buffer.from(step.raw, "utf8"), step.splitAt);
    return "continue";
  }
  if ("paddedEvent" in step) {
    await ctx.events.padded(ctx.scope, step.paddedEvent, step.bytes);
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
  if ("spawn" in step) {
    const pid = spawnChild(step.spawn);
    await stderr.write(`child-pid ${pid}\n`);
    return "continue";
  }
  await diagnostic(`unknown scenario step ${JSON.stringify(step)}`);
  return "continue";
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
