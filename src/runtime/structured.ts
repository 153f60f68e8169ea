/**
 * Structured tool output (API 0.2): the bounded `output_schema` subset
 * (spec §6.3), validation of `structured_content` against it, and the result
 * size/shape bounds for `structured_content` and `metadata` (spec §3.2, §7).
 *
 * No imports: results.ts builds on it and codegen reuses it for manifest schemas.
 */

/** Maximum nesting of schema nodes (the root schema is level 1). */
export const MAX_SCHEMA_DEPTH = 32;
/** Maximum UTF-8 length of a name under `properties`. */
export const MAX_PROPERTY_NAME_BYTES = 256;
/** Maximum schema-node visits while validating one value. */
export const MAX_VALIDATION_STEPS = 65_536;
/** Maximum JSON-encoded size of `structured_content` (256 KiB). */
export const MAX_STRUCTURED_BYTES = 256 * 1024;
/** Maximum JSON-encoded size of `metadata` (64 KiB). */
export const MAX_METADATA_BYTES = 64 * 1024;
/** Maximum value depth (a top-level scalar is depth 1; `{"a":1}` is depth 2). */
export const MAX_VALUE_DEPTH = 32;
/** Maximum number of values (objects, arrays and scalars) in one tree. */
export const MAX_VALUE_NODES = 16_384;
/** Maximum UTF-8 length of any object key inside `metadata`. */
export const MAX_METADATA_KEY_BYTES = 256;

const KEYWORDS = new Set([
  "$schema", "title", "description", "default", "examples", "type", "properties", "required",
  "additionalProperties", "items", "enum", "const", "allOf", "anyOf", "oneOf", "minimum", "maximum",
  "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
  "uniqueItems", "minProperties", "maxProperties",
]);
const TYPE_NAMES = new Set(["null", "boolean", "object", "array", "number", "integer", "string"]);
const NUMERIC_BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;
const COUNT_BOUNDS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const;
const COMBINATORS = ["allOf", "anyOf", "oneOf"] as const;

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** `base.name` for identifier-like names, else `base["name"]`. */
function member(base: string, name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${base}.${name}` : `${base}[${JSON.stringify(name)}]`;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 32 ? `${text.slice(0, 32)}…` : text);
}

/** Values JSON encoding drops from an object (and writes as `null` in an array). */
function dropped(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** An object's members as JSON would encode them. */
function entries(value: Obj): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => !dropped(v));
}

// ---------------------------------------------------------------------------
// output_schema subset (spec §6.3)

/**
 * Check that `schema` is in the bounded `output_schema` subset (spec §6.3);
 * throws a plain `Error` naming the JSON path of the first problem.
 *
 * @example
 * checkOutputSchema({ type: "object", properties: { count: { type: "int" } } });
 * // Error: output_schema.properties.count.type: unknown type name "int"
 */
export function checkOutputSchema(schema: unknown): void {
  checkSchemaNode(schema, "output_schema", 1);
}

function checkSchemaNode(node: unknown, path: string, depth: number): void {
  if (!isObj(node)) throw new Error(`${path}: a schema must be a JSON object`);
  if (depth > MAX_SCHEMA_DEPTH) throw new Error(`${path}: schema nesting exceeds ${MAX_SCHEMA_DEPTH} levels`);
  for (const key of Object.keys(node)) {
    if (!KEYWORDS.has(key)) throw new Error(`${member(path, key)}: unknown keyword ${JSON.stringify(key)}`);
  }
  const has = (key: string): boolean => Object.hasOwn(node, key) && node[key] !== undefined;

  if (has("type")) checkTypeKeyword(node.type, member(path, "type"));
  for (const key of ["enum", ...COMBINATORS]) {
    if (has(key) && (!Array.isArray(node[key]) || (node[key] as unknown[]).length === 0)) {
      throw new Error(`${member(path, key)}: must be a non-empty array`);
    }
  }
  for (const key of NUMERIC_BOUNDS) {
    const bound = node[key];
    if (has(key) && (typeof bound !== "number" || !Number.isFinite(bound))) {
      throw new Error(`${member(path, key)}: must be a number`);
    }
  }
  for (const key of COUNT_BOUNDS) {
    const bound = node[key];
    if (has(key) && !(typeof bound === "number" && Number.isSafeInteger(bound) && bound >= 0)) {
      throw new Error(`${member(path, key)}: must be a non-negative integer`);
    }
  }
  if (has("uniqueItems") && typeof node.uniqueItems !== "boolean") {
    throw new Error(`${member(path, "uniqueItems")}: must be a boolean`);
  }
  if (has("required")) {
    const required = node.required;
    if (!Array.isArray(required)) throw new Error(`${member(path, "required")}: must be an array of strings`);
    required.forEach((name, i) => {
      if (typeof name !== "string") throw new Error(`${member(path, "required")}[${i}]: must be a string`);
    });
  }
  if (has("properties")) {
    const propsPath = member(path, "properties");
    if (!isObj(node.properties)) throw new Error(`${propsPath}: must be an object of schemas`);
    for (const [name, sub] of Object.entries(node.properties)) {
      const bytes = utf8Bytes(name);
      if (bytes > MAX_PROPERTY_NAME_BYTES) {
        throw new Error(`${propsPath}: property name ${preview(name)} is ${bytes} bytes (limit ${MAX_PROPERTY_NAME_BYTES} UTF-8 bytes)`);
      }
      checkSchemaNode(sub, member(propsPath, name), depth + 1);
    }
  }
  if (has("additionalProperties") && typeof node.additionalProperties !== "boolean") {
    const extraPath = member(path, "additionalProperties");
    if (!isObj(node.additionalProperties)) throw new Error(`${extraPath}: must be a boolean or a schema object`);
    checkSchemaNode(node.additionalProperties, extraPath, depth + 1);
  }
  if (has("items")) checkSchemaNode(node.items, member(path, "items"), depth + 1);
  for (const key of COMBINATORS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((sub, i) => checkSchemaNode(sub, `${member(path, key)}[${i}]`, depth + 1));
  }
}

function checkTypeKeyword(type: unknown, path: string): void {
  const names = Array.isArray(type) ? type : [type];
  if (names.length === 0) throw new Error(`${path}: must be a type name or a non-empty array of type names`);
  names.forEach((name, i) => {
    const at = Array.isArray(type) ? `${path}[${i}]` : path;
    if (typeof name !== "string") throw new Error(`${at}: a type name must be a string`);
    if (!TYPE_NAMES.has(name)) throw new Error(`${at}: unknown type name ${JSON.stringify(name)}`);
  });
}

// ---------------------------------------------------------------------------
// Validation of structured_content

/** Thrown internally once the step budget is spent; never escapes. */
class StepLimit {
  constructor(readonly message: string) {}
}

interface Run {
  steps: number;
}

/**
 * Validate `value` against a schema that passed {@link checkOutputSchema}.
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
  if (!isObj(schema)) return `${path}: invalid schema (not an object)`;
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
  } else if (isObj(value)) {
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
      return isObj(value);
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

function checkNumber(value: number | bigint, schema: Obj, path: string): string | undefined {
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

function checkArray(value: unknown[], schema: Obj, path: string, depth: number, run: Run): string | undefined {
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

function checkObject(value: Obj, schema: Obj, path: string, depth: number, run: Run): string | undefined {
  const { minProperties, maxProperties, required, properties, additionalProperties } = schema;
  const present = entries(value);
  if (typeof minProperties === "number" && present.length < minProperties) return `${path}: fewer than ${minProperties} properties`;
  if (typeof maxProperties === "number" && present.length > maxProperties) return `${path}: more than ${maxProperties} properties`;
  if (Array.isArray(required)) {
    for (const name of required) {
      if (typeof name === "string" && (!Object.hasOwn(value, name) || dropped(value[name]))) {
        return `${member(path, name)}: missing required property`;
      }
    }
  }
  const declared = isObj(properties) ? properties : {};
  for (const [name, item] of present) {
    const at = member(path, name);
    if (Object.hasOwn(declared, name)) {
      const failure = validateNode(item, declared[name], at, depth + 1, run);
      if (failure) return failure;
    } else if (additionalProperties === false) {
      return `${at}: unexpected property`;
    } else if (isObj(additionalProperties)) {
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

/**
 * A canonical JSON text: keys sorted by UTF-16 code units, compact, members
 * JSON would drop left out. Used for equality, uniqueness and intent sizes.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || dropped(value)) return "null";
  if (typeof value === "bigint") {
    const asNumber = Number(value);
    return Number.isSafeInteger(asNumber) ? JSON.stringify(asNumber) : value.toString();
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const members = entries(value as Obj).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

// ---------------------------------------------------------------------------
// Result bounds (spec §3.2, §7)

/**
 * Check an API 0.2 tool result's `structured_content` and `metadata` against
 * the host's bounds: ≤ 256 KiB / 64 KiB JSON-encoded, each ≤ 32 levels deep
 * and ≤ 16,384 values, metadata object keys ≤ 256 UTF-8 bytes at any depth.
 * Returns a message naming the exceeded bound, else `undefined`. Absent
 * (`undefined`) fields are not checked.
 *
 * @example
 * checkResultBounds({ metadata: { ["k".repeat(300)]: 1 } });
 * // 'metadata key "kkk…" is 300 bytes (limit 256 UTF-8 bytes) at metadata'
 */
export function checkResultBounds(result: { structured_content?: unknown; metadata?: unknown }): string | undefined {
  if (result.structured_content !== undefined) {
    const failure = checkTree("structured_content", result.structured_content, MAX_STRUCTURED_BYTES, false);
    if (failure) return failure;
  }
  if (result.metadata !== undefined) {
    const failure = checkTree("metadata", result.metadata, MAX_METADATA_BYTES, true);
    if (failure) return failure;
  }
  return undefined;
}

function checkTree(field: string, root: unknown, maxBytes: number, checkKeys: boolean): string | undefined {
  // Iterative walk: bounded by the node cap, so cycles and hostile depth cannot run away.
  const stack: [unknown, number, string][] = [[root, 1, field]];
  let nodes = 0;
  while (stack.length > 0) {
    const [value, depth, path] = stack.pop()!;
    nodes += 1;
    if (nodes > MAX_VALUE_NODES) return `${field} exceeds ${MAX_VALUE_NODES} nodes`;
    if (depth > MAX_VALUE_DEPTH) return `${field} exceeds ${MAX_VALUE_DEPTH} levels of nesting (at ${path})`;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], depth + 1, `${path}[${i}]`]);
    } else if (typeof value === "object" && value !== null) {
      const members = entries(value as Obj);
      for (let i = members.length - 1; i >= 0; i--) {
        const [key, item] = members[i]!;
        if (checkKeys) {
          const bytes = utf8Bytes(key);
          if (bytes > MAX_METADATA_KEY_BYTES) {
            return `${field} key ${preview(key)} is ${bytes} bytes (limit ${MAX_METADATA_KEY_BYTES} UTF-8 bytes) at ${path}`;
          }
        }
        stack.push([item, depth + 1, member(path, key)]);
      }
    }
  }
  const size = encodedBytes(root);
  if (typeof size === "string") return `${field} cannot be JSON-encoded: ${size}`;
  if (size > maxBytes) return `${field} exceeds ${maxBytes / 1024} KiB when JSON-encoded (${size} bytes)`;
  return undefined;
}

/** UTF-8 size of the compact JSON the runtime's encoder writes, or why it cannot be encoded. */
function encodedBytes(value: unknown): number | string {
  let text: string | undefined;
  try {
    try {
      text = JSON.stringify(value);
    } catch {
      text = JSON.stringify(value, bigintAsNumber);
    }
    if (text !== undefined && text.includes("\\ud")) text = JSON.stringify(value, wellFormed);
  } catch (error) {
    return (error as Error).message;
  }
  return text === undefined ? 4 : utf8Bytes(text);
}

function bigintAsNumber(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return (JSON as unknown as { rawJSON(s: string): unknown }).rawJSON(value.toString());
  return value;
}

function wellFormed(key: string, value: unknown): unknown {
  if (typeof value === "string") return value.toWellFormed();
  return bigintAsNumber(key, value);
}
