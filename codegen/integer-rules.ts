import { _, type CodeKeywordDefinition, type KeywordCxt } from "ajv";
import { integerRule, isObject } from "octet-extension/validation";
import { isInt64, subschemas } from "./schema.ts";

/**
 * Integers in the validators gen writes (docs/manifest.md, "Integers"): each
 * `integer` or `number` schema gets the `octetInteger` keyword, whose code
 * calls `integerRule` from `octet-extension/validation`. A value typed
 * `number` that arrived as a `bigint` (beyond ±(2^53−1)) is refused with the
 * fix; one under `format = "int64"`/`"uint64"` is range-checked exactly and
 * handed to the handler as a `bigint`.
 */

export const INTEGER_KEYWORD = "octetInteger";

/** The module id the written validators load `integerRule` by (validators.ts maps it). */
const RULE_MODULE = "octet-extension/integer-rule";

const MESSAGES: Record<string, string> = {
  safe: 'must be within ±9007199254740991 to arrive exactly as a number (to accept larger integers, declare it with format = "int64" in manifest.toml: it then arrives as a bigint)',
  int64: "must be an int64 (-9223372036854775808 to 9223372036854775807)",
  uint64: "must be a uint64 (0 to 18446744073709551615)",
};

/** The rule an issue names: `safeInteger`, or `format` for the int64 ranges. */
const RULES: Record<string, string> = { safe: "safeInteger", int64: "format", uint64: "format" };

/** The Ajv keyword; its code runs only on numbers. */
export const integerKeyword: CodeKeywordDefinition = {
  keyword: INTEGER_KEYWORD,
  type: "number",
  schemaType: "string",
  code(cxt: KeywordCxt) {
    const { gen, data, it, schema } = cxt;
    const rule = gen.scopeValue("func", { ref: integerRule, code: _`require(${RULE_MODULE}).default` });
    cxt.fail(_`!${rule}(${schema as string}, ${data}, ${it.parentData}, ${it.parentDataProperty})`);
  },
  error: {
    message: ({ schema }) => MESSAGES[schema as string] ?? "is not a valid integer",
    params: ({ schema }) => _`{rule: ${RULES[schema as string] ?? "format"}}`,
  },
};

/** A copy of `schema` with `octetInteger` beside every `integer`/`number` type: "int64", "uint64" or "safe". */
export function withIntegerRules(schema: Record<string, unknown>): Record<string, unknown> {
  const numeric = new Set<object>();
  for (const [node] of subschemas(schema)) {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes("integer") || types.includes("number")) numeric.add(node);
  }
  const copy = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(copy);
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    const set = (key: string, value: unknown) => Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    for (const [key, value] of Object.entries(node)) set(key, ["enum", "const", "default", "examples"].includes(key) ? value : copy(value));
    if (numeric.has(node)) set(INTEGER_KEYWORD, isInt64(node) ? node.format : "safe");
    return out;
  };
  return copy(schema) as Record<string, unknown>;
}
