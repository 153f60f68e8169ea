import { describe, expect, test } from "bun:test";
import { checkOutputSchema } from "../../src/output-schema.ts";
import { checkResultBounds } from "../../src/runtime/structured/result-bounds.ts";
import { validateStructured } from "../../src/runtime/structured/validate-structured.ts";

/** A chain of `levels` schema nodes linked by `items` (the root is level 1). */
function nestedSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "integer" };
  for (let i = 1; i < levels; i++) schema = { type: "array", items: schema };
  return schema;
}

/** A value `levels` deep: the scalar 1 wrapped in `levels - 1` arrays. */
function nestedValue(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 1; i < levels; i++) value = [value];
  return value;
}

/** A JSON string value whose compact encoding is exactly `bytes` bytes. */
function encodedString(bytes: number): string {
  return "a".repeat(bytes - 2);
}

function schemaError(schema: unknown): string {
  try {
    checkOutputSchema(schema);
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return (error as Error).message;
  }
  throw new Error("expected checkOutputSchema to throw");
}

describe("checkOutputSchema: the bounded subset (docs/protocol-0.2.md §6.3)", () => {
  test("a typical schema with every allowed keyword is accepted", () => {
    expect(() =>
      checkOutputSchema({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        title: "T",
        description: "D",
        default: {},
        examples: [{ n: 1 }],
        type: ["object", "null"],
        properties: {
          n: { type: "integer", minimum: 0, maximum: 10, exclusiveMinimum: -1, exclusiveMaximum: 11.5 },
          s: { type: "string", minLength: 0, maxLength: 5, enum: ["a", "b"] },
          a: { type: "array", items: { const: 1 }, minItems: 1, maxItems: 3, uniqueItems: true },
          u: { anyOf: [{ type: "string" }], oneOf: [{}], allOf: [{}] },
        },
        required: ["n"],
        additionalProperties: { type: "boolean" },
        minProperties: 1,
        maxProperties: 9,
      }),
    ).not.toThrow();
  });

  test("schema nesting: 32 levels accepted, 33 rejected with the path", () => {
    expect(() => checkOutputSchema(nestedSchema(32))).not.toThrow();
    const message = schemaError(nestedSchema(33));
    expect(message).toBe(`output_schema${".items".repeat(32)}: schema nesting exceeds 32 levels`);
  });

  test("nesting counts through properties, additionalProperties and combinators", () => {
    // root(1) → properties.a(2) → additionalProperties(3) → anyOf[0](4) → … 33
    let leaf: Record<string, unknown> = {};
    for (let i = 4; i < 33; i++) leaf = { items: leaf };
    const at33 = { properties: { a: { additionalProperties: { anyOf: [leaf] } } } };
    expect(schemaError(at33)).toContain("output_schema.properties.a.additionalProperties.anyOf[0].items");
    const at32 = { properties: { a: { additionalProperties: { anyOf: [(leaf as { items: unknown }).items] } } } };
    expect(() => checkOutputSchema(at32)).not.toThrow();
  });

  test("unknown keywords are rejected with their path", () => {
    expect(schemaError({ type: "object", properties: { count: { type: "integer", format: "int32" } } })).toBe(
      'output_schema.properties.count.format: unknown keyword "format"',
    );
    expect(schemaError({ patternProperties: {} })).toBe('output_schema.patternProperties: unknown keyword "patternProperties"');
    expect(schemaError({ items: { $ref: "#" } })).toBe('output_schema.items.$ref: unknown keyword "$ref"');
  });

  test("type names: unknown name, empty array and non-string rejected", () => {
    expect(schemaError({ properties: { count: { type: "int" } } })).toBe('output_schema.properties.count.type: unknown type name "int"');
    expect(schemaError({ type: ["string", "float"] })).toBe('output_schema.type[1]: unknown type name "float"');
    expect(schemaError({ type: [] })).toContain("output_schema.type: must be a type name or a non-empty array");
    expect(schemaError({ type: 3 })).toContain("output_schema.type");
    expect(() => checkOutputSchema({ type: ["null", "boolean", "object", "array", "number", "integer", "string"] })).not.toThrow();
  });

  test("every node must be an object", () => {
    expect(schemaError(true)).toBe("output_schema: a schema must be a JSON object");
    expect(schemaError([])).toBe("output_schema: a schema must be a JSON object");
    expect(schemaError({ properties: { a: true } })).toBe("output_schema.properties.a: a schema must be a JSON object");
    expect(schemaError({ items: [{}] })).toBe("output_schema.items: a schema must be a JSON object");
    expect(schemaError({ allOf: [{}, null] })).toBe("output_schema.allOf[1]: a schema must be a JSON object");
    expect(schemaError({ properties: [] })).toBe("output_schema.properties: must be an object of schemas");
    expect(schemaError({ additionalProperties: "no" })).toBe("output_schema.additionalProperties: must be a boolean or a schema object");
    expect(() => checkOutputSchema({ additionalProperties: false })).not.toThrow();
  });

  test("enum and combinators must be non-empty arrays", () => {
    for (const key of ["enum", "allOf", "anyOf", "oneOf"]) {
      expect(schemaError({ [key]: [] })).toBe(`output_schema.${key}: must be a non-empty array`);
      expect(schemaError({ [key]: {} })).toBe(`output_schema.${key}: must be a non-empty array`);
    }
  });

  test("numeric bounds are numbers; length/count bounds non-negative integers; uniqueItems boolean; required strings", () => {
    expect(schemaError({ minimum: "3" })).toBe("output_schema.minimum: must be a number");
    expect(schemaError({ exclusiveMaximum: true })).toBe("output_schema.exclusiveMaximum: must be a number");
    expect(() => checkOutputSchema({ minimum: -2.5, exclusiveMinimum: -3 })).not.toThrow();
    expect(schemaError({ minLength: -1 })).toBe("output_schema.minLength: must be a non-negative integer");
    expect(schemaError({ maxItems: 1.5 })).toBe("output_schema.maxItems: must be a non-negative integer");
    expect(schemaError({ maxProperties: "2" })).toBe("output_schema.maxProperties: must be a non-negative integer");
    expect(() => checkOutputSchema({ minLength: 0, maxProperties: 0 })).not.toThrow();
    expect(schemaError({ uniqueItems: "yes" })).toBe("output_schema.uniqueItems: must be a boolean");
    expect(schemaError({ required: "a" })).toBe("output_schema.required: must be an array of strings");
    expect(schemaError({ required: ["a", 1] })).toBe("output_schema.required[1]: must be a string");
  });

  test("default, examples, const and enum members are values, not schemas", () => {
    expect(() =>
      checkOutputSchema({ default: { format: 1 }, examples: [{ $ref: 2 }], const: { type: "int" }, enum: [{ items: 3 }, null] }),
    ).not.toThrow();
  });

  test("property names: 256 UTF-8 bytes accepted, 257 rejected (multi-byte counted in bytes)", () => {
    expect(() => checkOutputSchema({ properties: { ["p".repeat(256)]: {} } })).not.toThrow();
    expect(() => checkOutputSchema({ properties: { ["é".repeat(128)]: {} } })).not.toThrow();
    expect(schemaError({ properties: { ["p".repeat(257)]: {} } })).toContain("output_schema.properties: property name");
    // 129 UTF-16 units but 257 bytes.
    expect(schemaError({ properties: { ["é".repeat(128) + "x"]: {} } })).toContain("is 257 bytes (limit 256 UTF-8 bytes)");
  });

  test("odd property names are quoted in paths", () => {
    expect(schemaError({ properties: { "a b": { type: "int" } } })).toBe('output_schema.properties["a b"].type: unknown type name "int"');
  });
});

describe("validateStructured", () => {
  test("integer vs number", () => {
    const schema = { type: "object", properties: { doubled: { type: "integer" }, ratio: { type: "number" } } };
    expect(validateStructured({ doubled: 4, ratio: 0.5 }, schema)).toBeUndefined();
    expect(validateStructured({ doubled: 4.0, ratio: 2 }, schema)).toBeUndefined();
    expect(validateStructured({ doubled: 2.5 }, schema)).toBe("$.doubled: expected integer");
    expect(validateStructured({ ratio: "0.5" }, schema)).toBe("$.ratio: expected number");
    expect(validateStructured({ doubled: 10n }, schema)).toBeUndefined();
    expect(validateStructured(NaN, { type: "number" })).toBe("$: expected number");
    expect(validateStructured(null, { type: ["string", "null"] })).toBeUndefined();
    expect(validateStructured(1, { type: ["string", "null"] })).toBe("$: expected string or null");
  });

  test("each type name", () => {
    expect(validateStructured([], { type: "object" })).toBe("$: expected object");
    expect(validateStructured(null, { type: "object" })).toBe("$: expected object");
    expect(validateStructured({}, { type: "array" })).toBe("$: expected array");
    expect(validateStructured(0, { type: "boolean" })).toBe("$: expected boolean");
    expect(validateStructured(false, { type: "null" })).toBe("$: expected null");
    expect(validateStructured(true, { type: "boolean" })).toBeUndefined();
  });

  test("required and additionalProperties false", () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, age: { type: "integer" } },
      required: ["name"],
      additionalProperties: false,
    };
    expect(validateStructured({ name: "x", age: 3 }, schema)).toBeUndefined();
    expect(validateStructured({ age: 3 }, schema)).toBe("$.name: missing required property");
    expect(validateStructured({ name: undefined }, schema)).toBe("$.name: missing required property");
    expect(validateStructured({ name: "x", extra: 1 }, schema)).toBe("$.extra: unexpected property");
    // Inherited names are not declared properties.
    expect(validateStructured({ name: "x", constructor: 1 }, schema)).toBe("$.constructor: unexpected property");
    expect(validateStructured({ name: "x", extra: 1 }, { ...schema, additionalProperties: true })).toBeUndefined();
    const typedExtras = { ...schema, additionalProperties: { type: "boolean" } };
    expect(validateStructured({ name: "x", flag: true }, typedExtras)).toBeUndefined();
    expect(validateStructured({ name: "x", "odd key": 1 }, typedExtras)).toBe('$["odd key"]: expected boolean');
  });

  test("nested paths name array indexes", () => {
    const schema = { type: "array", items: { type: "object", properties: { v: { type: "string" } } } };
    expect(validateStructured([{ v: "a" }, { v: 2 }], schema)).toBe("$[1].v: expected string");
  });

  test("const uses deep JSON equality", () => {
    const schema = { const: { a: [1, { b: 2, c: null }], d: "x" } };
    expect(validateStructured({ d: "x", a: [1, { c: null, b: 2 }] }, schema)).toBeUndefined();
    expect(validateStructured({ d: "x", a: [1, { c: null, b: 3 }] }, schema)).toBe("$: does not equal the const value");
    expect(validateStructured({ d: "x", a: [{ c: null, b: 2 }, 1] }, schema)).toBe("$: does not equal the const value");
    expect(validateStructured({ d: "x", a: [1, { b: 2, c: null }], e: 1 }, schema)).toBe("$: does not equal the const value");
    expect(validateStructured(1, { const: true })).toBe("$: does not equal the const value");
    expect(validateStructured(0, { const: false })).toBe("$: does not equal the const value");
    expect(validateStructured(1.0, { const: 1 })).toBeUndefined();
    expect(validateStructured(null, { const: null })).toBeUndefined();
    expect(validateStructured({}, { const: null })).toBe("$: does not equal the const value");
  });

  test("enum uses deep JSON equality", () => {
    const schema = { enum: [[1, 2], { x: { y: [true] } }, "s", null] };
    expect(validateStructured([1, 2], schema)).toBeUndefined();
    expect(validateStructured({ x: { y: [true] } }, schema)).toBeUndefined();
    expect(validateStructured(null, schema)).toBeUndefined();
    expect(validateStructured([2, 1], schema)).toBe("$: not one of the enum values");
    expect(validateStructured({ x: { y: [1] } }, schema)).toBe("$: not one of the enum values");
    expect(validateStructured("S", schema)).toBe("$: not one of the enum values");
  });

  test("oneOf requires exactly one match; anyOf at least one; allOf all", () => {
    const oneOf = { oneOf: [{ type: "integer" }, { type: "number" }] };
    expect(validateStructured(3.5, oneOf)).toBeUndefined();
    expect(validateStructured(3, oneOf)).toBe("$: matches more than one oneOf alternative (0, 1)");
    expect(validateStructured("x", oneOf)).toBe("$: does not match any oneOf alternative");
    const anyOf = { anyOf: [{ type: "integer" }, { type: "number" }] };
    expect(validateStructured(3, anyOf)).toBeUndefined();
    expect(validateStructured("x", anyOf)).toBe("$: does not match any anyOf alternative");
    const allOf = { allOf: [{ type: "number" }, { minimum: 2 }, { maximum: 4 }] };
    expect(validateStructured(3, allOf)).toBeUndefined();
    expect(validateStructured(5, allOf)).toBe("$: must be <= 4");
  });

  test("numeric bounds including exclusive ones", () => {
    const schema = { minimum: 1, maximum: 5 };
    expect(validateStructured(1, schema)).toBeUndefined();
    expect(validateStructured(5, schema)).toBeUndefined();
    expect(validateStructured(0.999, schema)).toBe("$: must be >= 1");
    expect(validateStructured(5.001, schema)).toBe("$: must be <= 5");
    const exclusive = { exclusiveMinimum: 1, exclusiveMaximum: 5 };
    expect(validateStructured(1.001, exclusive)).toBeUndefined();
    expect(validateStructured(1, exclusive)).toBe("$: must be > 1");
    expect(validateStructured(5, exclusive)).toBe("$: must be < 5");
    expect(validateStructured("9", schema)).toBeUndefined(); // bounds apply to numbers only
  });

  test("string length counts code points", () => {
    expect(validateStructured("😀😀", { maxLength: 2 })).toBeUndefined(); // 4 UTF-16 units
    expect(validateStructured("😀😀😀", { maxLength: 2 })).toBe("$: longer than 2 characters");
    expect(validateStructured("😀😀", { minLength: 3 })).toBe("$: shorter than 3 characters");
    expect(validateStructured("abc", { minLength: 3, maxLength: 3 })).toBeUndefined();
  });

  test("array and object counts", () => {
    expect(validateStructured([1, 2], { minItems: 2, maxItems: 2 })).toBeUndefined();
    expect(validateStructured([1], { minItems: 2 })).toBe("$: fewer than 2 items");
    expect(validateStructured([1, 2, 3], { maxItems: 2 })).toBe("$: more than 2 items");
    expect(validateStructured({ a: 1 }, { minProperties: 1, maxProperties: 1 })).toBeUndefined();
    expect(validateStructured({}, { minProperties: 1 })).toBe("$: fewer than 1 properties");
    expect(validateStructured({ a: 1, b: 2 }, { maxProperties: 1 })).toBe("$: more than 1 properties");
  });

  test("uniqueItems uses deep equality", () => {
    const schema = { uniqueItems: true };
    expect(validateStructured([{ a: 1, b: 2 }, { a: 1, b: 3 }, [1], 1, "1", true], schema)).toBeUndefined();
    expect(validateStructured([0, { a: 1, b: 2 }, { b: 2, a: 1 }], schema)).toBe("$: items 1 and 2 are equal (uniqueItems)");
    expect(validateStructured([[1, [2]], [1, [2]]], schema)).toBe("$: items 0 and 1 are equal (uniqueItems)");
    expect(validateStructured([1, 1], { uniqueItems: false })).toBeUndefined();
  });

  test("schema depth 32 validates; the value is walked to depth 32", () => {
    const schema = nestedSchema(32);
    expect(validateStructured(nestedValue(32), schema)).toBeUndefined();
    expect(validateStructured(nestedValue(31), schema)).toBe(`$${"[0]".repeat(30)}: expected array`);
  });

  test("the 65,536-step cap: exactly 65,536 visits pass, one more fails", () => {
    const schema = { type: "array", items: { type: "integer" } };
    // 1 visit for the root schema + 1 per item.
    expect(validateStructured(new Array(65_535).fill(0), schema)).toBeUndefined();
    const failure = validateStructured(new Array(65_536).fill(0), schema);
    expect(failure).toBe("$[65535]: validation exceeds 65536 steps");
  });

  test("the step cap counts visits inside combinator branches that fail", () => {
    // A failing branch costs 1 + 30,000 visits before it fails at the last item.
    const failing = { type: "array", items: { type: "integer" } };
    const value: unknown[] = new Array(30_000).fill(0);
    value[29_999] = "x";
    // 1 (anyOf node) + 2 × 30,001 + 1 = 60,004 visits: valid through the last branch.
    expect(validateStructured(value, { anyOf: [failing, failing, { type: "array" }] })).toBeUndefined();
    // 1 + 3 × 30,001 > 65,536: the cap is hit before the accepting branch is reached.
    expect(validateStructured(value, { anyOf: [failing, failing, failing, { type: "array" }] })).toContain(
      "validation exceeds 65536 steps",
    );
  });
});

describe("checkResultBounds (docs/protocol-0.2.md §3.2, §7)", () => {
  test("absent fields and small values pass", () => {
    expect(checkResultBounds({})).toBeUndefined();
    expect(checkResultBounds({ structured_content: { sources: [1, 2] }, metadata: { cache: "miss" } })).toBeUndefined();
    expect(checkResultBounds({ structured_content: null, metadata: null })).toBeUndefined();
  });

  test("depth: 32 accepted, 33 rejected, for both fields", () => {
    expect(checkResultBounds({ structured_content: nestedValue(32), metadata: nestedValue(32) })).toBeUndefined();
    expect(checkResultBounds({ structured_content: nestedValue(33) })).toContain("structured_content exceeds 32 levels of nesting");
    expect(checkResultBounds({ metadata: nestedValue(33) })).toContain("metadata exceeds 32 levels of nesting");
  });

  test("depth convention: a scalar is depth 1, {a: 1} is depth 2", () => {
    let object: unknown = 1; // depth 1
    for (let i = 1; i < 32; i++) object = { a: object }; // depth 32
    expect(checkResultBounds({ structured_content: object })).toBeUndefined();
    expect(checkResultBounds({ structured_content: { a: object } })).toContain("exceeds 32 levels");
    expect(checkResultBounds({ structured_content: [object] })).toContain("exceeds 32 levels");
  });

  test("nodes: 16,384 accepted, 16,385 rejected (containers and scalars all count)", () => {
    // An array of n scalars is n + 1 nodes.
    expect(checkResultBounds({ structured_content: new Array(16_383).fill(0) })).toBeUndefined();
    expect(checkResultBounds({ structured_content: new Array(16_384).fill(0) })).toBe("structured_content exceeds 16384 nodes");
    expect(checkResultBounds({ metadata: new Array(16_384).fill(null) })).toBe("metadata exceeds 16384 nodes");
    // 1 root + 8,191 objects each with one member = 16,383 nodes; one more object member → 16,384 ok / 16,385 not.
    const objects = new Array(8_191).fill(0).map(() => ({ k: 1 }));
    expect(checkResultBounds({ structured_content: [...objects, 0] })).toBeUndefined();
    expect(checkResultBounds({ structured_content: [...objects, { k: 1 }] })).toBe("structured_content exceeds 16384 nodes");
  });

  test("structured_content: exactly 256 KiB encoded accepted, +1 byte rejected", () => {
    const limit = 256 * 1024;
    const exact = { text: encodedString(limit - '{"text":}'.length) };
    expect(Buffer.byteLength(JSON.stringify(exact))).toBe(limit);
    expect(checkResultBounds({ structured_content: exact })).toBeUndefined();
    const over = { text: `${exact.text}a` };
    expect(Buffer.byteLength(JSON.stringify(over))).toBe(limit + 1);
    expect(checkResultBounds({ structured_content: over })).toBe(`structured_content exceeds 256 KiB when JSON-encoded (${limit + 1} bytes)`);
  });

  test("size is counted in UTF-8 bytes, not UTF-16 units", () => {
    const limit = 256 * 1024;
    const exact = "é".repeat((limit - 2) / 2); // 2 bytes each + 2 quotes
    expect(checkResultBounds({ structured_content: exact })).toBeUndefined();
    expect(checkResultBounds({ structured_content: `${exact}a` })).toContain("exceeds 256 KiB");
  });

  test("metadata: exactly 64 KiB encoded accepted, +1 byte rejected", () => {
    const limit = 64 * 1024;
    expect(checkResultBounds({ metadata: { v: encodedString(limit - '{"v":}'.length) } })).toBeUndefined();
    expect(checkResultBounds({ metadata: { v: encodedString(limit + 1 - '{"v":}'.length) } })).toBe(
      `metadata exceeds 64 KiB when JSON-encoded (${limit + 1} bytes)`,
    );
    // The same size is fine as structured_content.
    expect(checkResultBounds({ structured_content: { v: encodedString(limit + 1 - '{"v":}'.length) } })).toBeUndefined();
  });

  test("bigint values are measured as the encoder writes them", () => {
    const limit = 64 * 1024;
    const pad = encodedString(limit - '{"v":,"n":12}'.length);
    expect(checkResultBounds({ metadata: { v: pad, n: 12n } })).toBeUndefined();
    expect(checkResultBounds({ metadata: { v: pad, n: 123n } })).toContain("exceeds 64 KiB");
  });

  test("metadata keys: 256 bytes accepted, 257 rejected, at any depth", () => {
    expect(checkResultBounds({ metadata: { ["k".repeat(256)]: 1 } })).toBeUndefined();
    expect(checkResultBounds({ metadata: { ["é".repeat(128)]: 1 } })).toBeUndefined();
    expect(checkResultBounds({ metadata: { ["k".repeat(257)]: 1 } })).toContain("is 257 bytes (limit 256 UTF-8 bytes) at metadata");
    // 129 UTF-16 units, 257 bytes, nested inside an array.
    const nested = { a: [{ ["é".repeat(128) + "k"]: true }] };
    expect(checkResultBounds({ metadata: nested })).toContain("is 257 bytes (limit 256 UTF-8 bytes) at metadata.a[0]");
    // structured_content keys are not bounded.
    expect(checkResultBounds({ structured_content: { ["k".repeat(300)]: 1 } })).toBeUndefined();
  });

  test("a cyclic value is reported instead of looping", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(checkResultBounds({ structured_content: cyclic })).toContain("exceeds 32 levels of nesting");
  });
});
