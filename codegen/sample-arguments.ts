/**
 * A value that satisfies a JSON Schema, for a tool call the author did not
 * write: `conformance`'s probe arguments and `inspect`'s `call NAME`
 * skeleton. Covers what tool parameter schemas use (docs/tools.md "Sample
 * arguments"); the result is checked with Ajv where the schema compiles.
 */
import { isObject, type JsonRecord } from "octet-extension/validation";
import { compileSchema } from "./ajv.ts";
import { samplePattern } from "./sample-pattern.ts";
import { resolveLocalRef } from "./schema.ts";

/** A generated value and Ajv's verdict on it (`undefined`: the schema does not compile here, so unchecked). */
export interface Sample {
  value: unknown;
  valid: boolean | undefined;
}

export interface SampleOptions {
  /** Fill in optional properties too (a skeleton to edit); otherwise only the required ones. */
  optional?: boolean;
}

const NONE = Symbol("unsatisfiable");
type Out = unknown;

interface Ctx {
  root: JsonRecord;
  optional: boolean;
  /** Use `default` and `examples` where given. */
  hints: boolean;
}

const MAX_DEPTH = 24;
/** Optional properties are filled in only this deep (a recursive schema stays finite). */
const OPTIONAL_DEPTH = 4;

/**
 * Arguments for a tool whose parameters schema is `schema`: every required
 * property, enums and consts, string lengths and simple patterns, numbers in
 * range, arrays with their minimum items, nested objects, local `$ref`s;
 * `oneOf`/`anyOf` take the first branch that can be satisfied. Never a key
 * the schema does not declare. `undefined` when no value can be made.
 */
export function sampleArguments(schema: unknown, options: SampleOptions = {}): Sample | undefined {
  const root = isObject(schema) ? schema : {};
  const attempts: Ctx[] = [
    { root, optional: options.optional === true, hints: true },
    { root, optional: options.optional === true, hints: false },
  ];
  if (options.optional) attempts.push({ root, optional: false, hints: true }, { root, optional: false, hints: false });
  let check: ((value: unknown) => boolean) | undefined;
  try {
    const validate = schema === undefined ? undefined : compileSchema(root);
    check = validate && ((value) => validate(value) === true);
  } catch {
    check = undefined;
  }
  let first: unknown = NONE;
  for (const ctx of attempts) {
    const value = generate(schema === undefined ? { type: "object" } : schema, ctx, 0, 0, true);
    if (value === NONE) continue;
    if (!check) return { value, valid: undefined };
    if (check(value)) return { value, valid: true };
    if (first === NONE) first = value;
  }
  return first === NONE ? undefined : { value: first, valid: false };
}

function generate(schema: unknown, ctx: Ctx, depth: number, variant: number, top = false): Out {
  if (depth > MAX_DEPTH || schema === false) return NONE;
  if (schema === true) return null;
  if (!isObject(schema)) return NONE;
  const s = flatten(schema, ctx, depth);
  if (s === NONE) return NONE;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum.length === 0 ? NONE : s.enum[variant % s.enum.length];
  if (ctx.hints && "default" in s) return s.default;
  if (ctx.hints && Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  const branches = Array.isArray(s.oneOf) ? "oneOf" : Array.isArray(s.anyOf) ? "anyOf" : undefined;
  if (branches) {
    const { [branches]: list, ...base } = s;
    for (const branch of list as unknown[]) {
      if (branch === false) continue;
      const merged = branch === true ? base : isObject(branch) ? merge(base, branch) : NONE;
      const value = merged === NONE ? NONE : generate(merged, ctx, depth + 1, variant, top);
      if (value !== NONE) return value;
    }
    return NONE;
  }
  for (const type of typesOf(s, top)) {
    const value = byType(type, s, ctx, depth, variant);
    if (value !== NONE) return value;
  }
  return NONE;
}

/** `schema` with its `$ref` and `allOf` folded in (siblings of `$ref` kept, as 2019-09 reads them). */
function flatten(schema: JsonRecord, ctx: Ctx, depth: number): JsonRecord | typeof NONE {
  if (depth > MAX_DEPTH) return NONE;
  let { $ref, allOf, ...out } = schema;
  if (typeof $ref === "string") {
    const target = $ref.startsWith("#") && !$ref.startsWith("#/") && $ref !== "#" ? findAnchor(ctx.root, $ref.slice(1)) : resolveLocalRef(ctx.root, $ref);
    if (target === false || target === undefined) return NONE;
    if (isObject(target)) {
      const resolved = flatten(target, ctx, depth + 1);
      if (resolved === NONE) return NONE;
      out = merge(resolved, out) as JsonRecord;
    }
  }
  if (Array.isArray(allOf)) {
    for (const member of allOf) {
      if (member === false) return NONE;
      if (!isObject(member)) continue;
      const resolved = flatten(member, ctx, depth + 1);
      if (resolved === NONE) return NONE;
      out = merge(out, resolved) as JsonRecord;
    }
  }
  return out;
}

/** The subschema whose `$anchor` (or draft-07 `$id: "#name"`) is `name`. */
function findAnchor(node: unknown, name: string): unknown {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = findAnchor(item, name);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (node.$anchor === name || node.$id === `#${name}`) return node;
  for (const value of Object.values(node)) {
    const found = findAnchor(value, name);
    if (found !== undefined) return found;
  }
  return undefined;
}

const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"];
const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"];

/** Both schemas at once, as far as generation needs: properties merged, required united, bounds tightened, types and enums intersected. */
function merge(a: JsonRecord, b: JsonRecord): JsonRecord {
  const out: JsonRecord = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out)) {
      out[key] = value;
      continue;
    }
    const mine = out[key];
    if (key === "properties" && isObject(mine) && isObject(value)) {
      const props: JsonRecord = { ...mine };
      for (const [name, sub] of Object.entries(value)) props[name] = name in props ? { allOf: [props[name], sub] } : sub;
      out.properties = props;
    } else if (key === "required" && Array.isArray(mine) && Array.isArray(value)) out.required = [...new Set([...mine, ...value])];
    else if (LOWER.includes(key) && typeof mine === "number" && typeof value === "number") out[key] = Math.max(mine, value);
    else if (UPPER.includes(key) && typeof mine === "number" && typeof value === "number") out[key] = Math.min(mine, value);
    else if (key === "type") out.type = intersectTypes(mine, value);
    else if (key === "enum" && Array.isArray(mine) && Array.isArray(value)) out.enum = mine.filter((x) => value.some((y) => sameJson(x, y)));
    else if (key === "const" && !sameJson(mine, value)) out.enum = [];
    else if ((key === "oneOf" || key === "anyOf") && Array.isArray(mine)) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { [key]: value }];
    else if (key === "additionalProperties" && value === false) out[key] = false;
    else out[key] = value;
  }
  return out;
}

function intersectTypes(a: unknown, b: unknown): string[] {
  const list = (t: unknown) => (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === "string");
  const right = list(b);
  const out: string[] = [];
  for (const t of list(a)) {
    if (right.includes(t)) out.push(t);
    else if (t === "number" && right.includes("integer")) out.push("integer");
    else if (t === "integer" && right.includes("number")) out.push("integer");
  }
  return out;
}

const sameJson = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

/** The types to try, in order: the declared ones (null last), or what the keywords imply. */
function typesOf(s: JsonRecord, top: boolean): string[] {
  if (typeof s.type === "string") return [s.type];
  if (Array.isArray(s.type)) return [...s.type.filter((t) => t !== "null"), ...s.type.filter((t) => t === "null")] as string[];
  if (top || ["properties", "required", "additionalProperties", "patternProperties", "minProperties", "dependentRequired"].some((k) => k in s)) return ["object"];
  if (["items", "prefixItems", "minItems", "contains", "uniqueItems"].some((k) => k in s)) return ["array"];
  if (["minLength", "maxLength", "pattern", "format"].some((k) => k in s)) return ["string"];
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some((k) => k in s)) return ["number"];
  return ["null"];
}

function byType(type: string, s: JsonRecord, ctx: Ctx, depth: number, variant: number): Out {
  switch (type) {
    case "object":
      return object(s, ctx, depth);
    case "array":
      return array(s, ctx, depth, variant);
    case "string":
      return string(s, variant);
    case "integer":
      return number(s, true, variant);
    case "number":
      return number(s, false, variant);
    case "boolean":
      return variant % 2 === 1;
    case "null":
      return null;
    default:
      return NONE;
  }
}

function object(s: JsonRecord, ctx: Ctx, depth: number): Out {
  const properties = isObject(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [];
  const withOptional = ctx.optional && depth < OPTIONAL_DEPTH;
  const keys = [...Object.keys(properties).filter((k) => withOptional || required.includes(k)), ...required.filter((k) => !(k in properties))];
  const out: JsonRecord = {};
  const add = (key: string, mustHave: boolean): boolean => {
    if (key in out) return true;
    const schema = propertySchema(s, key);
    const value = schema === undefined ? NONE : generate(schema, ctx, depth + 1, 0);
    if (value === NONE) return !mustHave;
    out[key] = value;
    return true;
  };
  for (const key of keys) if (!add(key, required.includes(key))) return NONE;
  // Keys that require others (dependentRequired, or draft-07's array form of dependencies).
  const dependents = { ...(isObject(s.dependencies) ? s.dependencies : {}), ...(isObject(s.dependentRequired) ? s.dependentRequired : {}) };
  for (let changed = true; changed; ) {
    changed = false;
    for (const [key, needs] of Object.entries(dependents)) {
      if (!(key in out) || !Array.isArray(needs)) continue;
      for (const need of needs) {
        if (typeof need !== "string" || need in out) continue;
        if (!add(need, true)) return NONE;
        changed = true;
      }
    }
  }
  const minProperties = typeof s.minProperties === "number" ? s.minProperties : 0;
  for (const key of Object.keys(properties)) {
    if (Object.keys(out).length >= minProperties) break;
    add(key, false);
  }
  return out;
}

/** The schema a property's value must meet: `properties`, else a matching `patternProperties`, else `additionalProperties`. */
function propertySchema(s: JsonRecord, key: string): unknown {
  if (isObject(s.properties) && key in s.properties) return s.properties[key];
  if (isObject(s.patternProperties)) {
    for (const [pattern, schema] of Object.entries(s.patternProperties)) {
      try {
        if (new RegExp(pattern, "u").test(key)) return schema;
      } catch {
        continue;
      }
    }
  }
  if (s.additionalProperties === false) return undefined;
  return s.additionalProperties === undefined ? true : s.additionalProperties;
}

function array(s: JsonRecord, ctx: Ctx, depth: number, variant: number): Out {
  const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.prefixItems) ? s.items : Array.isArray(s.items) ? s.additionalItems : s.items;
  const hasContains = s.contains !== undefined;
  const min = Math.max(typeof s.minItems === "number" ? s.minItems : 0, hasContains ? (typeof s.minContains === "number" ? s.minContains : 1) : 0);
  const out: unknown[] = [];
  for (let i = 0; i < min; i++) {
    let schema: unknown = i < prefix.length ? prefix[i] : rest === undefined ? true : rest;
    if (hasContains && i < (typeof s.minContains === "number" ? s.minContains : 1)) schema = isObject(schema) && isObject(s.contains) ? { allOf: [schema, s.contains] } : schema === true ? s.contains : schema;
    const value = generate(schema, ctx, depth + 1, s.uniqueItems === true ? i + variant : variant);
    if (value === NONE) return NONE;
    out.push(value);
  }
  return out;
}

/** Examples of the formats tool schemas use; Ajv here does not check formats, but an extension in another language may. */
const FORMATS: Record<string, string> = {
  "date-time": "2000-01-01T00:00:00Z",
  date: "2000-01-01",
  time: "00:00:00Z",
  duration: "P1D",
  email: "user@example.com",
  "idn-email": "user@example.com",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "127.0.0.1",
  ipv6: "::1",
  uri: "https://example.com/",
  "uri-reference": "https://example.com/",
  iri: "https://example.com/",
  "iri-reference": "https://example.com/",
  uuid: "00000000-0000-4000-8000-000000000000",
  "json-pointer": "/a",
  "relative-json-pointer": "0",
  regex: "a",
};

function string(s: JsonRecord, variant: number): Out {
  const min = typeof s.minLength === "number" ? Math.max(0, Math.ceil(s.minLength)) : 0;
  const max = typeof s.maxLength === "number" ? Math.floor(s.maxLength) : Infinity;
  if (min > max) return NONE;
  const fits = (value: string) => {
    const length = [...value].length;
    return length >= min && length <= max;
  };
  if (typeof s.pattern === "string") return samplePattern(s.pattern, min, max, variant) ?? NONE;
  const format = typeof s.format === "string" ? FORMATS[s.format] : undefined;
  if (format !== undefined && fits(format) && variant === 0) return format;
  const letter = String.fromCharCode(97 + (variant % 26));
  const base = variant === 0 ? "" : `${letter}${variant >= 26 ? Math.floor(variant / 26) : ""}`;
  const value = base.length >= min ? base : base + letter.repeat(min - base.length);
  return fits(value) ? value : NONE;
}

function number(s: JsonRecord, integer: boolean, variant: number): Out {
  let lo = -Infinity;
  let hi = Infinity;
  let loOpen = false;
  let hiOpen = false;
  if (typeof s.minimum === "number") {
    lo = s.minimum;
    loOpen = s.exclusiveMinimum === true; // draft-04's boolean form
  }
  if (typeof s.exclusiveMinimum === "number" && s.exclusiveMinimum >= lo) [lo, loOpen] = [s.exclusiveMinimum, true];
  if (typeof s.maximum === "number") {
    hi = s.maximum;
    hiOpen = s.exclusiveMaximum === true;
  }
  if (typeof s.exclusiveMaximum === "number" && s.exclusiveMaximum <= hi) [hi, hiOpen] = [s.exclusiveMaximum, true];
  const step = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : integer ? 1 : undefined;
  const ok = (v: number) =>
    Number.isFinite(v) && (loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi) && (!integer || Number.isInteger(v)) && (typeof s.multipleOf !== "number" || Number.isInteger(v / s.multipleOf));
  if (step === undefined) {
    // A plain number: 0, else the bound (or just inside an open one).
    const candidates = [0, lo, hi, Number.isFinite(hi) && Number.isFinite(lo) ? (lo + hi) / 2 : NaN, lo + 1, hi - 1].filter((v) => ok(v));
    const first = candidates[0];
    if (first === undefined) return NONE;
    return variant === 0 || !ok(first + variant) ? first : first + variant;
  }
  // A multiple of `step` (1 for integers): 0 when in range, else the first one past the lower bound (or before the upper).
  const start = ok(0) ? 0 : Number.isFinite(lo) ? Math.ceil(lo / step) : Number.isFinite(hi) ? Math.floor(hi / step) : 0;
  const direction = !ok(0) && !Number.isFinite(lo) && Number.isFinite(hi) ? -1 : 1;
  let found = 0;
  for (let k = start, tries = 0; tries < 1_000; k += direction, tries++) {
    const v = Number((k * step).toPrecision(15));
    if (!ok(v)) {
      if ((direction === 1 && v > hi) || (direction === -1 && v < lo)) return NONE;
      continue;
    }
    if (found++ === variant) return v;
  }
  return NONE;
}
