import { expect, test } from "bun:test";
import { RpcError } from "../../src/errors.ts";
import { toolResult02 } from "../../src/runtime/results.ts";

const opts = { api: "0.2" as const, outputSchema: undefined, artifacts: false };
const text = (t: string, isError = false) => ({ content: [{ type: "text", text: t }], is_error: isError, metadata: {} });

test("the common result shapes (string, {content: string}, with a boolean is_error) come out as the general walk makes them", () => {
  expect(toolResult02("hi", opts)).toEqual(text("hi"));
  expect(toolResult02({ content: "hi" }, opts)).toEqual(text("hi"));
  expect(toolResult02({ content: "hi", is_error: true }, opts)).toEqual(text("hi", true));
  expect(toolResult02({ is_error: false, content: "" }, opts)).toEqual(text(""));
  // Inherited enumerable keys are not the result's own: the walk ignores them too.
  expect(toolResult02(Object.assign(Object.create({ inherited: 1 }), { content: "hi" }), opts)).toEqual(text("hi"));
  // Each call makes its own objects.
  const a = toolResult02({ content: "x" }, opts);
  const b = toolResult02({ content: "x" }, opts);
  expect(a).not.toBe(b);
  expect(a.content).not.toBe(b.content);
  expect(a.metadata).not.toBe(b.metadata);
});

test("anything else still takes the general walk and its refusals", () => {
  const refusal = (value: unknown) => {
    try {
      toolResult02(value, opts);
    } catch (error) {
      return error instanceof RpcError ? `${error.code} ${error.message}` : String(error);
    }
    return "accepted";
  };
  expect(refusal({ content: "x", is_error: "yes" })).toBe("-32603 tool result is_error must be a boolean");
  expect(refusal({ content: "x", isError: true })).toContain('"is_error" for "isError"');
  expect(refusal({ content: "x", metadata: null })).toBe("accepted");
  expect(toolResult02({ content: "x", metadata: { a: 1 } }, opts)).toEqual({ ...text("x"), metadata: { a: 1 } });
  // A declared output schema needs structured_content even for a plain text result.
  expect(() => toolResult02({ content: "x" }, { ...opts, outputSchema: { type: "object" } })).toThrow("structured_content required by output_schema");
});
