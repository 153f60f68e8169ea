import { isObject, type JsonRecord } from "octet-extension/validation";
import { resolveLocalRef } from "./schema.ts";

/**
 * Tool parameter objects are closed by default (docs/manifest.md, "Closed
 * objects"): an object schema that lists `properties` (and the root, always)
 * gets `additionalProperties = false` unless it states `additionalProperties`
 * or `unevaluatedProperties` itself. The copy this returns is what the types,
 * the validators and the initialize reply all use, so they accept the same
 * objects. Schemas whose keys come from elsewhere are left as written:
 * objects combined with `allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`,
 * `dependentSchemas` or a `$ref` beside other keywords, their members, and
 * everything under `not`, `contains` and `propertyNames`.
 */

const CHILD_ONE = ["additionalProperties", "additionalItems", "unevaluatedItems", "unevaluatedProperties"];
const CHILD_MAP = ["properties", "patternProperties", "definitions", "$defs"];
const COMPOSED = ["allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependencies"];
const OPAQUE = ["not", "contains", "propertyNames"];
/** Keywords whose value is data, not a schema. */
const DATA = new Set(["enum", "const", "default", "examples"]);
/** Keywords beside a `$ref` that do not change which objects it accepts. */
const REF_NOTES = new Set(["$ref", "description", "title", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly"]);

/** A copy of `root` with every closable object schema closed. */
export function closeObjects(root: JsonRecord): JsonRecord {
  const { schemas, open } = schemaNodes(root);
  const copy = (node: unknown, isRoot: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => copy(item, false));
    if (!isObject(node)) return node;
    const out: JsonRecord = {};
    for (const [key, value] of Object.entries(node)) {
      // Enumerable own properties, so a key named `__proto__` stays a key.
      Object.defineProperty(out, key, { value: DATA.has(key) ? value : copy(value, false), enumerable: true, writable: true, configurable: true });
    }
    const objectSchema = isRoot || (schemas.has(node) && isObject(node.properties));
    if (objectSchema && !open.has(node) && !("additionalProperties" in node) && !("unevaluatedProperties" in node)) out.additionalProperties = false;
    return out;
  };
  return copy(root, true) as JsonRecord;
}

/** Every subschema of `root` (by identity), and those that must stay as written. */
function schemaNodes(root: JsonRecord): { schemas: Set<JsonRecord>; open: Set<JsonRecord> } {
  const open = new Set<JsonRecord>();
  const visited = new Map<JsonRecord, Set<string>>();
  const walk = (node: unknown, closable: boolean, opaque: boolean): void => {
    if (!isObject(node)) return;
    const state = closable && !opaque;
    const mode = opaque ? "opaque" : state ? "closable" : "open";
    const modes = visited.get(node) ?? new Set<string>();
    if (modes.has(mode)) return;
    visited.set(node, modes.add(mode));
    const composed = COMPOSED.some((k) => k in node) || (typeof node.$ref === "string" && Object.keys(node).some((k) => !REF_NOTES.has(k)));
    if (!state || composed) open.add(node);
    if (typeof node.$ref === "string") walk(resolveLocalRef(root, node.$ref), state && !composed, opaque);
    for (const key of CHILD_ONE) walk(node[key], true, opaque);
    for (const key of CHILD_MAP) if (isObject(node[key])) for (const sub of Object.values(node[key])) walk(sub, true, opaque);
    const items = node.items;
    if (Array.isArray(items)) for (const sub of items) walk(sub, true, opaque);
    else walk(items, true, opaque);
    if (Array.isArray(node.prefixItems)) for (const sub of node.prefixItems) walk(sub, true, opaque);
    // anyOf/oneOf members are whole alternatives unless the parent adds properties of its own.
    const alone = !isObject(node.properties) && !isObject(node.patternProperties) && !("additionalProperties" in node);
    for (const key of ["anyOf", "oneOf"]) if (Array.isArray(node[key])) for (const sub of node[key]) walk(sub, alone, opaque);
    if (Array.isArray(node.allOf)) for (const sub of node.allOf) walk(sub, false, opaque);
    for (const key of ["if", "then", "else"]) walk(node[key], false, opaque);
    for (const key of ["dependentSchemas", "dependencies"]) if (isObject(node[key])) for (const sub of Object.values(node[key])) walk(sub, false, opaque);
    for (const key of OPAQUE) walk(node[key], false, true);
  };
  walk(root, true, false);
  return { schemas: new Set(visited.keys()), open };
}
