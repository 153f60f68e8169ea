/**
 * Validation of a tool's `structured_content` against its `output_schema`
 * (API 0.2, docs/protocol-0.2.md §6.3), before the reply is written.
 */
import { type JsonRecord, isObject, memberPath } from "../../check.ts";
import { canonicalJson } from "../../wire/canonical-json.ts";
import { droppedByJson, jsonMembers } from "../../wire/json-text.ts";
import { MAX_SCHEMA_DEPTH } from "../../output-schema.ts";

/** Maximum schema-node visits while validating one value. */
export const MAX_VALIDATION_STEPS = 65_536;

/** Thrown internally once the step budget is spent; never escapes. */
class StepLimit {
  constructor(readonly message: string) {}
}

interface Run {
  steps: number;
}

/**
 * Validate `value` against a schema that passed `checkOutputSchema`.
 * Returns `undefined` when valid, else a short message with the JSON path of
 * the first failure. Work is capped at 65,536 schema-node visits; past the
 * cap the value is reported as failing.
 *
 * @example
 * validateStructured({ doubled: 2.5 }, { type: "object", properties: { doubled: { type: "integer" } } });
 * // "$.doubled: expected integer"
 */
export function validateStructured(value: unknown, schema: object): string | undefined {
  try {
    return validateNode(value, schema, "$", 1, { steps: 0 });
  } catch (error) {
    if (error instanceof StepLimit) return error.message;
    if (error instanceof RangeError) return "$: value is too deeply nested to validate";
    throw error;
  }
}

function validateNode(value: unknown, schema: unknown, path: string, depth: number, run: Run): string | undefined {
  run.steps += 1;
  if (run.steps > MAX_VALIDATION_STEPS) {
    throw new StepLimit(`${path}: validation exceeds ${MAX_VALIDATION_STEPS} steps`);
  }
  if (!isObject(schema)) return `${path}: invalid schema (not an object)`;
  if (depth > MAX_SCHEMA_DEPTH) return `${path}: invalid schema (nesting exceeds ${MAX_SCHEMA_DEPTH} levels)`;
  const kw = (key: string): unknown => (Object.hasOwn(schema, key) ? schema[key] : undefined);

  const type = kw("type");
  if (type !== undefined) {
    const names = (Array.isArray(type) ? type : [type]) as string[];
    if (!names.some((name) => hasType(value, name))) return `${path}: expected ${names.join(" or ")}`;
  }
  const constant = kw("const");
  if (Object.hasOwn(schema, "const") && constant !== undefined && !jsonEqual(value, constant)) {
    return `${path}: does not equal the const value`;
  }
  const choices = kw("enum");
  if (Array.isArray(choices)) {
    const key = canonicalJson(value);
    if (!choices.some((choice) => canonicalJson(choice) === key)) return `${path}: not one of the enum values`;
  }

  if (isNumeric(value)) {
    const failure = checkNumber(value, schema, path);
    if (failure) return failure;
  } else if (typeof value === "string") {
    const minLength = kw("minLength");
    const maxLength = kw("maxLength");
    if (typeof minLength === "number" || typeof maxLength === "number") {
      const length = codePoints(value);
      if (typeof minLength === "number" && length < minLength) return `${path}: shorter than ${minLength} characters`;
      if (typeof maxLength === "number" && length > maxLength) return `${path}: longer than ${maxLength} characters`;
    }
  } else if (Array.isArray(value)) {
    const failure = checkArray(value, schema, path, depth, run);
    if (failure) return failure;
  } else if (isObject(value)) {
    const failure = checkObject(value, schema, path, depth, run);
    if (failure) return failure;
  }

  const allOf = kw("allOf");
  if (Array.isArray(allOf)) {
    for (const sub of allOf) {
      const failure = validateNode(value, sub, path, depth + 1, run);
      if (failure) return failure;
    }
  }
  const anyOf = kw("anyOf");
  if (Array.isArray(anyOf) && !anyOf.some((sub) => validateNode(value, sub, path, depth + 1, run) === undefined)) {
    return `${path}: does not match any anyOf alternative`;
  }
  const oneOf = kw("oneOf");
  if (Array.isArray(oneOf)) {
    const matched: number[] = [];
    oneOf.forEach((sub, i) => {
      if (validateNode(value, sub, path, depth + 1, run) === undefined) matched.push(i);
    });
    if (matched.length === 0) return `${path}: does not match any oneOf alternative`;
    if (matched.length > 1) return `${path}: matches more than one oneOf alternative (${matched.join(", ")})`;
  }
  return undefined;
}

function isNumeric(value: unknown): value is number | bigint {
  return (typeof value === "number" && Number.isFinite(value)) || typeof value === "bigint";
}

function hasType(value: unknown, name: string): boolean {
  switch (name) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "number":
      return isNumeric(value);
    case "integer":
      return typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value));
    case "string":
      return typeof value === "string";
    default:
      return false;
  }
}

function checkNumber(value: number | bigint, schema: JsonRecord, path: string): string | undefined {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (typeof minimum === "number" && value < minimum) return `${path}: must be >= ${minimum}`;
  if (typeof maximum === "number" && value > maximum) return `${path}: must be <= ${maximum}`;
  if (typeof exclusiveMinimum === "number" && value <= exclusiveMinimum) return `${path}: must be > ${exclusiveMinimum}`;
  if (typeof exclusiveMaximum === "number" && value >= exclusiveMaximum) return `${path}: must be < ${exclusiveMaximum}`;
  return undefined;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function checkArray(value: unknown[], schema: JsonRecord, path: string, depth: number, run: Run): string | undefined {
  const { minItems, maxItems, uniqueItems, items } = schema;
  if (typeof minItems === "number" && value.length < minItems) return `${path}: fewer than ${minItems} items`;
  if (typeof maxItems === "number" && value.length > maxItems) return `${path}: more than ${maxItems} items`;
  if (uniqueItems === true) {
    const seen = new Map<string, number>();
    for (let i = 0; i < value.length; i++) {
      const key = canonicalJson(value[i]);
      const first = seen.get(key);
      if (first !== undefined) return `${path}: items ${first} and ${i} are equal (uniqueItems)`;
      seen.set(key, i);
    }
  }
  if (Object.hasOwn(schema, "items") && items !== undefined) {
    for (let i = 0; i < value.length; i++) {
      const failure = validateNode(value[i], items, `${path}[${i}]`, depth + 1, run);
      if (failure) return failure;
    }
  }
  return undefined;
}

function checkObject(value: JsonRecord, schema: JsonRecord, path: string, depth: number, run: Run): string | undefined {
  const { minProperties, maxProperties, required, properties, additionalProperties } = schema;
  const present = jsonMembers(value);
  if (typeof minProperties === "number" && present.length < minProperties) return `${path}: fewer than ${minProperties} properties`;
  if (typeof maxProperties === "number" && present.length > maxProperties) return `${path}: more than ${maxProperties} properties`;
  if (Array.isArray(required)) {
    for (const name of required) {
      if (typeof name === "string" && (!Object.hasOwn(value, name) || droppedByJson(value[name]))) {
        return `${memberPath(path, name)}: missing required property`;
      }
    }
  }
  const declared = isObject(properties) ? properties : {};
  for (const [name, item] of present) {
    const at = memberPath(path, name);
    if (Object.hasOwn(declared, name)) {
      const failure = validateNode(item, declared[name], at, depth + 1, run);
      if (failure) return failure;
    } else if (additionalProperties === false) {
      return `${at}: unexpected property`;
    } else if (isObject(additionalProperties)) {
      const failure = validateNode(item, additionalProperties, at, depth + 1, run);
      if (failure) return failure;
    }
  }
  return undefined;
}

/** Deep JSON equality: object key order is irrelevant, `1` and `1.0` are equal, `1` and `true` are not. */
function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
