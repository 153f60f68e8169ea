/**
 * Secrets never reach a transcript file (docs/security.md): the host's answer
 * to `secret/get`, and to `input/request` with `secret: true`, is recorded
 * with its value replaced by {@link SECRET_PLACEHOLDER}, which is then what a
 * replay answers with.
 */
import { isObject, type JsonRecord } from "../check.ts";
import { encodeFrame } from "../wire/encode.ts";
import { parseJson } from "../wire/json.ts";

type Frame = { from: "host" | "extension"; text: string };

/** What a recording holds instead of a secret value. */
export const SECRET_PLACEHOLDER = "<redacted secret>";

/** `frames` with every secret answer's value replaced by the placeholder (other frames unchanged). */
export function redactSecrets(frames: readonly Frame[]): Frame[] {
  return frames.map(secretRedactor());
}

/**
 * The same, one frame at a time as a session goes on (`inspect` prints them
 * live): feed it every frame of the session, in order.
 */
export function secretRedactor(): (entry: Frame) => Frame {
  const secretIds = new Set<string>();
  return (entry) => {
    const frame = parseObject(entry.text);
    if (!frame || !("id" in frame)) return entry;
    const id = idKey(frame.id);
    if (entry.from === "extension") {
      if (typeof frame.method === "string") {
        if (asksForSecret(frame)) secretIds.add(id);
        else secretIds.delete(id);
      }
      return entry;
    }
    if ("method" in frame || !secretIds.has(id)) return entry;
    secretIds.delete(id);
    const result = frame.result;
    if (!isObject(result) || typeof result.value !== "string") return entry;
    return { from: entry.from, text: encodeFrame({ ...frame, result: { ...result, value: SECRET_PLACEHOLDER } }, Number.MAX_SAFE_INTEGER).slice(0, -1) };
  };
}

function asksForSecret(frame: JsonRecord): boolean {
  return frame.method === "secret/get" || (frame.method === "input/request" && isObject(frame.params) && frame.params.secret === true);
}

function parseObject(text: string): JsonRecord | undefined {
  try {
    const value = parseJson(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const idKey = (id: unknown) => (typeof id === "bigint" ? id.toString() : JSON.stringify(id));
