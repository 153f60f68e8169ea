import { describe, expect, test } from "bun:test";
import { expectCleanStreams, ready, startHost } from "./helpers.ts";

const LIMIT = 1_048_576;

/** A tool/call frame padded so that its content is exactly `bytes` long. */
function paddedCall(id: number, bytes: number): string {
  const base = `{"jsonrpc":"2.0","id":${id},"method":"tool/call","params":{"name":"echo","arguments":{"text":"pad","pad":""}}}`;
  const pad = "y".repeat(bytes - Buffer.byteLength(base));
  return base.replace('"pad":""', `"pad":"${pad}"`);
}

describe("framing and malformed input (docs/protocol-0.2.md §1.1, §1.2, §8.3)", () => {
  test("not json before initialize → -32700 id null; init and unknown method still work", async () => {
    const host = await startHost();
    host.sendRaw("not json");
    const err = await host.waitForReply(null);
    expect(err.error).toMatchObject({ code: -32700 });
    expect((err.error as { message: string }).message).toStartWith("invalid JSON: ");
    await host.initialize();
    const reply = await host.request("not/a/method", {});
    expect(reply.error).toEqual({ code: -32601, message: "unknown method: not/a/method" });
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });

  test("non-objects, wrong jsonrpc, missing method, non-string method", async () => {
    const host = await ready();
    const cases: [string, string][] = [
      ["[1,2]", '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC message must be an object"}}'],
      ['{"jsonrpc":"1.0","id":5,"method":"tool/call"}', '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC message must set jsonrpc to 2.0"}}'],
      ['{"jsonrpc":"2.0","id":5}', '{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid JSON-RPC request"}}'],
      ['{"jsonrpc":"2.0","id":6,"method":42}', '{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"method must be a string"}}'],
      ['{"jsonrpc":"2.0","id":7,"method":""}', '{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"method must be a string"}}'],
      // A bad method is named before a bad id (the id is echoed as sent).
      ['{"jsonrpc":"2.0","id":true,"method":42}', '{"jsonrpc":"2.0","id":true,"error":{"code":-32600,"message":"method must be a string"}}'],
      ['"just a string"', '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC message must be an object"}}'],
    ];
    for (const [input, expected] of cases) {
      const before = host.extensionFrames().length;
      host.sendRaw(input);
      await host.waitForFrame(() => host.extensionFrames().length > before);
      expect(host.transcript.filter((e) => e.from === "extension").at(-1)!.text).toBe(expected);
    }
    expect(await host.shutdown()).toBe(0);
  });

  test("ids: every integer and string is echoed type-exact; invalid ids are -32600 with the id echoed", async () => {
    const host = await ready();
    const valid = ["0", "-5", "18446744073709551615", "123456789012345678901234567890", '"job-β/7"', '"7"'];
    for (const id of valid) {
      host.sendRaw(`{"jsonrpc":"2.0","id":${id},"method":"tool/call","params":{"name":"echo","arguments":{"text":"hi"}}}`);
      const line = await waitLine(host, (t) => t.startsWith(`{"jsonrpc":"2.0","id":${id},`));
      expect(line).toBe(`{"jsonrpc":"2.0","id":${id},"result":{"content":"hi","is_error":false,"metadata":{}}}`);
    }
    for (const id of ["true", "1.5", "1.0", "1e3", "null", "{}", "[]"]) {
      host.sendRaw(`{"jsonrpc":"2.0","id":${id},"method":"tool/call","params":{"name":"echo"}}`);
      const line = await waitLine(host, (t) => t.startsWith(`{"jsonrpc":"2.0","id":${id},"error"`));
      expect(line).toBe(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,"message":"JSON-RPC id must be an integer or string"}}`);
    }
    expect(await host.shutdown()).toBe(0);
  });

  test("blank and whitespace-only lines are skipped; CRLF is accepted", async () => {
    const host = await ready();
    host.sendRaw("");
    host.sendRaw("   \t  ");
    host.sendRaw('{"jsonrpc":"2.0","id":50,"method":"tool/call","params":{"name":"echo","arguments":{"text":"crlf"}}}\r');
    const reply = await host.waitForReply(50);
    expect(reply.result).toEqual({ content: "crlf", is_error: false, metadata: {} });
    // Only the init reply and this one: nothing answered the blank lines.
    expect(host.extensionFrames().length).toBe(2);
    expect(await host.shutdown()).toBe(0);
  });

  test("invalid UTF-8 → -32700 id null, stream continues", async () => {
    const host = await ready();
    host.sendRaw(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    const err = await host.waitForReply(null);
    expect(err.error).toMatchObject({ code: -32700 });
    expect((err.error as { message: string }).message).toStartWith("invalid UTF-8");
    expect(await host.callTool("echo", { text: "after" })).toMatchObject({ content: "after" });
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });

  test("inbound limit: content of exactly 1 MiB is served (also with CRLF); 1 MiB + 1 is -32700 and the stream continues", async () => {
    const host = await ready();
    const exact = paddedCall(60, LIMIT);
    expect(Buffer.byteLength(exact)).toBe(LIMIT);
    host.sendRaw(exact);
    expect((await host.waitForReply(60)).result).toMatchObject({ content: "pad" });
    host.sendRaw(paddedCall(61, LIMIT) + "\r");
    expect((await host.waitForReply(61)).result).toMatchObject({ content: "pad" });
    host.sendRaw(paddedCall(62, LIMIT + 1));
    const err = await host.waitForReply(null);
    expect(err.error).toEqual({ code: -32700, message: "JSON-RPC message exceeds 1048576 bytes" });
    expect(host.extensionFrames().some((f) => f.id === 62)).toBe(false);
    expect(await host.callTool("echo", { text: "still here" })).toMatchObject({ content: "still here" });
    expect(await host.shutdown()).toBe(0);
  });

  test("a frame split into single bytes is assembled; several frames in one write are all served", async () => {
    const host = await ready();
    const frame = '{"jsonrpc":"2.0","id":70,"method":"tool/call","params":{"name":"echo","arguments":{"text":"bytewise β"}}}\n';
    for (const byte of Buffer.from(frame)) {
      host.sendRaw(new Uint8Array([byte]), { newline: false });
      await Bun.sleep(0);
    }
    expect((await host.waitForReply(70)).result).toMatchObject({ content: "bytewise β" });
    const batch = [71, 72, 73].map((id) => `{"jsonrpc":"2.0","id":${id},"method":"tool/call","params":{"name":"echo","arguments":{"text":"${id}"}}}`).join("\n");
    host.sendRaw(batch);
    for (const id of [71, 72, 73]) expect((await host.waitForReply(id)).result).toMatchObject({ content: String(id) });
    expect(await host.shutdown()).toBe(0);
  });

  test("a final line without LF is processed at EOF (up to exactly 1 MiB); a truncated or oversize one gets -32700; exit status 0", async () => {
    const host = await ready();
    host.sendRaw('{"jsonrpc":"2.0","id":80,"method":"tool/call","params":{"name":"echo","arguments":{"text":"last"}}}', { newline: false });
    expect(await host.closeStdin()).toBe(0);
    expect(host.extensionFrames().find((f) => f.id === 80)?.result).toMatchObject({ content: "last" });

    const cut = await ready();
    cut.sendRaw('{"jsonrpc":"2.0","id":81,"method":"tool/ca', { newline: false });
    expect(await cut.closeStdin()).toBe(0);
    expect(cut.extensionFrames().at(-1)).toMatchObject({ id: null, error: { code: -32700 } });

    const exact = await ready();
    exact.sendRaw(paddedCall(82, LIMIT), { newline: false });
    expect(await exact.closeStdin()).toBe(0);
    expect(exact.extensionFrames().find((f) => f.id === 82)?.result).toMatchObject({ content: "pad" });

    const over = await ready();
    over.sendRaw(paddedCall(83, LIMIT + 1), { newline: false });
    expect(await over.closeStdin()).toBe(0);
    expect(over.extensionFrames().at(-1)).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "JSON-RPC message exceeds 1048576 bytes" } });
    expect(over.extensionFrames().some((f) => f.id === 83)).toBe(false);
  });
});

async function waitLine(host: import("octet-extension/testing").TestHost, match: (text: string) => boolean): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const entry = host.transcript.find((e) => e.from === "extension" && match(e.text));
    if (entry) return entry.text;
    await Bun.sleep(10);
  }
  throw new Error("no matching line");
}
