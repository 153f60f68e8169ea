import { echoValue, hasNumberSource, rawNumber, readInteger } from "./json.ts";

/**
 * A JSON-RPC request id. Integers beyond 2^53 are kept as `bigint` so that they
 * are echoed digit for digit; `7` and `"7"` are different ids. An id is its own
 * Map/Set key: SameValueZero keeps `7` and `"7"` apart and matches equal bigints
 * by value (integers are `number` up to 2^53 and `bigint` beyond, never both).
 */
export type RequestId = number | bigint | string;

/** Result of reading the `id` member of a decoded message. */
export type IdRead =
  | { kind: "absent" }
  | { kind: "valid"; id: RequestId }
  | { kind: "invalid"; echo: unknown };

/** Read and validate `message[key]`: any JSON integer or any string is valid (docs/protocol-0.2.md §1.4). */
export function readId(message: Record<string, unknown>, key = "id"): IdRead {
  // The usual id (a string, or an integer written canonically) here; anything else out of line (docs/design.md, "Hot functions").
  const value = message[key];
  if (typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value) && !hasNumberSource(message, key))) return { kind: "valid", id: value };
  return readOtherId(message, key);
}

function readOtherId(message: Record<string, unknown>, key: string): IdRead {
  if (!(key in message)) return { kind: "absent" };
  const value = message[key];
  if (typeof value === "string") return { kind: "valid", id: value };
  const integer = readInteger(message, key);
  if (integer !== undefined) return { kind: "valid", id: integer };
  return { kind: "invalid", echo: echoValue(message, key) };
}

/** The value to put in a frame for `id` (big integers as raw JSON digits). */
export function wireId(id: RequestId): unknown {
  return typeof id === "bigint" ? rawNumber(id.toString()) : id;
}

/** Human-readable id for logs. */
export function showId(id: RequestId): string {
  return typeof id === "string" ? JSON.stringify(id) : id.toString();
}
