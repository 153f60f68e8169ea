/**
 * The `data` of a run's lifecycle events as the real host fills it in
 * (docs/native-host-protocol.md §7.2, §7.3, §9.2) — used by the default run and by
 * `event` steps of a run that give no `data`.
 */
import { FINAL_TEXT_MAX_BYTES } from "./limits.ts";
import { effectiveToolPolicy } from "./policy.ts";
import type { RunContext } from "./run-context.ts";
import { sessionHead } from "./session-store.ts";
import { clipText } from "./text-rules.ts";
import type { RunPlan } from "./validate-run.ts";

/** `final_result` data of a run that failed before or without reaching the event loop (§9.2). */
export function earlyFailure(error: string): Record<string, unknown> {
  return { status: "error", output: "", error: clipText(error, FINAL_TEXT_MAX_BYTES), filesChanged: [], toolCalls: 0, steps: 0, sessionFile: "" };
}

export function acceptedData(plan: RunPlan): Record<string, unknown> {
  return {
    model: plan.request.model,
    resolved_model: plan.route.resolvedModel,
    session_file: plan.session.path,
    registered_tools: plan.registeredTools,
    effective_tool_policy: effectiveToolPolicy(plan.request.allowFileMutation),
    extensions: [],
  };
}

/** `final_result` of a run that completed: the last committed turn's text and the counts so far. */
export function completedResult(ctx: RunContext): Record<string, unknown> {
  const { tally, plan } = ctx;
  return {
    status: "completed",
    output: clipText(tally.output, FINAL_TEXT_MAX_BYTES),
    error: "",
    filesChanged: [],
    toolCalls: tally.toolCalls,
    steps: tally.steps,
    sessionFile: plan.session.path,
  };
}

/** Default data of a lifecycle event of this run (a completed run), or undefined for other types. */
export function runEventData(type: string, ctx: RunContext): Record<string, unknown> | undefined {
  switch (type) {
    case "accepted":
      return acceptedData(ctx.plan);
    case "started":
      return { model: ctx.plan.request.model };
    case "settled":
      return { status: "completed", head: sessionHead(ctx.plan.session.path), error: "" };
    case "final_result":
      return completedResult(ctx);
    default:
      return undefined;
  }
}
