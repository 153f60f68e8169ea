/**
 * `octet-canonical-json-v1`, the encoding of the API 0.3 wire (docs/api-0.3.md):
 * object members sorted by the UTF-8 bytes of their names (= code point
 * order), no whitespace, raw UTF-8 (only `"`, `\` and U+0000–U+001F escaped,
 * as `JSON.stringify` does), integers within ±(2^53−1) and no other numbers,
 * nesting depth ≤ 32, plain objects and arrays only, no lone surrogates.
 * Not to be confused with `canonical-json.ts` (equality keys of the legacy wire).
 */

/** Largest integer magnitude the encoding admits (`max_portable_json_integer`). */
export const MAX_PORTABLE_INTEGER = 9_007_199_254_740_991;
/** Deepest nesting admitted: the top-level value is at depth 0 (`max_json_depth`). */
export const MAX_CANONICAL_DEPTH = 32;
/** Largest frame any API 0.3 contract may select, LF excluded (`max_frame_bytes`). */
export const MAX_CANONICAL_FRAME_BYTES = 1_048_576;

/** A value the encoding cannot represent; the message names where. */
export class CanonicalValueError extends Error {}

/** A frame longer than the bound in force (the caller answers `-32012`). */
export class CanonicalBoundError extends Error {
  constructor(
    readonly bytes: number,
    readonly bound: number,
  ) {
    super(`canonical frame of ${bytes} bytes exceeds max_frame_bytes ${bound}`);
  }
}

/**
 * The canonical text of `value`. Object members whose value is `undefined`
 * are left out (they are absent); anything else the encoding has no form for
 * throws {@link CanonicalValueError}.
 */
export function encodeCanonical(value: unknown): string {
  return encode(value, 0, "$");
}

/** The canonical text of `value` plus LF, refused when its UTF-8 bytes (LF excluded) exceed `bound`. */
export function encodeCanonicalFrame(value: unknown, bound: number): string {
  const text = encodeCanonical(value);
  if (text.length > bound / 3) {
    const bytes = Buffer.byteLength(text);
    if (bytes > bound) throw new CanonicalBoundError(bytes, bound);
  }
  return `${text}\n`;
}

/** Compare two well-formed strings by code point (= by their UTF-8 bytes). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

/** Surrogates (a code point above U+FFFF) sort after U+E000–U+FFFF. */
function rank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

function encode(value: unknown, depth: number, path: string): string {
  if (depth > MAX_CANONICAL_DEPTH) throw new CanonicalValueError(`${path}: nesting deeper than ${MAX_CANONICAL_DEPTH}`);
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) throw new CanonicalValueError(`${path}: string holds a lone surrogate`);
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isInteger(value)) throw new CanonicalValueError(`${path}: ${value} is not an integer (API 0.3 has no floating-point numbers)`);
      if (Math.abs(value) > MAX_PORTABLE_INTEGER) throw new CanonicalValueError(`${path}: ${value} is outside ±${MAX_PORTABLE_INTEGER}`);
      return value === 0 ? "0" : String(value);
    case "bigint":
      if (value > BigInt(MAX_PORTABLE_INTEGER) || value < -BigInt(MAX_PORTABLE_INTEGER)) throw new CanonicalValueError(`${path}: ${value} is outside ±${MAX_PORTABLE_INTEGER}`);
      return value.toString();
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ",";
          out += encode(value[i], depth + 1, `${path}[${i}]`);
        }
        return `${out}]`;
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) throw new CanonicalValueError(`${path}: only plain objects and arrays can be encoded`);
      const keys = Object.keys(value);
      for (const key of keys) if (!key.isWellFormed()) throw new CanonicalValueError(`${path}: member name holds a lone surrogate`);
      keys.sort(compareCodePoints);
      let out = "{";
      let first = true;
      for (const key of keys) {
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined) continue;
        if (!first) out += ",";
        first = false;
        out += `${JSON.stringify(key)}:${encode(member, depth + 1, `${path}.${key}`)}`;
      }
      return `${out}}`;
    }
    default:
      throw new CanonicalValueError(`${path}: ${typeof value} has no JSON form`);
  }
}
