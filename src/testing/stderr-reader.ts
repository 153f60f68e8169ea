/** An extension's stderr as the host reads it: lines, octet's structured-record rule, parsed records. */
import { isObject, type JsonRecord } from "../check.ts";
import { MAX_MESSAGE_BYTES } from "../protocol.ts";
import { type LinePart, StderrLineSplitter } from "./stderr-lines.ts";

export type { LinePart } from "./stderr-lines.ts";

const LEVELS = ["debug", "info", "warning", "error"];

/** octet cuts a stderr line when it reaches its frame limit − 1 bytes (docs/protocol-0.2.md §1.3). */
export const STDERR_LINE_BYTES = MAX_MESSAGE_BYTES - 1;

/** Read `stderr` to its end, emitting each line (a last line without LF included), long ones in pieces. */
export async function readStderr(stderr: AsyncIterable<Uint8Array>, emit: (line: string, part: LinePart) => void): Promise<void> {
  const lines = new StderrLineSplitter(STDERR_LINE_BYTES, emit);
  for await (const chunk of stderr) lines.push(chunk);
  lines.end();
}

/** The violation for the first piece of a line octet would cut. */
export function longStderrLine(piece: string): string {
  return `stderr line longer than ${STDERR_LINE_BYTES} bytes (octet cuts it into pieces): ${piece.slice(0, 200)}`;
}

/** The violation for a non-empty line that is not a JSON object with `level` and `message` (octet 0.8.0 runtime contract). */
export function checkStderrLine(line: string): string | undefined {
  if (line.trim() === "") return undefined;
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    record = undefined;
  }
  const ok = isObject(record) && LEVELS.includes(record.level as string) && typeof record.message === "string";
  return ok ? undefined : `unstructured stderr line: ${line.slice(0, 200)}`;
}

/** The lines that parse as JSON. */
export function parseLogs(lines: readonly string[]): JsonRecord[] {
  const out: JsonRecord[] = [];
  for (const line of lines) {
    try {
      out.push(JSON.parse(line) as JsonRecord);
    } catch {
      /* reported as a violation when strict */
    }
  }
  return out;
}
