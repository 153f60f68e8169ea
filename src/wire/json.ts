/**
 * Lossless JSON decoding for the few integers the wire cares about.
 *
 * `JSON.parse` turns `1.0` into `1` and rounds integers above 2^53. The
 * reference SDK treats `1.0` as a non-integer and echoes u64 ids exactly, so
 * for numbers whose source text differs from their JS rendering we remember
 * the source lexeme (keyed by holder object and key) and consult it when an
 * id or a protocol integer is validated. User data is returned unchanged.
 */

// A number token (after `:`, `,` or `[`) with a fraction or exponent, 16+
// digits, or `-0`. Matching inside a string only costs the slow path; it must
// not match `"jsonrpc":"2.0"`, which every frame carries.
const NON_CANONICAL_NUMBER = /[:,[]\s*(?:-?[0-9]+[.eE]|-?[0-9]{16}|-0\b)/;
const lexemes = new WeakMap<object, Map<string, string>>();

/**
 * Beyond this length the per-byte pre-check costs more than the per-value
 * reviver: large frames are mostly long strings (few values), and frames full
 * of numbers usually hold fractions, which take the reviver path anyway.
 */
const PRECHECK_MAX_CHARS = 64 * 1024;

/** Parse one frame's text. Throws `SyntaxError` like `JSON.parse`. */
export function parseJson(text: string): unknown {
  if (text.length <= PRECHECK_MAX_CHARS && !NON_CANONICAL_NUMBER.test(text)) return JSON.parse(text);
  return JSON.parse(text, function (this: object, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === "number" && context?.source !== undefined && context.source !== String(value)) {
      let table = lexemes.get(this);
      if (!table) lexemes.set(this, (table = new Map()));
      table.set(key, context.source);
    }
    return value;
  } as (key: string, value: unknown) => unknown);
}

/** The source text of the number at `holder[key]` (its JS rendering when it round-trips). */
export function numberSource(holder: object, key: string): string {
  return lexemes.get(holder)?.get(key) ?? String((holder as Record<string, unknown>)[key]);
}

const INTEGER_LEXEME = /^-?(0|[1-9][0-9]*)$/;

/**
 * Read `holder[key]` as a JSON integer (no fraction, no exponent).
 * Returns a `number` when it is a safe integer, a `bigint` otherwise, and
 * `undefined` when the value is not an integer.
 */
export function readInteger(holder: object, key: string): number | bigint | undefined {
  const value = (holder as Record<string, unknown>)[key];
  if (typeof value !== "number") return undefined;
  const source = numberSource(holder, key);
  if (!INTEGER_LEXEME.test(source)) return undefined;
  if (Number.isSafeInteger(value)) return value === 0 ? 0 : value;
  return BigInt(source);
}

/** Like {@link readInteger} but only for 0 ≤ n ≤ 2^64−1. */
export function readUnsigned64(holder: object, key: string): number | bigint | undefined {
  const n = readInteger(holder, key);
  if (n === undefined) return undefined;
  if (typeof n === "number") return n >= 0 ? n : undefined;
  return n >= 0n && n <= 18446744073709551615n ? n : undefined;
}

/** A value to place in a frame so that it serializes to exactly `source`. */
export function rawNumber(source: string): unknown {
  return (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(source);
}

/** Echo form of the value at `holder[key]`: numbers keep their source lexeme. */
export function echoValue(holder: object, key: string): unknown {
  const value = (holder as Record<string, unknown>)[key];
  if (typeof value !== "number") return value;
  const source = numberSource(holder, key);
  return source === String(value) ? value : rawNumber(source);
}
