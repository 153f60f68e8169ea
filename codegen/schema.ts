import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { isObject, type JsonRecord } from "octet-extension/validation";
import { ajvFor, compileSchema, SchemaDraftError } from "./ajv.ts";
import type { ManifestFail } from "./errors.ts";

/**
 * A tool's `parameters` schema: loaded (inline or from a .json file), checked
 * against its JSON Schema draft, its local `$ref`s resolved within itself,
 * and turned into the plain copy the type generator reads.
 */

/** Keywords of code generators that would change generated code rather than describe data. */
const GENERATOR_KEYWORDS = ["tsType", "tsEnumNames", "tsName", "tsDeclaration"];

/** Keywords whose value is a schema, a list of schemas or a map of schemas (where `$ref` and `title` can occur). */
const ONE = ["additionalProperties", "additionalItems", "items", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedItems", "unevaluatedProperties"];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP = ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies"];

/** Every subschema of `schema` with its JSON Pointer, the schema itself first. */
export function* subschemas(schema: unknown, pointer = ""): Generator<[JsonRecord, string]> {
  if (!isObject(schema)) return;
  yield [schema, pointer];
  for (const key of ONE) if (isObject(schema[key])) yield* subschemas(schema[key], `${pointer}/${key}`);
  for (const key of MANY) {
    const list = schema[key];
    if (Array.isArray(list)) for (let i = 0; i < list.length; i++) yield* subschemas(list[i], `${pointer}/${key}/${i}`);
  }
  for (const key of MAP) {
    const map = schema[key];
    if (isObject(map)) for (const [name, sub] of Object.entries(map)) yield* subschemas(sub, `${pointer}/${key}/${escape(name)}`);
  }
}

const escape = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1");
const unescape = (token: string) => token.replace(/~1/g, "/").replace(/~0/g, "~");

/** Resolve a local `$ref` ("#", "#/definitions/X", "#/$defs/X", any JSON Pointer) against `root`. */
export function resolveLocalRef(root: JsonRecord, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let token: string;
    try {
      token = unescape(decodeURIComponent(raw));
    } catch {
      return undefined;
    }
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(token)) node = node[Number(token)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** An inline schema table, or a path to a `.json` file inside the project. */
export function loadSchema(value: unknown, key: string, dir: string, fail: ManifestFail): JsonRecord | undefined {
  if (value === undefined) return undefined;
  let schema: unknown = value;
  if (typeof value === "string") {
    if (!value.endsWith(".json") || isAbsolute(value)) fail(key, `${JSON.stringify(value)} is not a relative .json path`, 'give an inline table or a path like "schemas/args.json"');
    const file = resolve(dir, value);
    const rel = relative(dir, file);
    if (rel.startsWith(`..${sep}`)) fail(key, `${value} is outside the project`, "keep schema files inside the directory that holds manifest.toml");
    if (!existsSync(file)) fail(key, `${value} does not exist`, "create the schema file or fix the path");
    try {
      schema = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      fail(key, `${value} is not valid JSON: ${(error as Error).message}`, "fix the JSON");
    }
  }
  if (!isObject(schema)) return fail(key, "must be a JSON Schema object", 'e.g. { type = "object", properties = { ... } }');
  return schema;
}

/**
 * Check a tool's `parameters`: an object schema, valid for its draft
 * (`$schema`, default draft-07), no code-generator keywords, every `$ref`
 * local and resolvable, no unknown keywords.
 */
export function checkParameters(schema: JsonRecord, key: string, fail: ManifestFail): void {
  if (schema.type !== undefined && schema.type !== "object") fail(key, 'must describe an object (type = "object")', "tool arguments are always a JSON object");
  for (const [node, pointer] of subschemas(schema)) {
    for (const keyword of GENERATOR_KEYWORDS) {
      if (keyword in node) fail(`${key}${pointer}`, `\`${keyword}\` is a code-generator keyword, not JSON Schema`, "remove it: gen derives types from the schema alone");
    }
    if ("$ref" in node) {
      const ref = node.$ref;
      if (typeof ref !== "string") fail(`${key}${pointer}/$ref`, "must be a string", 'e.g. "#/$defs/City"');
      if (!(ref as string).startsWith("#")) fail(`${key}${pointer}/$ref`, `${JSON.stringify(ref)} is not a local reference`, 'refer into the same schema, e.g. "#/$defs/City"');
      if (!isObject(resolveLocalRef(schema, ref as string))) fail(`${key}${pointer}/$ref`, `${JSON.stringify(ref)} points at nothing in this schema`, "define it under $defs (or definitions) of the same schema, or fix the pointer");
    }
    if (node.$async !== undefined) fail(`${key}${pointer}/$async`, "asynchronous schemas are not supported", "remove $async");
    if (isInt64(node) && !integerOnly(node.type)) fail(`${key}${pointer}/format`, `${JSON.stringify(node.format)} needs type = "integer"`, 'set type = "integer" (or a list with "integer" and without "number", e.g. ["integer", "null"])');
  }
  let ajv;
  try {
    ajv = ajvFor(schema);
  } catch (error) {
    if (error instanceof SchemaDraftError) fail(`${key}/$schema`, error.message, 'use draft-07 (the default), "https://json-schema.org/draft/2019-09/schema" or "https://json-schema.org/draft/2020-12/schema"');
    throw error;
  }
  if (!ajv.validateSchema(schema)) {
    const errors = [...(ajv.errors ?? [])].sort((a, b) => b.instancePath.length - a.instancePath.length);
    const first = errors[0]!;
    const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues;
    const at = first.instancePath;
    const value = resolveLocalRef(schema, `#${at}`);
    const problem = allowed ? `${JSON.stringify(value)} is not allowed` : `${first.message ?? "is invalid"}`;
    fail(`${key}${at}`, problem, allowed ? `use one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}` : "make it valid JSON Schema (see json-schema.org)");
  }
  try {
    compileSchema(schema);
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /unknown keyword: "([^"]+)"/.exec(message)?.[1];
    if (unknown) {
      const where = [...subschemas(schema)].find(([node]) => unknown in node)?.[1] ?? "";
      fail(`${key}${where}/${unknown}`, `unknown keyword \`${unknown}\``, "remove it or fix its spelling (only JSON Schema keywords are allowed)");
    }
    fail(key, `cannot be compiled: ${message.split("\n")[0]}`, "fix the schema");
  }
}

/**
 * The copy the type generator reads: local `$ref`s inlined (a recursive
 * reference becomes "any JSON value"), and `title`, `$id`, `$schema`,
 * `definitions`/`$defs` and other naming inputs removed, so nothing in a
 * schema can name, merge with or shadow a generated type. `integer` and
 * `number` are `number`; `format = "int64"`/`"uint64"` is `bigint`, which the
 * validator guarantees (`exactIntegers`; without a validator the value is sent
 * as written: `number | bigint`).
 */
export function typeSchema(root: JsonRecord, options: { exactIntegers: boolean } = { exactIntegers: true }): JsonRecord {
  const copy = (node: unknown, stack: JsonRecord[]): unknown => {
    if (!isObject(node)) return node;
    let target = node;
    const refs: JsonRecord[] = [];
    while (typeof target.$ref === "string") {
      const next = resolveLocalRef(root, target.$ref);
      if (!isObject(next) || stack.includes(next) || refs.includes(next)) return {};
      refs.push(next);
      const { $ref: _ref, ...siblings } = target;
      target = Object.keys(siblings).some((k) => k !== "description") ? { allOf: [next], ...siblings } : { ...next, ...(siblings.description ? { description: siblings.description } : {}) };
    }
    target = spreadInt64Types(target);
    const nextStack = [...stack, node, ...refs];
    const out: JsonRecord = {};
    const set = (key: string, value: unknown) => Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    for (const [key, value] of Object.entries(target)) {
      if (["title", "$id", "$schema", "$comment", "definitions", "$defs", "$anchor", "$dynamicAnchor", "examples", "default"].includes(key)) continue;
      if (ONE.includes(key) && isObject(value)) set(key, copy(value, nextStack));
      else if (MANY.includes(key) && Array.isArray(value)) set(key, value.map((v) => copy(v, nextStack)));
      else if (MAP.includes(key) && isObject(value)) set(key, Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v, nextStack)])));
      else set(key, value);
    }
    if (out.type === "integer" && isInt64(out)) set("tsType", options.exactIntegers ? "bigint" : "(number | bigint)");
    return out;
  };
  return copy(root, []) as JsonRecord;
}

/** `format = "int64"` or `"uint64"`: the integer arrives as a `bigint` (docs/manifest.md, "Integers"). */
export function isInt64(node: JsonRecord): boolean {
  return node.format === "int64" || node.format === "uint64";
}

/** `type` is "integer", or a list with "integer" and without "number". */
function integerOnly(type: unknown): boolean {
  return type === "integer" || (Array.isArray(type) && type.includes("integer") && !type.includes("number"));
}

/** `type = ["integer", "null"]` with an int64 format as one schema per type, so the integer member can be typed on its own. */
function spreadInt64Types(node: JsonRecord): JsonRecord {
  const types = node.type;
  if (!Array.isArray(types) || !isInt64(node)) return node;
  const { type: _type, format, ...rest } = node;
  return { anyOf: types.map((t) => (t === "integer" ? { ...rest, type: t, format } : { ...rest, type: t })) };
}
