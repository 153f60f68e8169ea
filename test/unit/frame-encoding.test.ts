import { describe, expect, test } from "bun:test";
import { encodeFrame, encodeProgressFrame, encodeWireFrame, FrameEncodeError } from "../../src/wire/encode.ts";

describe("outbound limit with multi-byte text (src/wire/encode.ts)", () => {
  const LIMIT = 1_048_576;
  const size = (line: string | Uint8Array) => (typeof line === "string" ? Buffer.byteLength(line) : line.length);
  /** `text` of `bytes` UTF-8 bytes: euro signs (3 bytes, 1 UTF-16 unit) padded with ASCII. */
  const textOf = (bytes: number) => "€".repeat(Math.floor(bytes / 3)) + "x".repeat(bytes % 3);

  test("a reply of exactly the limit incl. LF is written by every encoder; one byte more is refused", () => {
    const reply = (text: string) => ({ jsonrpc: "2.0", id: 7, result: { content: text } });
    const overhead = size(encodeFrame(reply("")));
    const exact = reply(textOf(LIMIT - overhead));
    expect(size(encodeFrame(exact))).toBe(LIMIT);
    expect(size(encodeWireFrame(exact))).toBe(LIMIT);
    const over = reply(textOf(LIMIT - overhead + 1));
    expect(() => encodeFrame(over)).toThrow(FrameEncodeError);
    expect(() => encodeWireFrame(over)).toThrow(new FrameEncodeError(`JSON-RPC message exceeds ${LIMIT} bytes`));
  });

  test("NaN and ±Infinity are refused by every encoder; a real null is written as is", () => {
    const refused = (value: number) => new FrameEncodeError(`cannot serialize JSON-RPC message: ${value} is not valid JSON`);
    expect(() => encodeFrame({ a: null, b: NaN })).toThrow(refused(NaN));
    expect(() => encodeWireFrame({ a: [null, Infinity] })).toThrow(refused(Infinity));
    expect(() => encodeProgressFrame(1, 1, { type: "status", message: "m", current: null, total: -Infinity })).toThrow(refused(-Infinity));
    expect(encodeWireFrame({ a: null, b: 1 })).toBe('{"a":null,"b":1}\n');
  });

  test("$/progress (spliced envelope): exactly the limit is written and is the frame JSON would give; one byte more is refused", () => {
    const event = (message: string) => ({ type: "status", message });
    const overhead = size(encodeProgressFrame(2n ** 60n, 3, event("")));
    const exact = encodeProgressFrame(2n ** 60n, 3, event(textOf(LIMIT - overhead)));
    expect(size(exact)).toBe(LIMIT);
    const text = new TextDecoder().decode(exact as Uint8Array);
    expect(text.endsWith("\n")).toBe(true);
    expect(JSON.parse(text)).toEqual({
      jsonrpc: "2.0",
      method: "$/progress",
      params: { request_id: 2 ** 60, sequence: 3, event: { type: "status", message: textOf(LIMIT - overhead) } },
    });
    expect(text).toContain('"request_id":1152921504606846976,');
    expect(() => encodeProgressFrame(2n ** 60n, 3, event(textOf(LIMIT - overhead + 1)))).toThrow(FrameEncodeError);
  });
});

describe("status progress events written without building the event (the hot path)", () => {
  const { checkProgressEvent, statusEventJson } = require("../../src/runtime/progress.ts") as typeof import("../../src/runtime/progress.ts");
  /** The same event as an object, through the path `ext.progress({type: "status", …})` takes. */
  const statusEvent = (message: unknown, extra: object) => checkProgressEvent({ type: "status", message, ...extra });
  const cases: [string, { current?: number | null; total?: number | null; unit?: string | null }][] = [
    ["step 1", {}],
    ["step 2", { current: 2 }],
    ["step 3", { current: 3, total: 10 }],
    ["copy", { current: 0, total: null, unit: "files" }],
    ['quote " backslash \\ newline \n tab \t', { current: null, unit: null }],
    ["lone \ud800 surrogate", { unit: "b\udc00ytes" }],
    ["ünïcödé ✓ 🚀", { current: Number.MAX_SAFE_INTEGER, total: Number.MAX_SAFE_INTEGER }],
  ];
  test.each(cases)("%j %j: byte for byte what the generic encoder writes", (message, extra) => {
    const generic = encodeProgressFrame(7, 3, statusEvent(message, extra));
    expect(encodeProgressFrame(7, 3, statusEventJson(message, extra))).toEqual(generic);
    expect(encodeProgressFrame(2n ** 64n - 1n, 1, statusEventJson(message, extra))).toEqual(encodeProgressFrame(2n ** 64n - 1n, 1, statusEvent(message, extra)));
  });

  test("the same argument errors as an event object", () => {
    for (const [message, extra] of [[7, {}], ["m", { current: -1 }], ["m", { total: 1.5 }], ["m", { current: "3" }], ["m", { unit: 3 }]] as [never, never][]) {
      expect(() => statusEventJson(message, extra)).toThrow((() => { try { statusEvent(message, extra); } catch (e) { return (e as Error).message; } return "no error"; })());
    }
  });
});
