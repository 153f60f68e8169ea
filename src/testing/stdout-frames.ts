/** octet's checks on one stdout line before it is routed: UTF-8, JSON, an object, `"jsonrpc":"2.0"`. */

import type { JsonRecord } from "../check.ts";
import { parseJson } from "../wire/json.ts";
import type { TranscriptEntry } from "./transcript.ts";

/**
 * A stdout line (without LF and CR) read as octet does: `entry` is what the transcript records
 * (absent for blank lines and lines rejected before parsing), `violation` the fatal rule it breaks.
 */
export function decodeStdoutLine(bytes: Uint8Array): { entry?: TranscriptEntry; violation?: string } {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { violation: "stdout line is not valid UTF-8" };
  }
  if (text.trim() === "") return {};
  let frame: unknown;
  try {
    frame = parseJson(text);
  } catch {
    return { entry: { from: "extension", text }, violation: `non-JSON on stdout: ${text.slice(0, 200)}` };
  }
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return { violation: `stdout frame is not an object: ${text.slice(0, 200)}` };
  if (/\\u[dD][89a-fA-F]/.test(text) && !wellFormed(frame)) {
    return { violation: `unpaired UTF-16 surrogate escape on stdout (octet's parser rejects it): ${text.slice(0, 200)}` };
  }
  const entry: TranscriptEntry = { from: "extension", text, frame: frame as JsonRecord };
  if ((frame as JsonRecord).jsonrpc !== "2.0") return { entry, violation: `frame without "jsonrpc":"2.0": ${text.slice(0, 200)}` };
  return { entry };
}

/** No string (member name or value) holds an unpaired surrogate. */
function wellFormed(value: unknown): boolean {
  if (typeof value === "string") return value.isWellFormed();
  if (Array.isArray(value)) return value.every(wellFormed);
  if (typeof value === "object" && value !== null) return Object.entries(value).every(([k, v]) => k.isWellFormed() && wellFormed(v));
  return true;
}
