/**
 * What `conformance` takes for a refusal before any handler ran: the runtime's
 * own validator answer (in each API version's result shape) and JSON-RPC
 * -32602; never a handler's error result.
 */
import { describe, expect, test } from "bun:test";
import { argumentRefusal } from "../../codegen/argument-refusal.ts";
import { invalidArgumentsText } from "../../src/runtime/arguments.ts";
import { toolErrorResult } from "../../src/runtime/results.ts";

describe("argumentRefusal", () => {
  const text = invalidArgumentsText("add_todo", [{ path: "/title", rule: "minLength", message: "must NOT have fewer than 1 characters" }]);

  for (const api of ["0.1", "0.2", "0.4"] as const) {
    test(`the runtime's validator answer on API ${api} is a refusal, quoted`, () => {
      expect(argumentRefusal({ jsonrpc: "2.0", id: 1, result: toolErrorResult(api, text) })).toBe(text);
    });
  }

  test("-32602 is a refusal", () => {
    expect(argumentRefusal({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "invalid params" } })).toBe("-32602 invalid params");
  });

  test("a handler's error, a cancellation, a success and no reply are not", () => {
    expect(argumentRefusal({ id: 1, result: toolErrorResult("0.4", "title must not be empty") })).toBeUndefined();
    expect(argumentRefusal({ id: 1, error: { code: -32800, message: "request cancelled" } })).toBeUndefined();
    expect(argumentRefusal({ id: 1, result: { content: [{ type: "text", text }], is_error: false } })).toBeUndefined();
    expect(argumentRefusal(undefined)).toBeUndefined();
  });
});
