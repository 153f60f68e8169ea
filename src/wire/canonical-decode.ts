import { CanonicalValueError, encodeCanonical } from "./canonical-frame.ts";

/**
 * Why a received API 0.3 frame was refused. Any of these ends the protocol
 * stream before dispatch (docs/api-0.3.md "Framing").
 */
export class CanonicalFrameError extends Error {}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decode one received frame (its bytes without the LF) and prove it
 * canonical: UTF-8, no CR, JSON, a value the encoding admits, and the exact
 * bytes the encoder writes for that value. The last step is what rules out
 * whitespace, member order, escapes other than the required ones, number
 * forms such as `1.0` or `-0`, and duplicate member names.
 */
export function decodeCanonicalFrame(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw new CanonicalFrameError("empty frame");
  if (bytes.includes(13)) throw new CanonicalFrameError("frame contains a CR (the delimiter is exactly one LF)");
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new CanonicalFrameError("frame is not valid UTF-8");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CanonicalFrameError(`frame is not JSON: ${(error as Error).message}`);
  }
  let again: string;
  try {
    again = encodeCanonical(value);
  } catch (error) {
    if (error instanceof CanonicalValueError) throw new CanonicalFrameError(`frame holds a value octet-canonical-json-v1 does not admit: ${error.message}`);
    throw error;
  }
  if (again !== text) throw new CanonicalFrameError(`frame is not canonical: ${firstDifference(text, again)}`);
  return value;
}

/** Where the received text departs from its canonical form, for the log line. */
function firstDifference(received: string, canonical: string): string {
  let i = 0;
  while (i < received.length && received[i] === canonical[i]) i++;
  const at = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 16), i + 16));
  if (canonical.length < received.length && i === canonical.length) return `trailing text at character ${i} (duplicate member or whitespace?)`;
  return `character ${i}: received ${at(received)}, canonical ${at(canonical)} (member order, whitespace, escapes, number form or a duplicate member)`;
}
