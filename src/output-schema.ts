/**
 * The bounded `output_schema` subset of API 0.2 (docs/protocol-0.2.md §6.3). Checked when a
 * tool is registered and, by the author tooling, when a manifest is read.
 */
import { isObject, memberPath, preview, utf8Bytes } from "./check.ts";

/** Maximum nesting of schema nodes (the root schema is level 1). */
export const MAX_SCHEMA_DEPTH = 32;
/** Maximum UTF-8 length of a name under `properties`. */
export const MAX_PROPERTY_NAME_BYTES = 256;

const KEYWORD_NAMES = [
  "$schema", "title", "description", "default", "examples", "type", "properties", "required",
  "additionalProperties", "items", "enum", "const", "allOf", "anyOf", "oneOf", "minimum", "maximum",
  "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
  "uniqueItems", "minProperties", "maxProperties",
];
const TYPE_NAME_LIST = ["null", "boolean", "object", "array", "number", "integer", "string"];
/** The keyword and type-name sets, made when the first schema is checked (not at start-up). */
let nameSets: { keywords: Set<string>; types: Set<string> } | undefined;
const schemaNames = () => (nameSets ??= { keywords: new Set(KEYWORD_NAMES), types: new Set(TYPE_NAME_LIST) });

const NUMERIC_BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;
const COUNT_BOUNDS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const;
const COMBINATORS = ["allOf", "anyOf", "oneOf"] as const;

/**
 * Check that `schema` is in the bounded `output_schema` subset (docs/protocol-0.2.md §6.3);
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
  if (!isObject(node)) throw new Error(`${path}: a schema must be a JSON object`);
  if (depth > MAX_SCHEMA_DEPTH) throw new Error(`${path}: schema nesting exceeds ${MAX_SCHEMA_DEPTH} levels`);
  for (const key of Object.keys(node)) {
    if (!schemaNames().keywords.has(key)) throw new Error(`${memberPath(path, key)}: unknown keyword ${JSON.stringify(key)}`);
  }
  const has = (key: string): boolean => Object.hasOwn(node, key) && node[key] !== undefined;

  if (has("type")) checkTypeKeyword(node.type, memberPath(path, "type"));
  for (const key of ["enum", ...COMBINATORS]) {
    if (has(key) && (!Array.isArray(node[key]) || (node[key] as unknown[]).length === 0)) {
      throw new Error(`${memberPath(path, key)}: must be a non-empty array`);
    }
  }
  for (const key of NUMERIC_BOUNDS) {
    const bound = node[key];
    if (has(key) && (typeof bound !== "number" || !Number.isFinite(bound))) {
      throw new Error(`${memberPath(path, key)}: must be a number`);
    }
  }
  for (const key of COUNT_BOUNDS) {
    const bound = node[key];
    if (has(key) && !(typeof bound === "number" && Number.isSafeInteger(bound) && bound >= 0)) {
      throw new Error(`${memberPath(path, key)}: must be a non-negative integer`);
    }
  }
  if (has("uniqueItems") && typeof node.uniqueItems !== "boolean") {
    throw new Error(`${memberPath(path, "uniqueItems")}: must be a boolean`);
  }
  if (has("required")) {
    const required = node.required;
    if (!Array.isArray(required)) throw new Error(`${memberPath(path, "required")}: must be an array of strings`);
    required.forEach((name, i) => {
      if (typeof name !== "string") throw new Error(`${memberPath(path, "required")}[${i}]: must be a string`);
    });
  }
  if (has("properties")) {
    const propsPath = memberPath(path, "properties");
    if (!isObject(node.properties)) throw new Error(`${propsPath}: must be an object of schemas`);
    for (const [name, sub] of Object.entries(node.properties)) {
      const bytes = utf8Bytes(name);
      if (bytes > MAX_PROPERTY_NAME_BYTES) {
        throw new Error(`${propsPath}: property name ${preview(name)} is ${bytes} bytes (limit ${MAX_PROPERTY_NAME_BYTES} UTF-8 bytes)`);
      }
      checkSchemaNode(sub, memberPath(propsPath, name), depth + 1);
    }
  }
  if (has("additionalProperties") && typeof node.additionalProperties !== "boolean") {
    const extraPath = memberPath(path, "additionalProperties");
    if (!isObject(node.additionalProperties)) throw new Error(`${extraPath}: must be a boolean or a schema object`);
    checkSchemaNode(node.additionalProperties, extraPath, depth + 1);
  }
  if (has("items")) checkSchemaNode(node.items, memberPath(path, "items"), depth + 1);
  for (const key of COMBINATORS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((sub, i) => checkSchemaNode(sub, `${memberPath(path, key)}[${i}]`, depth + 1));
  }
}

function checkTypeKeyword(type: unknown, path: string): void {
  const names = Array.isArray(type) ? type : [type];
  if (names.length === 0) throw new Error(`${path}: must be a type name or a non-empty array of type names`);
  names.forEach((name, i) => {
    const at = Array.isArray(type) ? `${path}[${i}]` : path;
    if (typeof name !== "string") throw new Error(`${at}: a type name must be a string`);
    if (!schemaNames().types.has(name)) throw new Error(`${at}: unknown type name ${JSON.stringify(name)}`);
  });
}
