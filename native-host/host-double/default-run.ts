/**
 * The realistic events of a run (docs/native-host-protocol.md §7.2, §8): `accepted`
 * (unless a step already wrote it), media loading (a failure ends the run
 * with `final_result` error and `sessionFile:""`, no `started`/`settled`),
 * `started`, the answer as `model_delta` chunks of at most 64 KiB, one
 * `model_step` with usage and cost, the session entries appended,
 * `settled`, `final_result`.
 */
import { MODEL_DELTA_MAX_BYTES } from "./limits.ts";
import { mediaItems, mediaLoadError } from "./media.ts";
import { emitRunEvent, type RunContext } from "./run-context.ts";
import { acceptedData, completedResult, earlyFailure } from "./run-data.ts";
import { appendEntries, sessionCost } from "./session-store.ts";
import { utf8Bytes } from "./text-rules.ts";

export type RunOutcome = "continue" | "abandoned";

/** The run as the real host performs it; `accepted` is skipped when a step already wrote it. */
export async function defaultRun(ctx: RunContext, answer?: string): Promise<RunOutcome> {
  const { plan } = ctx;
  const request = plan.request;
  const emit = async (type: string, data: unknown): Promise<RunOutcome> =>
    (await emitRunEvent(ctx, type, data)) === "written" ? "continue" : "abandoned";

  if (!ctx.tally.acceptedWritten && (await emit("accepted", acceptedData(plan))) === "abandoned") return "abandoned";
  const mediaError = mediaLoadError(mediaItems(request.media, request.imagePaths), plan.workspace, request.allowExternalPaths, plan.route);
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
    step: ctx.tally.steps + 1,
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
  return emit("final_result", completedResult(ctx));
}

/** About three chunks, none over the 64 KiB delta bound, cut on character boundaries. */
function splitAnswer(text: string): string[] {
  if (text === "") return [];
  const chars = Array.from(text);
  const pieces = Math.max(Math.min(3, chars.length), Math.ceil(utf8Bytes(text) / MODEL_DELTA_MAX_BYTES) + 1);
  const size = Math.ceil(chars.length / pieces);
  const chunks: string[] = [];
  for (let i = 0; i < chars.length; i += size) pushBounded(chars.slice(i, i + size), chunks);
  return chunks;
}

/** Push `chars` as one chunk, halving it while it is over the delta bound. */
function pushBounded(chars: string[], chunks: string[]): void {
  const chunk = chars.join("");
  if (utf8Bytes(chunk) <= MODEL_DELTA_MAX_BYTES || chars.length < 2) {
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
