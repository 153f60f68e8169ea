/**
 * How the test host writes its API 0.3 frames: members sorted with
 * `Buffer.compare` on their UTF-8 bytes, compact, strings as `JSON.stringify`
 * writes them. Kept apart from the runtime's encoder so that a runtime
 * encoder bug is not also in what the runtime receives.
 */
export function canonicalText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${canonicalText(v)}`).join(",")}}`;
  }
  if (typeof value === "number" && !Number.isSafeInteger(value)) throw new Error(`the test host sends only portable integers on API 0.3, not ${value}`);
  if (typeof value === "string" && !value.isWellFormed()) throw new Error("the test host sends no lone surrogates on API 0.3");
  return JSON.stringify(value);
}
