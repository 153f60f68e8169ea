import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ReplyError, temporaryDirectory } from "octet-extension/testing";
import { error, fixture, FULL_OFFER, specJson, text, V01, V02 } from "./helpers.ts";

/** Match a definition against a spec pattern (`{"$opt": null}` = absent or null). */
function matches(actual: Record<string, unknown>, pattern: Record<string, unknown>): boolean {
  for (const [key, want] of Object.entries(pattern)) {
    if (want && typeof want === "object" && "$opt" in (want as object)) {
      if (actual[key] !== undefined && actual[key] !== null) return false;
    } else if (JSON.stringify(actual[key]) !== JSON.stringify(want)) return false;
  }
  return Object.keys(actual).every((k) => k in pattern);
}

describe("conformance fixture: initialize (5.1)", () => {
  test("API 0.2: 23 tool definitions match tools-v02.json, the command matches, protocol as specified", async () => {
    const host = await fixture(V02, { offer: { ...FULL_OFFER, optional: [...FULL_OFFER.optional, "future_optional_feature"], maxConcurrentRequests: 64 } }, false);
    const result = await host.initialize();
    const patterns = specJson("tools-v02.json").$set as Record<string, unknown>[];
    const tools = result.tools as Record<string, unknown>[];
    expect(tools.length).toBe(23);
    for (const pattern of patterns) expect(matches(tools.find((t) => t.name === pattern.name)!, pattern)).toBe(true);
    expect(result.commands).toEqual(specJson("commands.json"));
    const protocol = result.protocol as Record<string, unknown>;
    expect(protocol.version).toBe("0.2");
    expect(protocol.limits).toEqual({ max_concurrent_requests: 4 });
    expect(new Set(protocol.features as string[])).toEqual(
      new Set(["request_cancellation", "content_parts", "request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools", "agent_sessions", "approvals", "secrets", "progress_decoration"]),
    );
    expect(protocol.lifecycle_events).toEqual(["turn/settled", "turn/started"]);
    expect(await host.shutdown()).toBe(0);
  });

  test("API 0.1: exactly api_version, the 9 tools of tools-v01.json, the command", async () => {
    const host = await fixture(V01, {}, false);
    const result = await host.initialize();
    expect(Object.keys(result).sort()).toEqual(["api_version", "commands", "tools"]);
    const patterns = specJson("tools-v01.json").$set as Record<string, unknown>[];
    const tools = result.tools as Record<string, unknown>[];
    expect(tools.length).toBe(9);
    for (const pattern of patterns) expect(matches(tools.find((t) => t.name === pattern.name)!, pattern)).toBe(true);
    expect(await host.shutdown()).toBe(0);
  });

  test("failures: version mismatch, unsupported required feature, protocol version, bad limits, duplicate features, then a good initialize", async () => {
    const host = await fixture(V02, {}, false);
    const good = host.initializeParams();
    const protocol = good.protocol as Record<string, unknown>;
    const attempt = (params: Record<string, unknown>) => host.request("initialize", params);
    expect((await attempt({ ...good, api_version: "0.1" })).error).toMatchObject({ code: -32000 });
    expect((await attempt({ ...good, protocol: { ...protocol, required_features: ["request_cancellation", "content_parts", "telepathy"] } })).error).toEqual({
      code: -32000,
      message: "required API 0.2 features are unsupported",
      data: { unsupported_features: ["telepathy"] },
    });
    expect((await attempt({ ...good, protocol: { ...protocol, version: "0.3" } })).error).toMatchObject({ code: -32000 });
    for (const limit of [true, 0, -3, 1.5]) {
      expect((await attempt({ ...good, protocol: { ...protocol, limits: { max_concurrent_requests: limit } } })).error).toMatchObject({ code: -32602 });
    }
    expect((await attempt({ ...good, protocol: { ...protocol, required_features: ["content_parts", "content_parts", "request_cancellation"] } })).error).toMatchObject({ code: -32602 });
    const { protocol: _drop, ...noProtocol } = good;
    expect((await attempt(noProtocol)).error).toMatchObject({ code: -32602 });
    expect((await host.request("tool/call", { name: "echo" })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    await host.initialize(good);
    expect((await attempt(good)).error).toMatchObject({ code: -32600 });
    expect(await host.shutdown()).toBe(0);
  });

  test("offer without lifecycle_events subscriptions: no lifecycle_events key; host limit below 4 wins", async () => {
    const host = await fixture(V02, { offer: { optional: ["request_progress"], maxConcurrentRequests: 2 } }, false);
    const protocol = (await host.initialize()).protocol as Record<string, unknown>;
    expect(protocol).toEqual({ version: "0.2", features: ["request_cancellation", "content_parts", "request_progress"], limits: { max_concurrent_requests: 2 } });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("conformance fixture: plain tools (4.1)", () => {
  test("echo, fail_error, raise, big, inspect on API 0.2", async () => {
    const host = await fixture();
    expect(await host.callTool("echo", { b: [1, "é"], a: { y: null, x: true } })).toEqual(text('echo:{"a":{"x":true,"y":null},"b":[1,"é"]}'));
    expect(await host.callTool("fail_error", { reason: "r" })).toEqual({ ...error("fail_error:r"), metadata: { reason: "r" } });
    expect(await host.callTool("raise", { message: "m" })).toEqual(error("raise:m"));
    await expect(host.callTool("raise", { mode: "rpc", code: -32077, message: "nope", data: { d: 1 } })).rejects.toMatchObject({ code: -32077, message: "nope", data: { d: 1 } });
    expect(await host.callTool("big", { bytes: 5 })).toEqual(text("xxxxx"));
    const inspected = (await host.callTool("inspect", {})) as { content: { text: string }[] };
    const report = JSON.parse(inspected.content[0]!.text.slice("inspect:".length));
    expect(report.api_version).toBe("0.2");
    expect(report.cwd).toBe(host.workspace);
    expect(report.context.resource_owner).toEqual(host.resourceOwner);
    expect(report.env.OCTET_EXTENSION_NAME).toBe("octet-conformance-fixture");
    expect(report.env.OCTET_WORKSPACE).toBe(host.workspace);
    expect(await host.shutdown()).toBe(0);
  });

  test("structured: ok with structured_content, error without, missing refused -32603", async () => {
    const host = await fixture();
    expect(await host.callTool("structured", { label: "L", count: 2 })).toEqual({
      content: [{ type: "text", text: "structured:L" }],
      is_error: false,
      metadata: { fixture: "structured", version: 1 },
      structured_content: { label: "L", count: 2, doubled: 4 },
    });
    expect(await host.callTool("structured", { label: "L", count: 2, mode: "error" })).toEqual(error("structured:error"));
    await expect(host.callTool("structured", { label: "L", count: 2, mode: "missing" })).rejects.toMatchObject({ code: -32603 });
    expect(await host.shutdown()).toBe(0);
  });

  test("shape: every row of the normalisation table on API 0.2", async () => {
    const host = await fixture(V02, { offer: { optional: ["request_progress"] } });
    const ok: Record<string, unknown> = {
      string: text("shape:string"),
      content_string: text("shape:content_string"),
      metadata: { ...text("shape:metadata"), metadata: { k: "v" } },
      null_metadata: { ...text("shape:null_metadata"), metadata: null },
      parts: { content: [{ type: "text", text: "shape:a" }, { type: "text", text: "shape:b" }], is_error: false, metadata: { k: "v" } },
    };
    for (const [kind, expected] of Object.entries(ok)) expect(await host.callTool("shape", { kind })).toEqual(expected as never);
    const max = (await host.callTool("shape", { kind: "max_parts" })) as { content: unknown[] };
    expect(max.content.length).toBe(256);
    const refused: Record<string, string> = {
      none: "tool result content must not be empty",
      too_many: "tool result content exceeds 256 parts",
      empty: "tool result content must not be empty",
      no_text: "image content requires artifacts negotiation",
      media: "image content requires artifacts negotiation",
      unknown_field: 'unknown API 0.2 tool result fields: ["extra"] (a tool result takes content, is_error, metadata, structured_content, diagnostics)',
      unknown_part_field: "unknown text content fields",
      unknown_part_type: "unknown tool result content type: video",
      structured_no_schema: "structured_content requires a declared output_schema",
      bad_is_error: "tool result is_error must be a boolean",
    };
    for (const [kind, message] of Object.entries(refused)) {
      const reply = await host.request("tool/call", { name: "shape", arguments: { kind }, context: host.executionContext() });
      expect(reply.error).toEqual({ code: -32603, message });
    }
    expect(host.extensionFrames().filter((f) => f.result && JSON.stringify(f.result).includes("shape:media"))).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("shape media passes when artifacts is negotiated; API 0.1 coerces none to an empty text", async () => {
    const host = await fixture(V02, { offer: { optional: ["artifacts"] } });
    const media = (await host.callTool("shape", { kind: "media" })) as { content: unknown[] };
    expect(media.content.length).toBe(3);
    expect(await host.shutdown()).toBe(0);
    const old = await fixture(V01);
    expect(await old.callTool("shape", { kind: "none" })).toEqual({ content: "", is_error: false, metadata: {} });
    expect(await old.callTool("echo", { a: 1 })).toEqual({ content: 'echo:{"a":1}', is_error: false, metadata: {} });
    expect(await old.shutdown()).toBe(0);
  });

  test("big: a reply over 1 MiB is -32603, never a partial frame", async () => {
    const host = await fixture();
    await expect(host.callTool("big", { bytes: 1_048_576 })).rejects.toBeInstanceOf(ReplyError);
    expect(await host.callTool("echo", {})).toEqual(text("echo:{}"));
    expect(await host.shutdown()).toBe(0);
  });
});

describe("conformance fixture: other contributions (5.2–5.7)", () => {
  test("command, hooks, context, status, renderer and the shutdown hook", async () => {
    const scratch = temporaryDirectory("fixture-scratch-");
    const host = await fixture(V02, { scratch });
    expect(await host.executeCommand("fixture", ["a", "b"])).toEqual({
      text: 'fixture:["a","b"]',
      notifications: [{ level: "info", title: "fixture", message: "command ran" }],
      context: [{ label: "fixture", content: "command context", placement: "prompt_suffix" }],
    });
    host.onRequest("confirmation/request", (params) => ({ confirmed: params.prompt === "Proceed with fixture command?" }));
    expect(await host.executeCommand("fixture", ["confirm"])).toEqual({ text: "fixture:confirm:true", notifications: [], context: [] });
    await expect(host.executeCommand("fixture", ["raise"])).rejects.toMatchObject({ code: -32603 });
    expect(await host.runHook("before_prompt", { prompt: "deny" })).toEqual({ disposition: { action: "deny", reason: "fixture denied" }, context: [], notifications: [] });
    await expect(host.runHook("before_prompt", { prompt: "raise" })).rejects.toMatchObject({ code: -32603 });
    expect(await host.runHook("before_prompt", { prompt: "p" })).toEqual({
      disposition: { action: "continue" },
      context: [{ label: "fixture", content: "before_prompt:p", placement: "prompt_prefix" }],
      notifications: [],
    });
    expect(await host.runHook("after_tool_call", { name: "echo", arguments: {}, output: "o", is_error: true })).toEqual({
      disposition: { action: "continue" },
      context: [{ label: "fixture", content: "after_tool_call:echo:true:o", placement: "system_suffix" }],
      notifications: [],
    });
    expect(await host.runHook("before_tool_call", { name: "echo", arguments: {} })).toEqual({ disposition: { action: "continue" }, context: [], notifications: [] });
    await expect(host.runHook("after_response", { response: "r" })).rejects.toMatchObject({ code: -32601 });
    expect(await host.collectContext(null)).toEqual([{ label: "fixture", content: "context:<none>", placement: "system_suffix" }]);
    expect(await host.collectStatus("status")).toEqual({ surface: "status", text: "fixture ready", priority: 7, style_role: "extension.fixture.status" });
    expect(await host.collectStatus("footer")).toBeNull();
    await expect(host.collectStatus("header")).rejects.toMatchObject({ code: -32601 });
    expect(await host.renderTool("echo", {}, "out", true)).toEqual({
      segments: [
        { text: "echo", style_role: "extension.fixture.name" },
        { text: " · ", style_role: null },
        { text: "out", style_role: "extension.fixture.error" },
      ],
    });
    expect(await host.renderTool("structured", {}, null)).toEqual({ segments: [] });
    await expect(host.renderTool("inspect", {}, null)).rejects.toMatchObject({ code: -32601 });
    expect(existsSync(join(scratch, "fixture-shutdown.marker"))).toBe(false);
    expect(await host.shutdown()).toBe(0);
    expect(readFileSync(join(scratch, "fixture-shutdown.marker"), "utf8")).toBe("shutdown\n");
  });
});
