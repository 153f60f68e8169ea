/**
 * CLI flags (docs/api-0.4.md "CLI flags"): octet reads the flags an extension
 * declares in `extension.toml`, takes their values from its command line
 * without running extension code, and passes every declared flag (defaults
 * filled in) as `initialize.params.flag_values` on API 0.2 and 0.4.
 */
import { isObject, utf8Bytes } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import { FLAG_NAME, MAX_FLAG_STRING_BYTES, MAX_FLAGS } from "../protocol.ts";
import type { JsonObject } from "./types.ts";

/** A flag's value: `boolean`, `string` (≤ 4 KiB) or `integer` (a safe integer). */
export type FlagValue = boolean | string | number;

const invalid = (message: string) => new RpcError(ErrorCode.InvalidParams, message);

/**
 * The flag values of an initialize: the defaults of `contributes.flags`
 * overlaid with `flag_values` (octet sends both; either may be absent).
 * Throws `-32602` for a malformed list, as octet never sends one.
 */
export function readFlagValues(params: JsonObject, contributes: JsonObject): Readonly<Record<string, FlagValue>> {
  const values: Record<string, FlagValue> = Object.create(null);
  const declared = contributes.flags;
  if (Array.isArray(declared)) {
    for (const flag of declared) {
      if (isObject(flag) && typeof flag.name === "string" && isFlagValue(flag.default)) values[flag.name] = flag.default;
    }
  }
  const given = params.flag_values;
  if (given === undefined || given === null) return Object.freeze(values);
  return withGivenValues(values, given);
}

/** {@link readFlagValues} with `flag_values` sent (out of line: a function is linked whole on its first call). */
function withGivenValues(values: Record<string, FlagValue>, given: unknown): Readonly<Record<string, FlagValue>> {
  if (!Array.isArray(given) || given.length > MAX_FLAGS) throw invalid(`initialize flag_values must be an array of at most ${MAX_FLAGS} {name, value} objects`);
  const seen = new Set<string>();
  for (const entry of given) {
    if (!isObject(entry) || typeof entry.name !== "string" || !FLAG_NAME.test(entry.name) || !isFlagValue(entry.value)) {
      throw invalid("initialize flag_values entries must be {name, value} with a flag name and a boolean, string or safe integer value");
    }
    if (seen.has(entry.name)) throw invalid(`initialize flag_values names ${entry.name} twice`);
    seen.add(entry.name);
    values[entry.name] = entry.value;
  }
  return Object.freeze(values);
}

function isFlagValue(value: unknown): value is FlagValue {
  if (typeof value === "boolean") return true;
  if (typeof value === "string") return utf8Bytes(value) <= MAX_FLAG_STRING_BYTES;
  return typeof value === "number" && Number.isSafeInteger(value);
}
