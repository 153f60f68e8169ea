/**
 * The check kit every validator builds on (runtime, test host, author
 * tooling): predicates for JSON-shaped values, JSON paths, and checks that
 * throw a plain `Error` reading `<path>: <rule>`. No imports: it sits below
 * everything else.
 */

/** A JSON object as the checks see it. */
export type JsonRecord = { [key: string]: unknown };

/** 64 lowercase hexadecimal characters: a SHA-256 digest, an approval token, a fingerprint. */
export const HEX64 = /^[0-9a-f]{64}$/;

/** A plain object: not `null`, not an array. */
export function isObject(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An array holding only strings. (A loop, not `every`: the initialize path calls it, see docs/performance.md.) */
export function isStringArray(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== "string") return false;
  return true;
}

/** Whether `value` is one of `choices` (a literal tuple such as `SURFACES`, with no widening cast). */
export function isOneOf<T>(value: unknown, choices: readonly T[]): value is T {
  return (choices as readonly unknown[]).includes(value);
}

/** A string with at least one non-whitespace character. */
export function isNonBlankString(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** Whether some entry of `list` repeats an earlier one. */
export function hasDuplicates(list: readonly unknown[]): boolean {
  return new Set(list).size !== list.length;
}

/**
 * The first own key of `value` that `allowed` does not list, else `undefined`.
 * With `definedOnly`, keys holding `undefined` (absent in JSON) are ignored.
 */
export function unknownKey(value: JsonRecord, allowed: readonly string[], definedOnly = false): string | undefined {
  return Object.keys(value).find((key) => !allowed.includes(key) && !(definedOnly && value[key] === undefined));
}

/** UTF-8 length of `text` (a lone surrogate counts as U+FFFD: 3 bytes). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** `text` quoted for a message, cut after 32 characters. */
export function preview(text: string): string {
  return JSON.stringify(text.length > 32 ? `${text.slice(0, 32)}…` : text);
}

/** The path of member `name` under `base`: `base.name` for identifier-like names, else `base["name"]`. */
export function memberPath(base: string, name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${base}.${name}` : `${base}[${JSON.stringify(name)}]`;
}

/** Throw a plain `Error` reading `<path>: <rule>`. */
export function fail(path: string, rule: string): never {
  throw new Error(`${path}: ${rule}`);
}

/** Whether `obj[key]` is present (JSON has no `undefined`). */
export function has(obj: JsonRecord, key: string): boolean {
  return obj[key] !== undefined;
}

/** `obj[key]`, failing with `<path>.<key>: is required` when it is absent. */
export function required(obj: JsonRecord, key: string, path: string): unknown {
  if (!has(obj, key)) fail(`${path}.${key}`, "is required");
  return obj[key];
}

/** A plain object whose present keys are all in `allowed`. */
export function object(value: unknown, path: string, allowed: readonly string[]): JsonRecord {
  if (!isObject(value)) fail(path, "must be an object");
  const extra = unknownKey(value, allowed, true);
  if (extra !== undefined) fail(`${path}.${extra}`, `unknown key (allowed: ${allowed.join(", ")})`);
  return value;
}

/** An array of at most `max` entries. */
export function array(value: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(value)) fail(path, "must be an array");
  if (value.length > max) fail(path, `at most ${max} entries allowed, got ${value.length}`);
  return value;
}

/** An integer `min`..2^53−1 (portable to every JSON reader). */
export function portableInteger(value: unknown, path: string, min = 0): number {
  if (typeof value !== "number" || !Number.isInteger(value)) fail(path, `must be a portable integer ${min}..2^53-1`);
  if (value < min || value > Number.MAX_SAFE_INTEGER) fail(path, `must be a portable integer ${min}..2^53-1, got ${value}`);
  return value;
}
