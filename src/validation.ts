/**
 * octet-extension/validation: what the argument validators written by
 * `octet-extension gen` need at run time. They are compiled from the
 * manifest's schemas at gen time (Ajv standalone code), so a shipped bundle
 * carries no schema compiler; the few helpers that code calls live here.
 * Also the predicates of the check kit (`src/check.ts`) that the author
 * tooling's manifest checks share with the runtime.
 */
import { holdsBigInt } from "./wire/json.ts";

export type { ArgumentIssue, ArgumentValidator } from "./runtime/arguments.ts";
export { hasDuplicates, isObject, isOneOf, isStringArray, unknownKey, utf8Bytes } from "./check.ts";
export type { JsonRecord } from "./check.ts";

/**
 * The arguments as a compiled validator checks them. Integer literals beyond
 * ±(2^53−1) arrive as `bigint`, which Ajv's code does not know; in a copy
 * they become the nearest `number`, so `type`, bounds and `enum` are checked
 * at double precision (docs/manifest.md, "Integers"). Arguments without
 * a big integer are returned as they are, at no cost.
 */
export function schemaView(args: unknown): unknown {
  return holdsBigInt(args) ? withNumbers(args) : args;
}

/** Each object or array of a view made by {@link schemaView}, to the arguments' own one it copies. */
const originals = new WeakMap<object, object>();

function withNumbers(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (!holdsBigInt(value)) return value;
  if (Array.isArray(value)) {
    const list = value.map(withNumbers);
    originals.set(list, value);
    return list;
  }
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    Object.defineProperty(copy, key, { value: withNumbers(item), enumerable: true, writable: true, configurable: true });
  }
  originals.set(copy, value as object);
  return copy;
}

/** `int64`/`uint64` values the running check accepted, written into the arguments as `bigint`s once it passes. */
let exactIntegers: [holder: Record<string | number, unknown>, key: string | number, value: bigint][] = [];

/**
 * Run a compiled check on `args` (through {@link schemaView}); when it
 * passes, every integer it met at a `format = "int64"`/`"uint64"` schema is
 * replaced in `args` by its exact `bigint` (`5` → `5n`).
 */
export function checkArguments(check: (view: unknown) => boolean, args: unknown): boolean {
  exactIntegers = [];
  bigIntegers = holdsBigInt(args);
  const ok = check(schemaView(args));
  if (ok) for (const [holder, key, value] of exactIntegers) holder[key] = value;
  exactIntegers = [];
  return ok;
}

/** Whether the arguments being checked hold a `bigint` (without one, `safe` holds everywhere). */
let bigIntegers = true;

const INT64 = { int64: [-(2n ** 63n), 2n ** 63n - 1n], uint64: [0n, 2n ** 64n - 1n] } as const;

/**
 * The `octetInteger` rule gen adds to each `integer`/`number` schema of a
 * validator (docs/manifest.md, "Integers"). `safe`: the value must not have
 * arrived as a `bigint` (beyond ±(2^53−1)). `int64`/`uint64`: the exact value
 * must be in range, and it is recorded to arrive as a `bigint`.
 */
export function integerRule(mode: string, data: unknown, parent: unknown, key: string | number): boolean {
  if (typeof data !== "number" || typeof parent !== "object" || parent === null || (mode === "safe" && !bigIntegers)) return true;
  const holder = (originals.get(parent) ?? parent) as Record<string | number, unknown>;
  const value = holder[key];
  if (mode === "safe") return typeof value !== "bigint";
  const range = INT64[mode as keyof typeof INT64];
  if (!range) return true;
  const exact = typeof value === "bigint" ? value : Number.isInteger(data) ? BigInt(data) : undefined;
  // A fraction is for the `type` keyword to report.
  if (exact === undefined) return true;
  if (exact < range[0] || exact > range[1]) return false;
  exactIntegers.push([holder, key, exact]);
  return true;
}

/** String length in Unicode code points, as JSON Schema's minLength/maxLength count it. */
export function ucs2length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    length++;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return length;
}

/** Deep equality of JSON values, as JSON Schema's `const`, `enum` and `uniqueItems` compare them. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return a !== a && b !== b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

const RUNTIME: Record<string, { default: unknown }> = {
  "ajv/dist/runtime/ucs2length": { default: ucs2length },
  "ajv/dist/runtime/equal": { default: jsonEqual },
  "octet-extension/integer-rule": { default: integerRule },
};

/** The modules generated validator code imports by name; gen refuses schemas that need any other. */
export const VALIDATOR_RUNTIME_MODULES: readonly string[] = Object.keys(RUNTIME);

/** `require` for generated validator code. */
export function validatorRuntime(id: string): { default: unknown } {
  const module = RUNTIME[id];
  if (!module) throw new Error(`generated validator needs ${id}, which octet-extension does not provide: run \`octet-extension gen\` again`);
  return module;
}
