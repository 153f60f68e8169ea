/**
 * JSON text as octet's host reads it, shared by the frame encoder
 * (`encode.ts`), canonical JSON (`canonical-json.ts`) and the result-size
 * bounds, so all three write the same text: members JSON drops are left out,
 * and lone UTF-16 surrogates, which the host's parser rejects as `\udXXX`
 * escapes, become U+FFFD in string values and member names (docs/protocol-0.2.md §1.1).
 */
import { isObject } from "../check.ts";

/** Values JSON encoding drops from an object (and writes as `null` in an array). */
export function droppedByJson(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** An object's members as JSON would encode them. */
export function jsonMembers(value: object): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => !droppedByJson(v));
}

/**
 * `value` with its lone surrogates replaced: a string made well-formed; a
 * plain object with an ill-formed member name copied with every name made
 * well-formed (of names that become equal, the later member wins); anything
 * else as it is. One level only: meant for a `JSON.stringify` replacer, which
 * reaches every level.
 */
export function wellFormedValue(value: unknown): unknown {
  if (typeof value === "string") return value.toWellFormed();
  if (isObject(value) && Object.keys(value).some((k) => !k.isWellFormed())) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toWellFormed(), v]));
  }
  return value;
}

/** The JSON string literal for `text`, lone surrogates replaced. */
export function jsonString(text: string): string {
  return JSON.stringify(text.toWellFormed());
}
