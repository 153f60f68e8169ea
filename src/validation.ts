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

/**
 * The arguments as a compiled validator checks them. Integer literals beyond
 * ±(2^53−1) arrive as `bigint`, which Ajv's code does not know; in a copy
 * they become the nearest `number`, so `type`, bounds and `enum` are checked
 * at double precision (docs/manifest.md, "Big integers"). Arguments without
 * a big integer are returned as they are, at no cost.
 */
export function schemaView(args: unknown): unknown {
  return holdsBigInt(args) ? withNumbers(args) : args;
}

function withNumbers(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (!holdsBigInt(value)) return value;
  if (Array.isArray(value)) return value.map(withNumbers);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    Object.defineProperty(copy, key, { value: withNumbers(item), enumerable: true, writable: true, configurable: true });
  }
  return copy;
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
};

/** The modules generated validator code imports by name; gen refuses schemas that need any other. */
export const VALIDATOR_RUNTIME_MODULES: readonly string[] = Object.keys(RUNTIME);

/** `require` for generated validator code. */
export function validatorRuntime(id: string): { default: unknown } {
  const module = RUNTIME[id];
  if (!module) throw new Error(`generated validator needs ${id}, which octet-extension does not provide: run \`octet-extension gen\` again`);
  return module;
}
