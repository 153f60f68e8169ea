/**
 * `TestHost.replay`: a recorded session (`saveTranscript`) played against
 * the current build (docs/tools.md "Record and replay"). The host side is
 * played in the recorded order, each host frame once the extension has
 * written as many frames as it had before it; the extension's requests get
 * the recorded replies; its frames are compared with the recording after
 * {@link normaliseFrames}.
 */
import type { JsonRecord } from "../check.ts";
import type { TestHostOptions } from "./host-options.ts";
import { compareFrames, normaliseFrames, parse, readRecording, recordedReplies, type ReplayDifference } from "./replay.ts";
import { errorReply } from "./responders.ts";
import type { TestHost } from "./test-host.ts";

/** What a replay reports: `differences` is empty when the extension wrote what was recorded. */
export interface ReplayOutcome {
  differences: ReplayDifference[];
  frames: number;
  violations: string[];
}

/** Replay `recordingPath` against the extension in `manifestPath`, started by `start`. */
export async function replaySession(
  recordingPath: string,
  manifestPath: string,
  timeout: number,
  start: (manifestPath: string, options: TestHostOptions) => Promise<TestHost>,
): Promise<ReplayOutcome> {
  const recording = readRecording(recordingPath);
  // Only the host-offer facts come from the file; what runs is always the project's own entry point.
  const { offer, flags, octetVersion } = recording.options;
  const host = await start(manifestPath, { offer, flags, octetVersion, requestTimeoutMs: timeout });
  let exited = false;
  void host.exited.then(() => (exited = true));
  try {
    for (const [method, replies] of recordedReplies(recording.frames)) {
      host.onRequest(method, () => {
        const reply = replies.shift();
        if (!reply) return errorReply(-32603, `replay: no recorded reply left for ${method}`);
        const error = reply.error as JsonRecord | undefined;
        return error ? errorReply(error.code as number, error.message as string, error.data) : reply.result;
      });
    }
    const extensionRequests = new Set(
      recording.frames
        .filter((f) => f.from === "extension")
        .map((f) => parse(f.text))
        .filter((f): f is JsonRecord => f !== undefined && typeof f.method === "string" && "id" in f)
        .map((f) => JSON.stringify(f.id)),
    );
    const caughtUp = async (count: number) => {
      const deadline = performance.now() + timeout;
      while (host.extensionFrames().length < count && !exited && performance.now() < deadline) await Bun.sleep(5);
    };
    let extensionBefore = 0;
    const pending: Promise<unknown>[] = [];
    for (const entry of recording.frames) {
      if (entry.from === "extension") {
        extensionBefore++;
        continue;
      }
      const frame = parse(entry.text);
      if (frame && !("method" in frame) && extensionRequests.has(JSON.stringify(frame.id))) continue; // the responders answer these
      await caughtUp(extensionBefore);
      if (exited) break;
      if (frame?.method === "initialize" && typeof frame.id === "number") pending.push(host.initialize(frame.params as JsonRecord).catch(() => undefined));
      else if (frame && typeof frame.method === "string" && typeof frame.id === "number") pending.push(host.request(frame.method, frame.params, { id: frame.id }).catch(() => undefined));
      else if (frame && typeof frame.method === "string" && !("id" in frame)) host.notify(frame.method, frame.params);
      else host.sendRaw(entry.text);
    }
    await caughtUp(extensionBefore);
    await Promise.race([Promise.all(pending), Bun.sleep(timeout)]);
    await Promise.race([host.exited, Bun.sleep(2_500)]);
    const expected = normaliseFrames(recording.frames);
    const actual = normaliseFrames(host.transcript);
    return { differences: compareFrames(expected, actual), frames: expected.length, violations: [...host.violations] };
  } finally {
    host.kill();
  }
}
