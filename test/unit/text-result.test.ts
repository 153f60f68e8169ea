/**
 * A text-only tool result is written by `TextResult.replyLine` instead of the general encoder
 * (issue 28). Both must write the same bytes for every text an author can return.
 */
import { describe, expect, test } from "bun:test";
import { toolResult01, toolResult02 } from "../../src/runtime/results.ts";
import { TextResult } from "../../src/runtime/text-result.ts";
import { encodeWireFrame } from "../../src/wire/encode.ts";

const TEXTS = ["", "plain", 'quote " backslash \\ slash /', "tab\tnewline\nnul\u0000", "accent \u00e9 cjk \u4e2d emoji \u{1f600}", "lone \ud800 high", "lone \udc00 low", "a".repeat(70_000)];
const V02 = { api: "0.2" as const, outputSchema: undefined, artifacts: false };
const LIMIT = 1024 * 1024;

function general(id: number, result: object): string {
  const line = encodeWireFrame({ jsonrpc: "2.0", id, result: JSON.parse(JSON.stringify(result)) }, LIMIT);
  return typeof line === "string" ? line : new TextDecoder().decode(line);
}

describe("TextResult", () => {
  for (const text of TEXTS) {
    test(`same reply as the general encoder: ${JSON.stringify(text.slice(0, 24))}`, () => {
      for (const [made, id] of [
        [toolResult02(text, V02), 7],
        [toolResult02({ content: text, is_error: true }, V02), 0],
        [toolResult01(text), 12345678901],
        [toolResult01({ content: text, is_error: false }), 3],
        [toolResult01({ content: text, is_error: true }), 9],
      ] as const) {
        expect(made).toBeInstanceOf(TextResult);
        expect((made as unknown as TextResult).replyLine(id)).toBe(general(id, made));
      }
    });
  }

  test("only text-only results take it: metadata, structured content or extra parts keep the general walk", () => {
    expect(toolResult01({ content: "x", metadata: { a: 1 } })).not.toBeInstanceOf(TextResult);
    expect(toolResult01({ content: "x", is_error: 1 })).not.toBeInstanceOf(TextResult);
    expect(toolResult02({ content: "x", metadata: { a: 1 } }, V02)).not.toBeInstanceOf(TextResult);
    expect(toolResult02({ content: [{ type: "text", text: "x" }] }, V02)).not.toBeInstanceOf(TextResult);
    expect(toolResult02({ content: "x", structured_content: { a: 1 } }, { ...V02, outputSchema: { type: "object" } })).not.toBeInstanceOf(TextResult);
  });
});
