/**
 * Event envelopes and the per-request `seq` counter (docs/native-host-protocol.md §7.1,
 * §8), and the outbound frame limit (§3, §9.4).
 *
 * An event is `{protocol_version:1, request_id, run_id?, session_id?, seq,
 * type, data}` written as one line with one write. An event that would
 * serialise to more than 1,048,575 bytes is never written: a
 * `protocol_error {error:"outbound event exceeded the protocol frame limit",
 * discarded_type}` takes its place, at the seq it would have had.
 */
import { MAX_EVENT_BYTES } from "./limits.ts";
import { diagnostic, type FdWriter } from "./output.ts";
import type { EnvelopePatch } from "./scenario.ts";

/** The request an event belongs to, and its seq counter. */
export interface Scope {
  /** What is being answered: a command, a line rejected before dispatch, or the preamble before any request. */
  kind: "hello" | "models" | "run" | "shutdown" | "rejected" | "preamble";
  requestId?: string;
  runId?: string;
  sessionId?: string;
  /** The seq the next event gets. */
  nextSeq: number;
}

export function newScope(kind: Scope["kind"], ids: Pick<Scope, "requestId" | "runId" | "sessionId"> = {}): Scope {
  const scope: Scope = { kind, nextSeq: 1 };
  if (ids.requestId !== undefined) scope.requestId = ids.requestId;
  if (ids.runId !== undefined) scope.runId = ids.runId;
  if (ids.sessionId !== undefined) scope.sessionId = ids.sessionId;
  return scope;
}

/** The envelope of the next event of `scope` (the counter is not moved). */
function envelope(scope: Scope, type: string, data: unknown, seq: number = scope.nextSeq): Record<string, unknown> {
  const env: Record<string, unknown> = { protocol_version: 1 };
  if (scope.requestId !== undefined) env.request_id = scope.requestId;
  if (scope.runId !== undefined) env.run_id = scope.runId;
  if (scope.sessionId !== undefined) env.session_id = scope.sessionId;
  env.seq = seq;
  env.type = type;
  env.data = data;
  return env;
}

/** Apply a step's envelope patch: `null` removes a field, anything else sets it. */
function patchEnvelope(env: Record<string, unknown>, patch: EnvelopePatch | undefined): Record<string, unknown> {
  if (patch === undefined) return env;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete env[key];
    else if (value !== undefined) env[key] = value;
  }
  return env;
}

/** Move the counter past an event whose seq was `seq` (or that had no usable seq). */
function advanceSeq(scope: Scope, seq: unknown): void {
  scope.nextSeq = typeof seq === "number" && Number.isSafeInteger(seq) ? seq + 1 : scope.nextSeq + 1;
}

export type EmitResult = "written" | "replaced";

export class EventWriter {
  constructor(private readonly out: FdWriter) {}

  /**
   * Write the next event of `scope`. Returns `replaced` when the event was
   * too large and the outbound-oversize protocol_error was written instead
   * (the request is then over). `splitAt` writes the line in pieces.
   */
  async emit(scope: Scope, type: string, data: unknown, patch?: EnvelopePatch, splitAt?: readonly number[]): Promise<EmitResult> {
    const env = patchEnvelope(envelope(scope, type, data), patch);
    const seq = "seq" in env ? env.seq : scope.nextSeq;
    advanceSeq(scope, seq);
    const line = JSON.stringify(env);
    if (Buffer.byteLength(line, "utf8") > MAX_EVENT_BYTES) {
      await diagnostic(`dropping oversized outbound ${type} event`);
      const replacement = envelope(
        scope,
        "protocol_error",
        { error: "outbound event exceeded the protocol frame limit", discarded_type: type },
        typeof seq === "number" ? seq : scope.nextSeq - 1,
      );
      await this.out.write(`${JSON.stringify(replacement)}\n`);
      return "replaced";
    }
    await this.raw(Buffer.from(`${line}\n`, "utf8"), splitAt);
    return "written";
  }

  /** Write text exactly as given (fault steps), optionally in pieces cut at byte offsets, 5 ms apart. */
  async raw(bytes: Uint8Array, splitAt: readonly number[] = []): Promise<void> {
    const cuts = [...new Set(splitAt.filter((n) => Number.isInteger(n) && n > 0 && n < bytes.length))].sort((a, b) => a - b);
    let from = 0;
    for (const cut of cuts) {
      await this.out.write(bytes.subarray(from, cut));
      from = cut;
      await Bun.sleep(5);
    }
    await this.out.write(bytes.subarray(from));
  }

  /** An event line of exactly `bytes` bytes including its LF, padded with spaces inside `data` (never checked against the limit). */
  async padded(scope: Scope, type: string, bytes: number): Promise<void> {
    const seq = scope.nextSeq;
    advanceSeq(scope, seq);
    const line = paddedLine(scope, type, seq, bytes);
    if (Buffer.byteLength(line, "utf8") !== bytes) {
      await diagnostic(`paddedEvent: ${bytes} bytes is too short for a ${type} event; wrote ${Buffer.byteLength(line, "utf8")}`);
    }
    await this.out.write(line);
  }
}

/**
 * A `model_delta` gets its `text` padded; any other type gets JSON
 * whitespace inside its (empty) `data` object.
 */
function paddedLine(scope: Scope, type: string, seq: number, bytes: number): string {
  if (type === "model_delta") {
    const bare = `${JSON.stringify(envelope(scope, type, { channel: "text", text: "" }, seq))}\n`;
    const pad = Math.max(0, bytes - Buffer.byteLength(bare, "utf8"));
    return `${JSON.stringify(envelope(scope, type, { channel: "text", text: " ".repeat(pad) }, seq))}\n`;
  }
  const bare = `${JSON.stringify(envelope(scope, type, {}, seq))}\n`;
  const pad = Math.max(0, bytes - Buffer.byteLength(bare, "utf8"));
  const at = bare.lastIndexOf('"data":{}') + '"data":{'.length;
  return `${bare.slice(0, at)}${" ".repeat(pad)}${bare.slice(at)}`;
}
