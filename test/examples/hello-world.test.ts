import { afterEach, describe, expect, test } from "bun:test";
import { ReplyError, TestHost } from "octet-extension/testing";

const DIR = new URL("../../examples/hello-world", import.meta.url).pathname;
let host: TestHost;
afterEach(() => host?.kill());

describe("examples/hello-world (process level, API 0.1)", () => {
  test("initialize reply matches octet's example byte for byte", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    const reply = host.transcript.find((e) => e.from === "extension")!;
    expect(reply.text).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"api_version":"0.1","tools":[{"name":"hello_world","description":"Greet someone from an executable extension","parameters":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}}],"commands":[{"name":"hello","description":"Show a greeting notification","usage":"/hello [name]"}]}}',
    );
    expect(await host.shutdown()).toBe(0);
  });

  test("tool call notifies first, then answers", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    expect(await host.callTool("hello_world", { name: "Ada" })).toEqual({ content: "Hello, Ada!", is_error: false, metadata: {} });
    expect(await host.callTool("hello_world", {})).toEqual({ content: "Hello, tinkerer!", is_error: false, metadata: {} });
    const frames = host.extensionFrames().map((f) => JSON.stringify(f));
    const note = frames.indexOf('{"jsonrpc":"2.0","method":"notification","params":{"level":"success","message":"hello_world greeted Ada"}}');
    const reply = frames.findIndex((f) => f.includes('"Hello, Ada!"'));
    expect(note).toBeGreaterThan(-1);
    expect(note).toBeLessThan(reply);
    expect(await host.shutdown()).toBe(0);
  });

  test("command, hooks, context, status and renderer", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    expect(await host.executeCommand("hello", ["Ada", "Lovelace"])).toEqual({ text: "Hello, Ada!", notifications: [], context: [] });
    expect(await host.executeCommand("hello", [])).toEqual({ text: "Hello, tinkerer!", notifications: [], context: [] });
    const carryOn = { disposition: { action: "continue" as const }, context: [], notifications: [] };
    expect(await host.runHook("before_prompt", { prompt: "hi" })).toEqual(carryOn);
    expect(await host.runHook("after_response", { response: "ok" })).toEqual(carryOn);
    await expect(host.runHook("before_tool_call", { name: "x", arguments: {} })).rejects.toMatchObject({
      code: -32601,
      message: "before_tool_call is not a declared hook",
    });
    expect(await host.collectContext("hi")).toEqual([
      { label: "hello-world", content: "The hello-world extension is active.", placement: "system_suffix" },
    ]);
    const status = await host.request("status/collect", { surface: "status", context: host.executionContext() });
    expect(JSON.stringify(status.result)).toBe('{"surface":"status","text":"hello","priority":0,"style_role":"extension.hello_world.status"}');
    await expect(host.collectStatus("header")).rejects.toBeInstanceOf(ReplyError);
    expect(await host.renderTool("hello_world", { name: "Ada" }, "Hello, Ada!")).toEqual({
      segments: [{ text: "hello_world · Hello, Ada!", style_role: "extension.hello_world.tool" }],
    });
    expect(await host.renderTool("hello_world", {}, null)).toEqual({
      segments: [{ text: "hello_world · waiting", style_role: "extension.hello_world.tool" }],
    });
    expect(await host.shutdown()).toBe(0);
    expect(host.diagnostics).toEqual([]);
  });
});
