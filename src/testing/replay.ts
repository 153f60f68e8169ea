/**
 * Record and replay (docs/tools.md "Record and replay"): a session's frames,
 * saved by `TestHost.saveTranscript`, become a golden test. Replay starts the
 * current build, plays the host's side in the recorded order (each host frame
 * waits until the extension has written as many frames as it had before it
 * in the recording), answers the extension's requests with the recorded
 * replies, and compares the extension's frames with the recording after
 * normalising what legitimately varies: the ids of the extension's own
 * requests (renumbered by order) and timing fields.
 */
import { isObject, type JsonRecord } from "../check.ts";
import { readFileSync } from "node:fs";
import type { TestHostOptions } from "./host-options.ts";
import type { TranscriptEntry } from "./transcript.ts";
import { writePrivateFile } from "./private-file.ts";
import { checkRecording, type RecordedOptions, TranscriptError } from "./recording-check.ts";
import { redactSecrets } from "./secret-redaction.ts";

/** What `saveTranscript` writes: one JSON object. */
export interface RecordedSession {
  format: "octet-transcript/1";
  extension: { name: string; api_version: string };
  /** What the host offered (offer, flags, octet version); nothing else, and never what runs. */
  options: RecordedOptions;
  frames: { from: "host" | "extension"; text: string }[];
}

/** One difference between the recording and the replay. */
export interface ReplayDifference {
  /** Index among the extension's frames. */
  index: number;
  expected: string | undefined;
  actual: string | undefined;
}

/** Write a recording readable only by its owner (0600), atomically. */
export function writeRecording(path: string, session: RecordedSession): void {
  writePrivateFile(path, `${JSON.stringify(session, null, 1)}\n`);
}

/** Read and check a recording: it is untrusted input (throws {@link TranscriptError}). */
export function readRecording(path: string): RecordedSession {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new TranscriptError(`${path}: not a transcript (${(error as Error).message.split("\n")[0]})`);
  }
  return { format: "octet-transcript/1", ...checkRecording(path, parsed) };
}

const TIMING_KEY = /(^|_)(ms|at|time|timestamp|duration|elapsed)$|^timestamp/i;

/**
 * Extension frames made comparable: its own request ids become `ext-1`,
 * `ext-2`… by first appearance (in requests, and in the host's replies to
 * them), and timing fields become `"<time>"`.
 */
export function normaliseFrames(entries: readonly { from: string; text: string }[]): string[] {
  const ids = new Map<string, string>();
  const idOf = (id: unknown) => {
    const key = JSON.stringify(id);
    if (!ids.has(key)) ids.set(key, `ext-${ids.size + 1}`);
    return ids.get(key)!;
  };
  const out: string[] = [];
  for (const entry of entries) {
    if (entry.from !== "extension") continue;
    let frame: unknown;
    try {
      frame = JSON.parse(entry.text);
    } catch {
      out.push(entry.text);
      continue;
    }
    if (isObject(frame) && typeof frame.method === "string" && "id" in frame) frame.id = idOf(frame.id);
    out.push(JSON.stringify(scrub(frame)));
  }
  return out;
}

function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (!isObject(value)) return value;
  const out: JsonRecord = {};
  for (const [key, item] of Object.entries(value)) out[key] = TIMING_KEY.test(key) && typeof item === "number" ? "<time>" : scrub(item);
  return out;
}

/** The recorded host replies to the extension's requests, by method, in order. */
export function recordedReplies(frames: RecordedSession["frames"]): Map<string, JsonRecord[]> {
  const methodOf = new Map<string, string>();
  const replies = new Map<string, JsonRecord[]>();
  for (const entry of frames) {
    const frame = parse(entry.text);
    if (!frame) continue;
    if (entry.from === "extension" && typeof frame.method === "string" && "id" in frame) methodOf.set(JSON.stringify(frame.id), frame.method);
    if (entry.from === "host" && !("method" in frame) && methodOf.has(JSON.stringify(frame.id))) {
      const method = methodOf.get(JSON.stringify(frame.id))!;
      if (!replies.has(method)) replies.set(method, []);
      replies.get(method)!.push(frame);
    }
  }
  return replies;
}

export function parse(text: string): JsonRecord | undefined {
  try {
    const value = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Compare normalised frame lists; the first differences, up to `limit`. */
export function compareFrames(expected: string[], actual: string[], limit = 5): ReplayDifference[] {
  const differences: ReplayDifference[] = [];
  for (let i = 0; i < Math.max(expected.length, actual.length) && differences.length < limit; i++) {
    if (expected[i] !== actual[i]) differences.push({ index: i, expected: expected[i], actual: actual[i] });
  }
  return differences;
}

/** Entries as recorded (for `TestHost.saveTranscript`), secret answers replaced by a placeholder. */
export function recordable(entries: readonly TranscriptEntry[]): RecordedSession["frames"] {
  return redactSecrets(entries.map((entry) => ({ from: entry.from, text: entry.text })));
}

/** What `TestHost.saveTranscript` writes: the host-offer facts of `options` and every frame, secret answers replaced. */
export function sessionRecording(extension: { name: string; api_version: string }, options: TestHostOptions, entries: readonly TranscriptEntry[]): RecordedSession {
  const { offer, flags, octetVersion } = options;
  return {
    format: "octet-transcript/1",
    extension: { name: extension.name, api_version: extension.api_version },
    options: { ...(offer ? { offer } : {}), ...(flags ? { flags } : {}), ...(octetVersion ? { octetVersion } : {}) },
    frames: recordable(entries),
  };
}
