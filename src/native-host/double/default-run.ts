/**
 * The realistic events of a run (spec native-host §7.2, §8): `accepted`,
 * media loading (a failure ends the run with `final_result` error and
 * `sessionFile:""`, no `started`/`settled`), `started`, the answer as
 * `model_delta` chunks, one `model_step` with usage and cost, the session
 * entries appended, `settled`, `final_result`.
 */
import type { EmitResult, EventWriter, Scope } from "./events.ts";
import { mediaItems, mediaLoadError } from "./media.ts";
import { effectiveToolPolicy } from "./policy.ts";
import { appendEntries, sessionCost } from "./sessions.ts";
import { clipText, utf8Bytes } from "./text-rules.ts";
import type { RunPlan } from "./validate-run.ts";

/** What a run's steps share. */
export interface RunContext {
  plan: RunPlan;
  scope: Scope;
  events: EventWriter;
  acceptedWritten: boolean;
}

export type RunOutcome = "continue" | "abandoned";

const DELTA_MAX_BYTES = 64 * 1024;
const OUTPUT_MAX_BYTES = 256 * 1024;

/** `final_result` data of a run that failed before reaching the event loop (§9.2). */
export function earlyFailure(error: string): Record<string, unknown> {
  return { status: "error", output: "", error, filesChanged: [], toolCalls: 0, steps: 0, sessionFile: "" };
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

export async function writeAccepted(ctx: RunContext): Promise<RunOutcome> {
  ctx.acceptedWritten = true;
  return outcome(await ctx.events.emit(ctx.scope, "accepted", acceptedData(ctx.plan)));
}

function outcome(result: EmitResult): RunOutcome {
  return result === "written" ? "continue" : "abandoned";
}

/** The run as the real host performs it; `accepted` is skipped when a step already wrote it. */
export async function defaultRun(ctx: RunContext, answer?: string): Promise<RunOutcome> {
  const { plan, scope, events } = ctx;
  const request = plan.request;
  const emit = async (type: string, data: unknown) => outcome(await events.emit(scope, type, data));

  if (!ctx.acceptedWritten && (await writeAccepted(ctx)) === "abandoned") return "abandoned";
  const mediaError = mediaLoadError(
    mediaItems(request.media, request.imagePaths),
    plan.workspace,
    request.allowExternalPaths,
    plan.route,
  );
  if (mediaError !== undefined) return emit("final_result", earlyFailure(mediaError));

  if ((await emit("started", { model: request.model })) === "abandoned") return "abandoned";
  const text = answer ?? `You said: ${request.prompt}`;
  for (const chunk of splitAnswer(text)) {
    if ((await emit("model_delta", { channel: "text", text: chunk })) === "abandoned") return "abandoned";
  }

  const usage = usageFor(request.systemPrompt ?? "", request.prompt, text);
  const runCost = Math.ceil(usage.input_tokens * 1.25 + usage.output_tokens * 10);
  const previousCost = sessionCost(plan.session.path);
  const step = {
    step: 1,
    turn_usage: usage,
    run_usage: usage,
    session_cost_microdollars: previousCost + runCost,
    run_cost_microdollars: runCost,
  };
  if ((await emit("model_step", step)) === "abandoned") return "abandoned";

  const head = appendEntries(plan.session.path, [
    {
      type: "message",
      run_id: request.runId,
      message: { role: "user", text: request.prompt, display_text: request.promptDisplayText ?? null },
    },
    { type: "message", run_id: request.runId, message: { role: "assistant", text } },
    { type: "usage", run_id: request.runId, usage, cost_microdollars: runCost },
  ]);
  if ((await emit("settled", { status: "completed", head, error: "" })) === "abandoned") return "abandoned";
  return emit("final_result", {
    status: "completed",
    output: clipText(text, OUTPUT_MAX_BYTES),
    error: "",
    filesChanged: [],
    toolCalls: 0,
    steps: 1,
    sessionFile: plan.session.path,
  });
}

/** About three chunks, none over the 64 KiB delta bound, cut on character boundaries. */
export function splitAnswer(text: string): string[] {
  if (text === "") return [];
  const chars = Array.from(text);
  const pieces = Math.max(Math.min(3, chars.length), Math.ceil(utf8Bytes(text) / DELTA_MAX_BYTES) + 1);
  const size = Math.ceil(chars.length / pieces);
  const chunks: string[] = [];
  for (let i = 0; i < chars.length; i += size) pushBounded(chars.slice(i, i + size), chunks);
  return chunks;
}

/** Push `chars` as one chunk, halving it while it is over the delta bound. */
function pushBounded(chars: string[], chunks: string[]): void {
  const chunk = chars.join("");
  if (utf8Bytes(chunk) <= DELTA_MAX_BYTES || chars.length < 2) {
    chunks.push(chunk);
    return;
  }
  const half = Math.ceil(chars.length / 2);
  pushBounded(chars.slice(0, half), chunks);
  pushBounded(chars.slice(half), chunks);
}

/** A usage object (§7.2 keys) estimated at four bytes per token. */
function usageFor(system: string, prompt: string, answer: string): Record<string, number> & { input_tokens: number; output_tokens: number } {
  const input_tokens = 180 + Math.ceil((utf8Bytes(system) + utf8Bytes(prompt)) / 4);
  const output_tokens = Math.max(1, Math.ceil(utf8Bytes(answer) / 4));
  return {
    input_tokens,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    output_tokens,
    reasoning_tokens: 0,
    total_tokens: input_tokens + output_tokens,
  };
}
