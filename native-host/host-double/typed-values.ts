/**
 * Typed reading of parsed request values, failing with the decoder texts of
 * the real host (serde's wording: `invalid type: string "1", expected u16`,
 * `unknown variant \`text\`, expected \`image\` or \`audio\``, `missing field
 * \`path\``, …). Used by the step-5 decode of docs/native-host-protocol.md §5.
 */
import { JsonNumber, JsonObject, type JsonValue } from "./request-json.ts";

/** A typed-decode failure; the message follows `invalid request: `. */
export class DecodeError extends Error {}

const U64_MAX = 18446744073709551615n;
const I64_MIN = -9223372036854775808n;

/** serde's description of an unexpected value (`integer \`5\``, `map`, …). */
function describeValue(value: JsonValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return `boolean \`${value}\``;
  if (typeof value === "string") return `string ${JSON.stringify(value)}`;
  if (value instanceof JsonNumber) {
    const integer = integerOf(value);
    if (integer !== undefined) return `integer \`${integer}\``;
    return `floating point \`${formatFloat(value.value)}\``;
  }
  if (Array.isArray(value)) return "sequence";
  return "map";
}

/** A float as serde_json prints it: always with a `.0` or an exponent. */
function formatFloat(n: number): string {
  const text = String(n).replace("e+", "e");
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** The value of an integer lexeme representable as i64 or u64, else undefined (serde_json keeps those as f64). */
function integerOf(value: JsonNumber): bigint | undefined {
  if (!value.isInteger) return undefined;
  const n = BigInt(value.source);
  return n >= I64_MIN && n <= U64_MAX ? n : undefined;
}

function invalidType(value: JsonValue, expected: string): DecodeError {
  return new DecodeError(`invalid type: ${describeValue(value)}, expected ${expected}`);
}

export function readString(value: JsonValue, expected = "a string"): string {
  if (typeof value !== "string") throw invalidType(value, expected);
  return value;
}

/** A `PathBuf` field. */
export function readPath(value: JsonValue): string {
  return readString(value, "path string");
}

export function readBool(value: JsonValue): boolean {
  if (typeof value !== "boolean") throw invalidType(value, "a boolean");
  return value;
}

/** An unsigned integer of `bits` bits (`u16`, `u64`, …). `1.0` is a type error. */
export function readUnsigned(value: JsonValue, bits: 16 | 32 | 64): bigint {
  const name = `u${bits}`;
  if (!(value instanceof JsonNumber)) throw invalidType(value, name);
  const n = integerOf(value);
  if (n === undefined) throw invalidType(value, name);
  if (n < 0n || n > (1n << BigInt(bits)) - 1n) throw new DecodeError(`invalid value: integer \`${n}\`, expected ${name}`);
  return n;
}

/** `null` means absent (serde `Option`). */
export function readOptional<T>(value: JsonValue, read: (v: JsonValue) => T): T | undefined {
  return value === null ? undefined : read(value);
}

export function readSequence<T>(value: JsonValue, read: (v: JsonValue) => T): T[] {
  if (!Array.isArray(value)) throw invalidType(value, "a sequence");
  return value.map(read);
}

/** An object of string values, in source order. */
export function readStringMap(value: JsonValue): [string, string][] {
  if (!(value instanceof JsonObject)) throw invalidType(value, "a map");
  return value.entries.map(([name, v]) => [name, readString(v)]);
}

/** serde's list of expected names: `a`, `` `a` or `b` ``, `one of `a`, `b`, `c``. */
function expectedNames(names: readonly string[]): string {
  const quoted = names.map((n) => `\`${n}\``);
  if (quoted.length === 0) return "no fields";
  if (quoted.length === 1) return quoted[0] ?? "";
  if (quoted.length === 2) return `${quoted[0]} or ${quoted[1]}`;
  return `one of ${quoted.join(", ")}`;
}

/** A unit-variant enum spelled as a string. */
export function readVariant<T extends string>(value: JsonValue, variants: readonly T[]): T {
  if (typeof value !== "string") throw invalidType(value, "string or map");
  const found = variants.find((v) => v === value);
  if (found === undefined) throw new DecodeError(`unknown variant \`${value}\`, expected ${expectedNames(variants)}`);
  return found;
}

/**
 * A struct with `deny_unknown_fields`: members in source order, each read by
 * its field reader; then missing required fields in declaration order.
 */
export function readStruct(
  value: JsonValue,
  structName: string,
  fields: Readonly<Record<string, (v: JsonValue) => void>>,
  required: readonly string[],
): void {
  if (!(value instanceof JsonObject)) throw invalidType(value, `struct ${structName}`);
  const names = Object.keys(fields);
  for (const [name, member] of value.entries) {
    const read = fields[name];
    if (read === undefined) throw new DecodeError(`unknown field \`${name}\`, expected ${expectedNames(names)}`);
    read(member);
  }
  for (const name of required) if (!value.has(name)) throw new DecodeError(`missing field \`${name}\``);
}
