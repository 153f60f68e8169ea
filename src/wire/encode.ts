import { MAX_MESSAGE_BYTES } from "../protocol.ts";
import { rawNumber } from "./json.ts";
import { wellFormedValue } from "./json-text.ts";

/** Why a frame could not be encoded; the caller decides what to send instead. */
export class FrameEncodeError extends Error {}

/**
 * Serialize one frame compactly and check it against the host's limit:
 * content + LF ≤ `limit` (docs/protocol-0.2.md §1.2). Lone UTF-16 surrogates, which the host's
 * parser rejects, are replaced with U+FFFD in values and member names
 * (docs/protocol-0.2.md §1.1). `bigint` values are
 * written as JSON integers. NaN and ±Infinity are refused (docs/protocol-0.2.md §1.1), as
 * anything else JSON cannot represent: `cannot serialize JSON-RPC message: …`.
 */
export function encodeFrame(frame: object, limit = MAX_MESSAGE_BYTES): string {
  const line = serialize(frame);
  // UTF-16 length × 3 bounds the UTF-8 size, so short lines skip the byte count.
  if (line.length * 3 > limit && Buffer.byteLength(line) > limit) throw new FrameEncodeError(`JSON-RPC message exceeds ${limit} bytes`);
  return line;
}

/** A frame ready for the stream: a string, or UTF-8 bytes for a large one. */
export type WireLine = string | Uint8Array;

/** Made for the first large frame: nothing before the initialize reply needs one. */
let utf8: TextEncoder | undefined;

/**
 * Like {@link encodeFrame}, for the runtime's writer: a large frame is encoded
 * to UTF-8 once, which both measures it and saves the sink a conversion.
 */
export function encodeWireFrame(frame: object, limit = MAX_MESSAGE_BYTES): WireLine {
  const line = serialize(frame);
  return line.length * 3 <= limit ? line : encodedWithin(line, limit);
}

/**
 * `line` as UTF-8, refused over `limit`. Out of line: a function that names a lazily made global
 * (`TextEncoder`, `Buffer`) makes it on its first call, which the initialize reply should not pay.
 */
function encodedWithin(line: string, limit: number): Uint8Array {
  const bytes = (utf8 ??= new TextEncoder()).encode(line);
  if (bytes.length > limit) throw new FrameEncodeError(`JSON-RPC message exceeds ${limit} bytes`);
  return bytes;
}

/** Compact JSON + LF, lone surrogates replaced. */
function serialize(frame: object): string {
  let text: string;
  try {
    text = JSON.stringify(frame);
    // Plain stringify writes NaN and ±Infinity as `null`: only a frame holding `null` can hide one.
    if (text.includes("null")) text = JSON.stringify(frame, rejectNonFinite);
  } catch {
    // Slow path only for what plain stringify refuses (bigint) or to name the problem.
    try {
      text = JSON.stringify(frame, rejectNonFinite);
    } catch (error) {
      throw new FrameEncodeError(`cannot serialize JSON-RPC message: ${(error as Error).message}`);
    }
  }
  if (text.includes("\\ud")) text = JSON.stringify(frame, wellFormed);
  return text + "\n";
}

function rejectNonFinite(_key: string, value: unknown): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError(`${value} is not valid JSON`);
  if (typeof value === "bigint") return rawNumber(value.toString());
  return value;
}

function wellFormed(key: string, value: unknown): unknown {
  return rejectNonFinite(key, wellFormedValue(value));
}

/**
 * `$/progress` is the one frame written in bursts: its envelope is spliced
 * around the encoded event instead of building and walking two more objects.
 * Same guarantees as {@link encodeWireFrame}. `event` is an event object, or
 * an event's JSON text already written by the same rules (`statusEventJson`).
 */
export function encodeProgressFrame(requestId: number | bigint, sequence: number, event: object | string, limit = MAX_MESSAGE_BYTES): WireLine {
  const line = progressLine(requestId, sequence, typeof event === "string" ? event : serialize(event).slice(0, -1));
  return line.length * 3 <= limit ? line : encodedWithin(line, limit);
}

/** The `$/progress` line (LF included) for an event already written as JSON; no limit applied. */
export function progressLine(requestId: number | bigint, sequence: number, eventJson: string): string {
  return `{"jsonrpc":"2.0","method":"$/progress","params":{"request_id":${requestId},"sequence":${sequence},"event":${eventJson}}}\n`;
}
