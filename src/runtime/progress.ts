import { jsonString } from "../wire/json-text.ts";
import type { JsonObject } from "./types.ts";

/** A `$/progress` event (docs/protocol-0.2.md §4.6). */
export type ProgressEvent =
  | { type: "status"; message: string; current?: number | null; total?: number | null; unit?: string | null }
  | { type: "output"; stream: "stdout" | "stderr"; encoding: "utf8" | "base64"; data: string }
  | { type: "decoration"; label: string; detail?: string }
  /** API 0.4, under a `tool/call` only: a snapshot of the result so far (a tool result: content parts, `is_error`, `metadata`). */
  | { type: "partial_result"; result: JsonObject };

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function u64OrNull(what: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw new Error(`progress ${what} must be a non-negative integer or null`);
}

function exactKeys(event: JsonObject, allowed: string[]): void {
  for (const key in event) if (!allowed.includes(key)) throw new Error(`progress ${String(event.type)} event has unknown field ${key}`);
}

/** Check an event's shape (argument errors, docs/protocol-0.2.md §4.6, §8.11). Returns the event to send. */
export function checkProgressEvent(event: unknown): ProgressEvent {
  if (typeof event !== "object" || event === null || Array.isArray(event)) throw new Error("progress event must be an object");
  const e = event as JsonObject;
  switch (e.type) {
    case "status":
      exactKeys(e, ["type", "message", "current", "total", "unit"]);
      if (typeof e.message !== "string") throw new Error("progress status message must be a string");
      u64OrNull("current", e.current);
      u64OrNull("total", e.total);
      if (e.unit !== undefined && e.unit !== null && typeof e.unit !== "string") throw new Error("progress unit must be a string or null");
      return e as ProgressEvent;
    case "output":
      exactKeys(e, ["type", "stream", "encoding", "data"]);
      if (e.stream !== "stdout" && e.stream !== "stderr") throw new Error("progress output stream must be stdout or stderr");
      if (e.encoding !== "utf8" && e.encoding !== "base64") throw new Error("progress output encoding must be utf8 or base64");
      if (typeof e.data !== "string") throw new Error("progress output data must be a string");
      return e as ProgressEvent;
    case "decoration": {
      exactKeys(e, ["type", "label", "detail"]);
      const label = e.label;
      if (typeof label !== "string" || Buffer.byteLength(label) < 1 || Buffer.byteLength(label) > 256 || CONTROL.test(label)) {
        throw new Error("progress decoration label must be 1..256 UTF-8 bytes without control characters");
      }
      const detail = e.detail;
      if (detail !== undefined && (typeof detail !== "string" || Buffer.byteLength(detail) < 1 || Buffer.byteLength(detail) > 4096 || CONTROL.test(detail))) {
        throw new Error("progress decoration detail must be 1..4096 UTF-8 bytes without control characters");
      }
      return e as ProgressEvent;
    }
    case "partial_result":
      exactKeys(e, ["type", "result"]);
      if (typeof e.result !== "object" || e.result === null || Array.isArray(e.result)) throw new Error("progress partial_result result must be a tool result object");
      return e as ProgressEvent;
    default:
      throw new Error(`unknown progress event type ${JSON.stringify(e.type)}`);
  }
}

/**
 * A status event (docs/protocol-0.2.md §4.6) as JSON text, with only the members the caller
 * supplied, written directly rather than built as an object and encoded:
 * `ext.progress("…")` in a burst is the runtime's hottest outbound path.
 */
export function statusEventJson(message: string, extra: { current?: number | null; total?: number | null; unit?: string | null } = {}): string {
  if (typeof message !== "string") throw new Error("progress status message must be a string");
  let json = `{"type":"status","message":${jsonString(message)}`;
  if (extra.current !== undefined) {
    u64OrNull("current", extra.current);
    json += `,"current":${extra.current}`;
  }
  if (extra.total !== undefined) {
    u64OrNull("total", extra.total);
    json += `,"total":${extra.total}`;
  }
  if (extra.unit !== undefined) {
    if (extra.unit !== null && typeof extra.unit !== "string") throw new Error("progress unit must be a string or null");
    json += `,"unit":${extra.unit === null ? "null" : jsonString(extra.unit)}`;
  }
  return json + "}";
}
