import { describe, expect, test } from "bun:test";
import { expectCleanStreams, QUIET_FIXTURE, ready, startHost } from "./helpers.ts";

describe("initialize (docs/protocol-0.2.md §3.1, §8.2)", () => {
  test("reply lists tools in registration order, usage only when set, no protocol on 0.1", async () => {
    const host = await startHost();
    const result = await host.initialize();
    expect(result.protocol).toBeUndefined();
    expect((result.tools as { name: string }[]).map((t) => t.name)).toEqual(host.manifest.contributes.tools);
    expect(result.commands).toEqual([
      { name: "fixture", description: "Fixture command", usage: "/fixture [args]" },
      { name: "bare", description: "Command without usage" },
    ]);
    expect((result.tools as object[])[0]).toEqual({ name: "echo", description: "Echo args.text", parameters: { type: "object" } });
    expect(await host.shutdown()).toBe(0);
  });

  test("manifest mismatch → -32602 with declared/registered; process stays uninitialised; later initialize succeeds", async () => {
    const host = await startHost();
    const params = host.initializeParams();
    const contributes = params.contributes as Record<string, unknown>;
    const wrong = { ...params, contributes: { ...contributes, tools: ["echo"] } };
    const reply = await host.request("initialize", wrong);
    expect(reply.error).toMatchObject({ code: -32602, message: "registered tools do not match manifest declarations" });
    expect((reply.error as { data: { declared: string[]; registered: string[] } }).data.declared).toEqual(["echo"]);
    expect((reply.error as { data: { registered: string[] } }).data.registered).toEqual(host.manifest.contributes.tools);
    expect((await host.request("tool/call", { name: "echo" })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    const dup = await host.request("initialize", { ...params, contributes: { ...contributes, commands: ["fixture", "fixture"] } });
    expect(dup.error).toMatchObject({ code: -32602, message: "initialize contributes.commands contains duplicate names" });
    const version = await host.request("initialize", { ...params, api_version: "0.2" });
    expect(version.error).toEqual({ code: -32000, message: "unsupported API version: the host asked for API 0.2, this extension speaks API 0.1 (new Extension({ apiVersion }) or OCTET_EXTENSION_API_VERSION)" });
    expect((await host.request("initialize", null)).error).toMatchObject({ code: -32602 });
    // contributes omitted: no manifest check at all.
    const { contributes: _omit, ...bare } = params;
    expect((await host.request("initialize", bare)).result).toMatchObject({ api_version: "0.1" });
    expect((await host.request("initialize", params)).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    expect(await host.shutdown()).toBe(0);
  });

  test("initialize notification is ignored; requests before initialize → -32600; notifications dropped", async () => {
    const host = await startHost();
    host.notify("initialize", host.initializeParams());
    host.notify("tool/call", { name: "echo" });
    expect((await host.request("tool/call", { name: "echo" })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    expect((await host.request("shutdown", {})).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    expect(host.extensionFrames().length).toBe(2);
    await host.initialize();
    expect(await host.shutdown()).toBe(0);
    expect(host.logs().some((l) => l.message === "ignored initialize notification")).toBe(true);
  });
});

describe("tool/call (docs/protocol-0.2.md §3.2, §8.4)", () => {
  test("API 0.1 normalisation of every return shape", async () => {
    const host = await ready();
    const cases: [unknown, unknown][] = [
      [{ content: "Hello, Ada!" }, { content: "Hello, Ada!", is_error: false, metadata: {} }],
      ["done", { content: "done", is_error: false, metadata: {} }],
      [null, { content: "", is_error: false, metadata: {} }],
      [42, { content: "42", is_error: false, metadata: {} }],
      [true, { content: "True", is_error: false, metadata: {} }],
      [{ content: "x", is_error: 1, metadata: { a: 1 } }, { content: "x", is_error: true, metadata: { a: 1 } }],
      [{ is_error: false }, { content: "", is_error: false, metadata: {} }],
    ];
    for (const [value, expected] of cases) expect(await host.callTool("returns", { value })).toEqual(expected);
    expect(await host.shutdown()).toBe(0);
  });

  test("ordinary exception → is_error result with the bare message and a log; RpcError passes through", async () => {
    const host = await ready();
    expect(await host.callTool("raise")).toEqual({ content: "boom", is_error: true, metadata: {} });
    const reply = await host.request("tool/call", { name: "rpc_error", arguments: {}, context: {} });
    expect(reply.error).toEqual({ code: -32010, message: "custom", data: { x: 1 } });
    expect(await host.shutdown()).toBe(0);
    const log = host.logs().find((l) => l.message === "tool handler failed");
    expect(log).toEqual({ level: "error", message: "tool handler failed", tool: "raise", error: "boom" });
    expectCleanStreams(host);
  });

  test("unknown tool → -32601; params not an object → -32602; handler gets (arguments, context)", async () => {
    const host = await ready();
    expect((await host.request("tool/call", { name: "nope" })).error).toEqual({ code: -32601, message: "unknown tool: nope" });
    expect((await host.request("tool/call", [])).error).toEqual({ code: -32602, message: "tool/call params must be an object" });
    const context = { workspace: "/ws", execution_scope: "s1", host: { session_id: null } };
    const id = host.peekNextId();
    const withContext = (await host.call("tool/call", { name: "context_of", arguments: {}, context })) as { content: string };
    expect(JSON.parse(withContext.content)).toEqual({ context, requestId: String(id) });
    const without = (await host.call("tool/call", { name: "context_of" })) as { content: string };
    expect(JSON.parse(without.content).context).toEqual({});
    expect(await host.shutdown()).toBe(0);
  });

  test("outbound limit: a reply of exactly 1 MiB incl. LF is written; one byte more → -32603 and the stream stays healthy", async () => {
    const host = await ready();
    const id = host.peekNextId();
    const overhead = JSON.stringify({ jsonrpc: "2.0", id, result: { content: "", is_error: false, metadata: {} } }).length + 1;
    const fits = 1_048_576 - overhead;
    const result = (await host.callTool("big", { size: fits })) as { content: string };
    expect(result.content.length).toBe(fits);
    const line = host.transcript.find((e) => e.from === "extension" && e.frame?.id === id)!;
    expect(Buffer.byteLength(line.text) + 1).toBe(1_048_576);
    const over = await host.request("tool/call", { name: "big", arguments: { size: fits + 1 } });
    expect(over.error).toEqual({ code: -32603, message: "JSON-RPC message exceeds 1048576 bytes" });
    expect(await host.callTool("echo", { text: "ok" })).toMatchObject({ content: "ok" });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("outbound text (docs/protocol-0.2.md §1.1)", () => {
  test("unpaired surrogates in replies (values and member names) and notifications go out as U+FFFD; real pairs stay raw UTF-8", async () => {
    const host = await ready();
    const id = host.peekNextId();
    const reply = await host.callTool("returns", { value: { content: "a\uD800b \uDC00 \uD83D\uDE00" } });
    expect(reply).toMatchObject({ content: "a\uFFFDb \uFFFD \uD83D\uDE00" });
    const line = host.transcript.find((e) => e.from === "extension" && e.frame?.id === id)!.text;
    expect(line).toContain("a\uFFFDb \uFFFD 😀");
    expect(line).not.toMatch(/\\u[dD]/);
    expect(await host.callTool("returns", { value: { content: "k", metadata: { "\uD800key": 1 } } })).toMatchObject({ metadata: { "\uFFFDkey": 1 } });
    expect(await host.callTool("notify", { message: "lone \uDBFF" })).toMatchObject({ content: "notified" });
    const sent = host.extensionFrames().find((f) => f.method === "notification")!;
    expect(sent.params).toMatchObject({ message: "lone \uFFFD" });
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });

  test("NaN is refused, not written as null: -32603 cannot serialize, and the stream stays healthy", async () => {
    const host = await ready();
    const reply = await host.request("tool/call", { name: "nonfinite", arguments: {} });
    expect(reply.error).toEqual({ code: -32603, message: "cannot serialize JSON-RPC message: NaN is not valid JSON" });
    expect(await host.callTool("returns", { value: { content: "n", metadata: { y: null } } })).toEqual({ content: "n", is_error: false, metadata: { y: null } });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("other host methods (docs/protocol-0.2.md §3.3–§3.7)", () => {
  test("command/execute", async () => {
    const host = await ready();
    expect(await host.executeCommand("fixture", ["a", "b"])).toEqual({ text: "args=a,b", notifications: [{ level: "info", message: "n" }], context: [] });
    expect(await host.executeCommand("fixture", ["null"])).toEqual({ text: "", notifications: [], context: [] });
    expect(await host.executeCommand("bare")).toEqual({ text: "ok", notifications: [], context: [] });
    expect((await host.request("command/execute", { name: "fixture", arguments: "x" })).error).toEqual({ code: -32602, message: "command arguments must be an array" });
    expect((await host.request("command/execute", { name: "missing", arguments: [] })).error).toEqual({ code: -32601, message: "unknown command: missing" });
    expect((await host.request("command/execute", { name: "fixture", arguments: ["fail"] })).error).toEqual({ code: -32603, message: "internal error" });
    expect(await host.shutdown()).toBe(0);
    expect(host.logs().find((l) => l.message === "command handler failed")).toMatchObject({ level: "error", error: "command exploded" });
  });

  test("hook/run", async () => {
    const host = await ready();
    expect(await host.runHook("before_prompt", { prompt: "hi" })).toEqual({ disposition: { action: "continue" }, context: [{ label: "hook", content: "active" }], notifications: [] });
    expect(await host.runHook("after_tool_call", { name: "x", arguments: {}, output: "", is_error: false })).toEqual({ disposition: { action: "continue" }, context: [], notifications: [] });
    expect(await host.runHook("before_tool_call", { name: "deny", arguments: {} })).toEqual({ disposition: { action: "deny", reason: "denied by fixture" }, context: [], notifications: [] });
    expect((await host.request("hook/run", { hook: "after_response", payload: {} })).error).toEqual({ code: -32601, message: "after_response is not a declared hook" });
    expect((await host.request("hook/run", { hook: 7, payload: {} })).error).toEqual({ code: -32602, message: "hook must be a string" });
    expect((await host.request("hook/run", { hook: "before_tool_call", payload: { name: "list" } })).error).toEqual({ code: -32603, message: "hook handler must return an object" });
    expect((await host.request("hook/run", { hook: "before_prompt", payload: { prompt: "fail" } })).error).toEqual({ code: -32603, message: "internal error" });
    expect(await host.shutdown()).toBe(0);
  });

  test("context/collect, status/collect, tool/render", async () => {
    const host = await ready();
    expect(await host.collectContext("hi")).toEqual([{ label: "context", content: "hi" }]);
    expect(await host.collectContext("none")).toEqual([]);
    expect((await host.request("context/collect", { prompt: "fail" })).error).toEqual({ code: -32603, message: "internal error" });
    expect(await host.collectStatus("status")).toEqual({ surface: "status", text: "ready", priority: 0 });
    expect(await host.collectStatus("footer")).toBeNull();
    expect((await host.request("status/collect", { surface: "header" })).error).toEqual({ code: -32601, message: "header is not a declared ui" });
    expect((await host.request("status/collect", { surface: 3 })).error).toEqual({ code: -32602, message: "status surface must be a string" });
    expect(await host.renderTool("echo", {}, "plain")).toEqual({ segments: [{ text: "plain", style_role: null }] });
    expect(await host.renderTool("echo", {}, "object")).toEqual({ segments: [{ text: "obj", style_role: "r" }] });
    expect((await host.request("tool/render", { name: "hold", output: null })).error).toEqual({ code: -32601, message: "hold is not a declared tool_renderer" });
    expect((await host.request("tool/render", { name: "" })).error).toEqual({ code: -32602, message: "renderer name must be a string" });
    expect(await host.shutdown()).toBe(0);
  });

  test("undeclared capabilities: context → -32601; hooks, ui and renderers not in the manifest → -32601", async () => {
    const host = await ready(QUIET_FIXTURE);
    expect((await host.request("context/collect", { prompt: "x" })).error).toEqual({ code: -32601, message: "context contributions are not declared" });
    expect((await host.request("status/collect", { surface: "status" })).error).toEqual({ code: -32601, message: "status is not a declared ui" });
    expect((await host.request("tool/render", { name: "echo" })).error).toEqual({ code: -32601, message: "echo is not a declared tool_renderer" });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("extension → host messages on API 0.1 (docs/protocol-0.2.md §4.1–§4.4, §8.11)", () => {
  test("confirm: numeric id, no parent_request_id, both booleans; the answer reaches the tool", async () => {
    const host = await ready();
    host.onRequest("confirmation/request", () => ({ confirmed: true }));
    expect(await host.callTool("confirm", { prompt: "Continue?" })).toMatchObject({ content: "approved" });
    const request = host.extensionFrames().find((f) => f.method === "confirmation/request")!;
    expect(JSON.stringify(request)).toBe('{"jsonrpc":"2.0","id":1,"method":"confirmation/request","params":{"prompt":"Continue?","destructive":false,"default":false}}');
    host.onRequest("confirmation/request", () => ({ confirmed: false }));
    expect(await host.callTool("confirm", { prompt: "Again?", options: { detail: "d", destructive: true } })).toMatchObject({ content: "denied" });
    const second = host.extensionFrames().filter((f) => f.method === "confirmation/request")[1]!;
    expect(second).toEqual({ jsonrpc: "2.0", id: 2, method: "confirmation/request", params: { prompt: "Again?", destructive: true, default: false, detail: "d" } });
    host.onRequest("confirmation/request", () => ({ confirmed: "yes" }));
    expect((await host.request("tool/call", { name: "confirm", arguments: {} })).error).toEqual({ code: -32603, message: "invalid confirmation response" });
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });

  test("undeclared notify/confirm fail locally with -32601 and write nothing", async () => {
    const host = await ready(QUIET_FIXTURE);
    expect((await host.request("tool/call", { name: "notify", arguments: { message: "hi" } })).error).toEqual({ code: -32601, message: "ext.user.notify() needs notifications = true under [contributes] in manifest.toml" });
    expect((await host.request("tool/call", { name: "confirm", arguments: {} })).error).toEqual({ code: -32601, message: "ext.user.confirm() needs confirmations = true under [contributes] in manifest.toml" });
    expect((await host.request("tool/call", { name: "contribute", arguments: { context: { label: "l", content: "c" } } })).error).toEqual({ code: -32601, message: "ext.contribute.context() needs context = true under [contributes] in manifest.toml" });
    expect((await host.request("tool/call", { name: "contribute", arguments: { status: { surface: "status", text: "t" } } })).error).toEqual({ code: -32601, message: "status is not a declared ui" });
    expect(host.extensionFrames().filter((f) => "method" in f)).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("notify, context and status contributions are validated locally (argument errors become is_error results)", async () => {
    const host = await ready();
    expect(await host.callTool("notify", { message: "hi", options: { level: "success", title: "T" } })).toMatchObject({ content: "notified" });
    expect(host.notifications("notification").at(-1)!.params).toEqual({ level: "success", message: "hi", title: "T" });
    expect(await host.callTool("notify", { message: "hi", options: { level: "loud" } })).toEqual({ content: "notification level must be one of info, success, warning, error", is_error: true, metadata: {} });
    expect(await host.callTool("contribute", { context: { label: "l", content: "c", placement: "system_prefix" }, status: { surface: "footer", text: "t", priority: 3 } })).toMatchObject({ content: "contributed" });
    expect(host.notifications("context/contribution")[0]!.params).toEqual({ label: "l", content: "c", placement: "system_prefix" });
    expect(host.notifications("status/contribution")[0]!.params).toEqual({ surface: "footer", text: "t", priority: 3 });
    expect(await host.callTool("contribute", { context: { label: "l", content: "c", extra: 1 } })).toMatchObject({ is_error: true });
    expect((await host.request("tool/call", { name: "contribute", arguments: { status: { surface: "header", text: "t" } } })).error).toEqual({ code: -32601, message: "header is not a declared ui" });
    expect(host.notifications("status/contribution").length).toBe(1);
    expect(await host.shutdown()).toBe(0);
  });

  test("helpers: non-boolean confirm flags are argument errors; an oversized notification is -32603; nothing is written", async () => {
    const host = await ready();
    expect(await host.callTool("confirm", { options: { destructive: "yes" } })).toEqual({ content: "confirmation destructive must be a boolean", is_error: true, metadata: {} });
    const big = await host.request("tool/call", { name: "notify", arguments: { message: "x", repeat: 1_100_000 } });
    expect(big.error).toEqual({ code: -32603, message: "JSON-RPC message exceeds 1048576 bytes" });
    expect(host.extensionFrames().filter((f) => "method" in f)).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});

describe("extension → host request bounds (docs/protocol-0.2.md §1.4, §1.9)", () => {
  test("at most 8 confirmations are outstanding (octet's child workers): the 9th waits for a reply instead of breaking the host's limit", async () => {
    const host = await ready();
    const held: (() => void)[] = [];
    host.onRequest("confirmation/request", () => new Promise((resolve) => held.push(() => resolve({ confirmed: true }))));
    const call = host.callTool("confirm_many", { count: 9 });
    await host.waitForFrame((f) => f.method === "confirmation/request" && f.id === 8);
    await Bun.sleep(100);
    const sent = () => host.extensionFrames().filter((f) => f.method === "confirmation/request").length;
    expect(sent()).toBe(8);
    held.shift()!();
    await host.waitForFrame((f) => f.method === "confirmation/request" && f.id === 9);
    expect(sent()).toBe(9);
    for (const release of held.splice(0)) release();
    await Bun.sleep(50);
    for (const release of held.splice(0)) release();
    expect(await call).toMatchObject({ content: "9 approved" });
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("65,536 request ids per process are used, the 65,537th is refused locally with -32000 and nothing is written", async () => {
    const host = await ready();
    host.onRequest("confirmation/request", () => ({ confirmed: true }));
    expect(await host.callTool("confirm_many", { count: 65_536 })).toMatchObject({ content: "65536 approved" });
    const reply = await host.request("tool/call", { name: "confirm_many", arguments: { count: 1 } });
    expect(reply.error).toEqual({ code: -32000, message: "extension request id budget exhausted (65536 per process)" });
    expect(host.extensionFrames().filter((f) => f.method === "confirmation/request").length).toBe(65_536);
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  }, 60_000);
});
