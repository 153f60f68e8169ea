/**
 * Lossless JSON decoding (docs/api-0.2.md, "Big integers").
 *
 * `JSON.parse` turns `1.0` into `1` and rounds integers above 2^53. Two rules
 * keep every value exact:
 * - an integer literal outside ±(2^53−1) becomes a `bigint` with its exact
 *   digits, wherever it is in the frame (ids, tool arguments, results);
 * - for any other number whose source text differs from its JS rendering
 *   (`1.0`, `-0`, `1E2`) the source lexeme is remembered (keyed by holder
 *   object and key) and consulted when an id or a protocol integer is
 *   validated, since the reference SDK treats `1.0` as a non-integer.
 */
import { U64_MAX } from "../protocol.ts";

/** Made by the first frame that needs them (most sessions never do). */
let lexemes: WeakMap<object, Map<string, string>> | undefined;
/** Objects and arrays that hold a `bigint` made by {@link parseJson}, at any depth. */
let bigHolders: WeakSet<object> | undefined;
const INTEGER_LEXEME = /^-?(0|[1-9][0-9]*)$/;

/**
 * Beyond this length the per-byte pre-check costs more than the per-value
 * reviver: large frames are mostly long strings (few values), and frames full
 * of numbers usually hold fractions, which take the reviver path anyway.
 */
const PRECHECK_MAX_CHARS = 64 * 1024;

/**
 * {@link mayHoldNonCanonicalNumber} as one native call, for every frame after
 * the first: the first (the host's initialize) takes the loop, so that no
 * regular expression is compiled before the initialize reply. Global, so that
 * a search can start past {@link FRAME_PREFIX}; `lastIndex` is set before each use.
 */
export const NON_CANONICAL_NUMBER = /[:,[][ \t\n\r]*(?:-?[0-9]+[.eE]|-?[0-9]{16}|-0\b)/g;
/**
 * What every hit of {@link NON_CANONICAL_NUMBER} contains: a digit followed by `.`, `e`, `E` or 15
 * more digits, or `-0`. It starts at far fewer characters than the delimiters, so it rules out a
 * typical request in ~100 ns where the full expression takes ~250 ns (as long as `JSON.parse` itself).
 */
const NUMBER_HINT = /[0-9](?:[.eE]|[0-9]{15})|-0\b/g;
/** How nearly every frame starts; it holds no number token, so the searches start after it. */
const FRAME_PREFIX = '{"jsonrpc":"2.0"';
let framesParsed = 0;

/** Parse one frame's text. Throws `SyntaxError` like `JSON.parse`. */
export function parseJson(text: string): unknown {
  if (text.length <= PRECHECK_MAX_CHARS && !(framesParsed++ === 0 ? mayHoldNonCanonicalNumber(text) : laterFrameMayHoldNonCanonicalNumber(text))) return JSON.parse(text);
  return JSON.parse(text, revive as (key: string, value: unknown) => unknown);
}

/** {@link NON_CANONICAL_NUMBER}'s verdict on `text`, searched only where {@link NUMBER_HINT} finds a candidate. */
export function laterFrameMayHoldNonCanonicalNumber(text: string): boolean {
  const from = text.startsWith(FRAME_PREFIX) ? FRAME_PREFIX.length : 0;
  NUMBER_HINT.lastIndex = from;
  if (!NUMBER_HINT.test(text)) return false;
  NON_CANONICAL_NUMBER.lastIndex = from;
  return NON_CANONICAL_NUMBER.test(text);
}

/** What {@link mayHoldNonCanonicalNumber} searches for, one `indexOf` each. */
const DIGITS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

/**
 * Whether `text` may hold a number token (after `:`, `,` or `[` and JSON
 * whitespace) with a fraction or exponent, 16+ digits, or `-0`: the numbers
 * whose JS value loses their source. A hit inside a string only costs the
 * slow path; `"jsonrpc":"2.0"`, which every frame carries, is no hit.
 *
 * Written for start-up (docs/performance.md): not a regular expression (on the
 * kit's initialize the two expressions took up to 0.2M instructions and ~15 page
 * faults more than this loop, 2026-12-06; later frames use
 * {@link NON_CANONICAL_NUMBER}), and few loop turns, so that JSC
 * does not JIT-compile it while reading the initialize frame (its first
 * compilation costs ~2 ms of CPU and ~75 page faults). Native `indexOf` finds
 * each digit (an initialize frame holds few); only a digit that starts a token
 * (a delimiter, whitespace and an optional `-` before it) is looked at further.
 */
export function mayHoldNonCanonicalNumber(text: string): boolean {
  for (let d = 0; d < 10; d++) {
    const digit = DIGITS[d]!;
    for (let at = text.indexOf(digit); at !== -1; at = text.indexOf(digit, at + 1)) {
      // What precedes the digit: another digit (not a token's first), else an optional `-`, JSON whitespace, a delimiter.
      let before = at - 1;
      let c = text.charCodeAt(before);
      if (c >= 48 && c <= 57) continue;
      const negative = c === 45;
      if (negative) c = text.charCodeAt(--before);
      while (c === 32 || c === 9 || c === 10 || c === 13) c = text.charCodeAt(--before);
      if (c !== 58 && c !== 44 && c !== 91) continue; // `:` `,` `[`
      let end = at + 1;
      c = text.charCodeAt(end);
      while (c >= 48 && c <= 57) c = text.charCodeAt(++end);
      if (c === 46 || c === 101 || c === 69 || end - at >= 16) return true; // `.` `e` `E`, or 16+ digits
      if (negative && d === 0 && end - at === 1 && !isWordChar(c)) return true; // `-0`
    }
  }
  return false;
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function revive(this: object, key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === "number") {
    const source = context?.source;
    if (source === undefined) return value;
    if (!Number.isSafeInteger(value) && INTEGER_LEXEME.test(source)) {
      (bigHolders ??= new WeakSet()).add(this);
      return BigInt(source);
    }
    if (source !== String(value)) {
      lexemes ??= new WeakMap();
      let table = lexemes.get(this);
      if (!table) lexemes.set(this, (table = new Map()));
      table.set(key, source);
    }
  } else if (bigHolders !== undefined && typeof value === "object" && value !== null && bigHolders.has(value)) {
    bigHolders.add(this);
  }
  return value;
}

/** Whether {@link parseJson} put a `bigint` somewhere inside `value` (a cheap check: no walk). */
export function holdsBigInt(value: unknown): boolean {
  return bigHolders !== undefined && typeof value === "object" && value !== null && bigHolders.has(value);
}

/** Whether the number at `holder[key]` was written otherwise than its JS rendering (`1.0`, `-0`, `1E2`): its source was kept. */
export function hasNumberSource(holder: object, key: string): boolean {
  return lexemes !== undefined && lexemes.get(holder)?.has(key) === true;
}

/** The source text of the number at `holder[key]` (its JS rendering when it round-trips). */
export function numberSource(holder: object, key: string): string {
  return lexemes?.get(holder)?.get(key) ?? String((holder as Record<string, unknown>)[key]);
}

/**
 * Read `holder[key]` as a JSON integer (no fraction, no exponent).
 * Returns a `number` when it is a safe integer, a `bigint` otherwise, and
 * `undefined` when the value is not an integer.
 */
export function readInteger(holder: object, key: string): number | bigint | undefined {
  const value = (holder as Record<string, unknown>)[key];
  if (typeof value === "bigint") return value;
  if (typeof value !== "number") return undefined;
  // No lexeme recorded: the text was the canonical rendering (the common case, no string work).
  if (Number.isSafeInteger(value) && !hasNumberSource(holder, key)) return value;
  return integerFromSource(holder, key, value);
}

/** {@link readInteger} for a number whose source text was kept (out of line: the common case never needs it). */
function integerFromSource(holder: object, key: string, value: number): number | bigint | undefined {
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
  return n >= 0n && n <= U64_MAX ? n : undefined;
}

/** A value to place in a frame so that it serializes to exactly `source`. */
export function rawNumber(source: string): unknown {
  return (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(source);
}

/** Echo form of the value at `holder[key]`: numbers keep their source lexeme. */
export function echoValue(holder: object, key: string): unknown {
  const value = (holder as Record<string, unknown>)[key];
  if (typeof value === "bigint") return rawNumber(value.toString());
  if (typeof value !== "number") return value;
  const source = numberSource(holder, key);
  return source === String(value) ? value : rawNumber(source);
}
