import { droppedByJson, jsonMembers, jsonString, wellFormedValue } from "./json-text.ts";

/**
 * A canonical JSON text: keys sorted by UTF-16 code units, compact, members
 * JSON would drop left out, strings and member names well-formed as the
 * encoder writes them (`json-text.ts`). Used for equality, uniqueness and
 * intent sizes.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || droppedByJson(value)) return "null";
  if (typeof value === "bigint") {
    const asNumber = Number(value);
    return Number.isSafeInteger(asNumber) ? JSON.stringify(asNumber) : value.toString();
  }
  if (typeof value === "string") return jsonString(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const members = jsonMembers(wellFormedValue(value) as object).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
