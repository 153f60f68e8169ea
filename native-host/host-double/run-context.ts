/**
 * What the steps of one run share (docs/native-host-protocol.md §7.3, §8): the plan,
 * the request's scope, and a tally of the events written so far — whether
 * `accepted` was written, the text of the last committed assistant turn
 * (`model_delta` text committed by `model_step`, dropped by
 * `provider_retry`/`candidate_rejected`), and the step and tool-call
 * counts — from which the default `final_result` of a scripted run is made.
 */
import type { EmitResult, EventWriter, Scope } from "./event-writer.ts";
import type { EnvelopePatch } from "./scenario.ts";
import type { RunPlan } from "./validate-run.ts";

interface RunTally {
  acceptedWritten: boolean;
  /** Text deltas since the last `model_step`. */
  provisional: string;
  /** Text of the last committed turn. */
  output: string;
  steps: number;
  toolCalls: number;
}

export interface RunContext {
  plan: RunPlan;
  scope: Scope;
  events: EventWriter;
  tally: RunTally;
}

export function newRunContext(plan: RunPlan, scope: Scope, events: EventWriter): RunContext {
  return { plan, scope, events, tally: { acceptedWritten: false, provisional: "", output: "", steps: 0, toolCalls: 0 } };
}

function observe(tally: RunTally, type: string, data: unknown): void {
  const fields = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
  switch (type) {
    case "accepted":
      tally.acceptedWritten = true;
      break;
    case "model_delta":
      if (fields.channel === "text" && typeof fields.text === "string") tally.provisional += fields.text;
      break;
    case "model_step":
      tally.output = tally.provisional;
      tally.provisional = "";
      tally.steps++;
      break;
    case "provider_retry":
    case "candidate_rejected":
      tally.provisional = "";
      break;
    case "tool_start":
      tally.toolCalls++;
  }
}

/** Write the next event of the run and count it in the tally. */
export async function emitRunEvent(ctx: RunContext, type: string, data: unknown, patch?: EnvelopePatch, splitAt?: readonly number[]): Promise<EmitResult> {
  const result = await ctx.events.emit(ctx.scope, type, data, patch, splitAt);
  if (result === "written") observe(ctx.tally, type, data);
  return result;
}
