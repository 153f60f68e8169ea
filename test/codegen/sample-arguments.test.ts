/**
 * Sample arguments (conformance's probe arguments, inspect's skeleton): each
 * sample is validated against its schema by a separate Ajv instance, with
 * only the required properties and with the optional ones too.
 */
import { describe, expect, test } from "bun:test";
import { Ajv } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { sampleArguments } from "../../codegen/sample-arguments.ts";
import { samplePattern } from "../../codegen/sample-pattern.ts";
import { ADD_TODO_SCHEMA } from "../tools/todo-project.ts";

type Obj = Record<string, unknown>;

/** A lenient Ajv per draft (unknown keywords allowed, formats checked where ajv-formats is absent: not at all). */
function validator(schema: Obj) {
  const options = { strict: false, allErrors: true, validateFormats: false };
  const draft = String(schema.$schema ?? "");
  const ajv = draft.includes("2020-12") ? new Ajv2020(options) : draft.includes("2019-09") ? new Ajv2019(options) : new Ajv(options);
  return ajv.compile(schema);
}

/** The sample's value, after checking it against `schema`. */
function valid(schema: Obj, optional = false): unknown {
  const sample = sampleArguments(schema, { optional });
  expect(sample).toBeDefined();
  const validate = validator(schema);
  expect({ value: sample!.value, errors: validate(sample!.value) ? null : validate.errors }).toEqual({ value: sample!.value, errors: null });
  return sample!.value;
}

const object = (properties: Obj, required: string[] = Object.keys(properties), extra: Obj = {}): Obj => ({ type: "object", properties, required, additionalProperties: false, ...extra });

const CORPUS: [string, Obj][] = [
  ["a $ref'd nested object, an enum, minLength and a patterned unique array", ADD_TODO_SCHEMA],
  ["const and enum", object({ mode: { const: "fast" }, level: { enum: [3, 5] }, colour: { type: "string", enum: ["red", "green"] } })],
  ["string lengths", object({ code: { type: "string", minLength: 3, maxLength: 5 }, empty: { type: "string", maxLength: 0 }, note: { type: "string" } })],
  ["patterns", object({ version: { type: "string", pattern: "^v\\d+\\.\\d+\\.\\d+$" }, slug: { type: "string", pattern: "^[a-z][a-z0-9-]*$", minLength: 4 }, phone: { type: "string", pattern: "^\\+?\\d{2,3}[ -]\\d{4}$" }, word: { type: "string", pattern: "(cat|dog)s?" } })],
  ["formats", object({ at: { type: "string", format: "date-time" }, mail: { type: "string", format: "email" }, id: { type: "string", format: "uuid" }, day: { type: "string", format: "date" }, site: { type: "string", format: "uri" } })],
  [
    "numbers within bounds",
    object({
      positive: { type: "integer", exclusiveMinimum: 0 },
      ratio: { type: "number", minimum: 0.5, maximum: 0.75 },
      fives: { type: "integer", minimum: 7, multipleOf: 5 },
      negative: { type: "integer", maximum: -3 },
      below: { type: "integer", exclusiveMaximum: -3 },
      between: { type: "number", exclusiveMinimum: 1, exclusiveMaximum: 2 },
      days: { type: "integer", minimum: 1, maximum: 16 },
      big: { type: "integer", format: "int64", minimum: 9007199254740000 },
    }),
  ],
  [
    "arrays",
    object({
      three: { type: "array", items: { type: "integer" }, minItems: 3, uniqueItems: true },
      letters: { type: "array", items: { enum: ["a", "b", "c"] }, minItems: 2, uniqueItems: true },
      words: { type: "array", items: { type: "string", minLength: 2 }, minItems: 2, uniqueItems: true },
      tuple: { type: "array", items: [{ type: "string" }, { type: "integer", minimum: 4 }], minItems: 2, additionalItems: false },
      some: { type: "array", contains: { const: 5 } },
      none: { type: "array", items: { type: "string" } },
    }),
  ],
  [
    "draft-07 definitions, a chain of $refs and a recursive one",
    {
      type: "object",
      properties: { place: { $ref: "#/definitions/Place" }, tree: { $ref: "#/definitions/Tree" } },
      required: ["place", "tree"],
      additionalProperties: false,
      definitions: {
        Place: { $ref: "#/definitions/City" },
        City: object({ name: { type: "string", minLength: 1 }, country: { $ref: "#/definitions/Code" } }),
        Code: { type: "string", pattern: "^[A-Z]{2}$" },
        Tree: object({ label: { type: "string" }, children: { type: "array", items: { $ref: "#/definitions/Tree" } } }, ["label"]),
      },
    },
  ],
  [
    "oneOf and anyOf take the first branch that can be satisfied",
    object({
      target: { oneOf: [{ type: "string", minLength: 3, maxLength: 2 }, object({ path: { type: "string", minLength: 1 } }), { type: "integer" }] },
      either: { anyOf: [false, { type: "integer", minimum: 10, maximum: 5 }, { type: "boolean" }] },
      shaped: { type: "object", anyOf: [{ required: ["a"] }, { required: ["b"] }], properties: { a: { type: "string" }, b: { type: "number" } }, additionalProperties: false },
    }),
  ],
  ["allOf merges properties and required", { allOf: [object({ a: { type: "string", minLength: 2 } }, ["a"], { additionalProperties: true }), { properties: { b: { type: "integer", minimum: 3 } }, required: ["b"] }], type: "object" }],
  ["a type list prefers a non-null type", object({ maybe: { type: ["null", "string"], minLength: 2 }, count: { type: ["integer", "null"], minimum: 1 } })],
  [
    "required keys from patternProperties and additionalProperties",
    { type: "object", patternProperties: { "^x-": { type: "integer", minimum: 1 } }, additionalProperties: { type: "string", minLength: 1 }, required: ["x-rate", "label"] },
  ],
  ["dependentRequired and minProperties (2019-09)", { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object", properties: { a: { type: "string" }, b: { type: "integer" }, c: { type: "boolean" } }, required: ["a"], dependentRequired: { a: ["b"] }, minProperties: 3, additionalProperties: false }],
  [
    "2020-12 $defs and prefixItems",
    { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { pair: { type: "array", prefixItems: [{ $ref: "#/$defs/Name" }, { type: "integer" }], items: false, minItems: 2 } }, required: ["pair"], additionalProperties: false, $defs: { Name: { type: "string", minLength: 3 } } },
  ],
  ["an invalid default is passed over", object({ title: { type: "string", minLength: 1, default: "" }, size: { type: "integer", minimum: 2, default: 5 } })],
  ["untyped properties", object({ anything: {}, shaped: { properties: { k: { type: "string" } }, required: ["k"] } })],
  ["no schema at all (the runtime's default)", { type: "object" }],
];

describe("sampleArguments: every sample satisfies its schema", () => {
  for (const [name, schema] of CORPUS) {
    test(`${name}: required properties only`, () => {
      const value = valid(schema) as Obj;
      const required = (schema.required ?? []) as string[];
      if (schema.additionalProperties === false && !("minProperties" in schema)) expect(Object.keys(value).sort()).toEqual([...required].sort());
    });
    test(`${name}: with the optional properties`, () => {
      valid(schema, true);
    });
  }

  test("the todo tool's skeleton fills in every field with a value its schema accepts", () => {
    expect(valid(ADD_TODO_SCHEMA, true)).toEqual({ title: "a", priority: "low", tags: ["a"], due: { year: 2000, month: 1, day: 1 } });
  });

  test("an optional property is filled in for the skeleton, not for the probe; a valid default is used", () => {
    const schema = object({ text: { type: "string", maxLength: 65536 }, delayMs: { type: "integer", minimum: 0, maximum: 2000 }, note: { type: "string", default: "hi" } }, ["text"]);
    expect(valid(schema)).toEqual({ text: "" });
    expect(valid(schema, true)).toEqual({ text: "", delayMs: 0, note: "hi" });
  });

  test("closed objects get no undeclared key; int64 values are plain integers", () => {
    const value = valid(object({ id: { type: "integer", format: "int64" }, inner: object({ n: { type: "number" } }) })) as Obj;
    expect(value).toEqual({ id: 0, inner: { n: 0 } });
  });

  test("a schema Ajv will not compile here (an unknown keyword) still gets a sample, marked unchecked", () => {
    const schema = object({ name: { type: "string", minLength: 2, "x-ui": "text" } });
    expect(sampleArguments(schema)).toEqual({ value: { name: "aa" }, valid: undefined });
    expect(validator(schema)({ name: "aa" })).toBe(true);
  });

  test("a sample Ajv accepts is marked valid", () => {
    expect(sampleArguments(ADD_TODO_SCHEMA)?.valid).toBe(true);
  });

  test("nothing satisfies: undefined", () => {
    for (const schema of [
      object({ x: false as unknown as Obj }),
      object({ n: { type: "integer", minimum: 5, maximum: 4 } }),
      object({ e: { enum: [] } }),
      { type: "object", properties: {}, required: ["missing"], additionalProperties: false },
      object({ s: { type: "string", minLength: 4, maxLength: 2 } }),
      object({ r: { $ref: "#/$defs/Nowhere" } }),
    ]) {
      expect({ schema, sample: sampleArguments(schema) }).toEqual({ schema, sample: undefined });
    }
  });
});

describe("samplePattern", () => {
  const cases: [string, number, number][] = [
    ["^[a-z][a-z0-9-]*$", 0, Infinity],
    ["^[a-z][a-z0-9-]*$", 6, 10],
    ["^\\d{3}-\\d{4}$", 0, Infinity],
    ["^(foo|bar)+$", 5, 9],
    ["[A-Z]{2,3}", 6, 6],
    ["^[^a-z]+$", 1, 3],
    ["^\\p{Lu}+$", 2, 2],
    ["^[α-ω]+$", 1, 4],
    ["^\\u00e9t\\x65$", 0, Infinity],
    ["^(?:ab){2}(?<tail>c)?$", 0, Infinity],
  ];
  for (const [pattern, min, max] of cases) {
    test(`${pattern} within ${min}..${max}`, () => {
      const value = samplePattern(pattern, min, max);
      expect(value).toBeDefined();
      expect(new RegExp(pattern, "u").test(value!)).toBe(true);
      expect([...value!].length).toBeGreaterThanOrEqual(min);
      expect([...value!].length).toBeLessThanOrEqual(max);
    });
  }

  test("variants differ where the pattern allows", () => {
    expect(new Set([0, 1, 2].map((v) => samplePattern("^[a-z]{2}$", 0, Infinity, v))).size).toBe(3);
  });

  test("a length the pattern cannot have, or a pattern beyond the subset (lookahead), gives undefined, never a wrong string", () => {
    expect(samplePattern("^.{5}$", 6, 10)).toBeUndefined();
    expect(samplePattern("^(?=x)y", 0, Infinity)).toBeUndefined();
    expect(samplePattern("([", 0, Infinity)).toBeUndefined();
  });
});
