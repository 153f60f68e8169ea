/**
 * The conformance fixture's API 0.3 mode (docs/conformance-fixture.md §10),
 * driven with raw canonical frames over pipes; expected frames are byte-exact.
 */
import { describe, expect, test } from "bun:test";
import { canon, defaultOffer, errorReply, initialized, initializeParams, RawExtension, textReply, V03, V03_NO_HOOKS, V03_NO_PROVIDERS } from "./raw.ts";

const TOOLS =
  '[{"description":"Return the call arguments as canonical JSON text","name":"echo","parameters":{"additionalProperties":true,"type":"object"}},' +
  '{"description":"Return an is_error result","name":"fail_error","parameters":{"type":"object"}},' +
  '{"description":"Throw from the handler","name":"raise","parameters":{"type":"object"}},' +
  '{"description":"Wait for a number of milliseconds while honouring cancellation","name":"slow","parameters":{"properties":{"ms":{"minimum":0,"type":"integer"}},"required":["ms"],"type":"object"}},' +
  '{"description":"Return structured content validated by an output schema","name":"structured","output_schema":{"additionalProperties":false,"properties":{"count":{"type":"integer"},"doubled":{"type":"integer"},"label":{"type":"string"}},"required":["label","count","doubled"],"type":"object"},"parameters":{"properties":{"count":{"type":"integer"},"label":{"type":"string"},"mode":{"enum":["ok","error"],"type":"string"}},"required":["label","count"],"type":"object"}}]';
const LIMITS = '{"max_concurrent_requests":4,"max_frame_bytes":1048576,"max_tools":256}';
const BINDING = { extension_instance_id: "conformance-instance", process_generation: 1, session_id: "conformance-session" };

/** The required names plus the provider names §10.3 selects with `providers = true` (no hooks). */
const PROVIDER_CAPABILITIES = ["content_parts", "core", "provider_catalog", "provider_stream", "request_cancellation", "tool_call"];
const PROVIDER_METHODS = ["$/cancelRequest", "initialize", "provider/cancel", "provider/event", "provider/stream", "providers/complete", "providers/register", "shutdown", "tool/call"];

const initializeReply = (capabilities: string[], methods: string[], limits = LIMITS) =>
  `{"id":1,"jsonrpc":"2.0","result":{"api_version":"0.3","contract":{"capabilities":${JSON.stringify(capabilities)},"encoding":"octet-canonical-json-v1","limits":${limits},"methods":${JSON.stringify(methods)},"schema":"octet.extension.api/0.3"},"tools":${TOOLS}}}`;

describe("10.3 initialize", () => {
  test("hooks declared, providers = false: the required names plus lifecycle_events/hook/run, sorted by code point, limits unchanged", async () => {
    const { reply } = await initialized(V03_NO_PROVIDERS);
    expect(reply).toBe(
      initializeReply(["content_parts", "core", "lifecycle_events", "request_cancellation", "tool_call"], ["$/cancelRequest", "hook/run", "initialize", "shutdown", "tool/call"]),
    );
  });

  test("hooks dropped (providers = true): the required names plus the provider names, no lifecycle_events/hook/run", async () => {
    const { reply } = await initialized(V03_NO_HOOKS);
    expect(reply).toBe(initializeReply(PROVIDER_CAPABILITIES, PROVIDER_METHODS));
  });

  test("default manifest (providers = true): C and M exactly as §10.3 gives them, never migration, auth or providers/update|unregister", async () => {
    const { reply } = await initialized(V03);
    expect(reply).toBe(
      initializeReply(
        ["content_parts", "core", "lifecycle_events", "provider_catalog", "provider_stream", "request_cancellation", "tool_call"],
        ["$/cancelRequest", "hook/run", "initialize", "provider/cancel", "provider/event", "provider/stream", "providers/complete", "providers/register", "shutdown", "tool/call"],
      ),
    );
  });

  test("provider names need every one offered: without provider/cancel neither catalog nor stream is selected", async () => {
    const offer = defaultOffer();
    offer.optional_methods = offer.optional_methods.filter((m: string) => m !== "provider/cancel");
    const { reply, handshake } = await initialized(V03, offer);
    expect(reply).toBe(
      initializeReply(["content_parts", "core", "lifecycle_events", "request_cancellation", "tool_call"], ["$/cancelRequest", "hook/run", "initialize", "shutdown", "tool/call"]),
    );
    expect(handshake).toEqual([]);
  });

  test("hook/run is not selected when the host does not offer it, even with both hooks declared", async () => {
    const offer = defaultOffer();
    offer.optional_methods = offer.optional_methods.filter((m: string) => m !== "hook/run");
    const { reply } = await initialized(V03_NO_PROVIDERS, offer);
    expect(reply).toBe(initializeReply(["content_parts", "core", "request_cancellation", "tool_call"], ["$/cancelRequest", "initialize", "shutdown", "tool/call"]));
  });

  test("lower offered limits are selected as offered, never raised", async () => {
    const offer = defaultOffer();
    offer.limits = { max_concurrent_requests: 2, max_frame_bytes: 65536, max_tools: 5 };
    const { reply } = await initialized(V03_NO_HOOKS, offer);
    expect(reply).toBe(initializeReply(PROVIDER_CAPABILITIES, PROVIDER_METHODS, '{"max_concurrent_requests":2,"max_frame_bytes":65536,"max_tools":5}'));
  });

  const failures: [string, (params: Record<string, any>) => void, number, string][] = [
    ["api_version 0.2", (p) => (p.api_version = "0.2"), -32010, "extension API version mismatch"],
    ["contract.schema other than octet.extension.api/0.3", (p) => (p.contract.schema = "octet.extension.api/0.4"), -32010, "extension API version mismatch"],
    ["contract.encoding wrong", (p) => (p.contract.encoding = "json"), -32602, "invalid params"],
    ["a required capability missing", (p) => (p.contract.required_capabilities = ["content_parts", "core", "tool_call"]), -32011, "extension capability mismatch"],
    ["a required method set other than the four", (p) => p.contract.required_methods.push("hook/run"), -32011, "extension capability mismatch"],
    ["the deferred capability dynamic_tools", (p) => p.contract.optional_capabilities.push("dynamic_tools"), -32011, "extension capability mismatch"],
    ["the deferred method tools/register", (p) => p.contract.optional_methods.push("tools/register"), -32011, "extension capability mismatch"],
    ["an unrecognised capability", (p) => p.contract.optional_capabilities.push("telepathy"), -32011, "extension capability mismatch"],
    ["a duplicate capability", (p) => p.contract.optional_capabilities.push("lifecycle_events"), -32011, "extension capability mismatch"],
    ["a method whose capability is not offered", (p) => (p.contract.optional_capabilities = p.contract.optional_capabilities.filter((c: string) => c !== "lifecycle_events")), -32011, "extension capability mismatch"],
    ["max_frame_bytes above 1048576", (p) => (p.contract.limits.max_frame_bytes = 1048577), -32012, "extension resource exhausted"],
    ["max_concurrent_requests above 64", (p) => (p.contract.limits.max_concurrent_requests = 65), -32012, "extension resource exhausted"],
    ["max_tools above 256", (p) => (p.contract.limits.max_tools = 257), -32012, "extension resource exhausted"],
    ["contributes.tools not exactly the five", (p) => (p.contributes.tools = ["echo", "fail_error", "raise", "slow"]), -32011, "extension capability mismatch"],
  ];
  for (const [name, mutate, code, message] of failures) {
    test(`${name} → ${code}, then the stream ends`, async () => {
      const ext = new RawExtension(V03);
      const params = initializeParams(ext, V03);
      mutate(params);
      ext.request(1, "initialize", params);
      const line = await ext.line(0);
      expect(JSON.parse(line).error).toMatchObject({ code, message });
      expect(line.startsWith(`{"error":{"code":${code},`)).toBe(true);
      expect(line.endsWith(`"message":"${message}"},"id":1,"jsonrpc":"2.0"}`)).toBe(true);
      expect(await ext.exitWithin(5_000)).toBe(0);
      expect(ext.lines).toHaveLength(1);
    });
  }
});

describe("10.1 wire rules", () => {
  test("before initialize, another request is -32601 and the stream ends", async () => {
    const ext = new RawExtension(V03);
    ext.request(7, "tool/call", { arguments: {}, context: {}, name: "echo" });
    expect(await ext.line(0)).toBe(errorReply(7, -32601, "unknown or unnegotiated method", { method: "tool/call" }));
    expect(await ext.exitWithin(5_000)).toBe(0);
  });

  test("a second initialize is -32600 and the stream continues", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "initialize", initializeParams(ext, V03));
    expect(await ext.reply(2)).toBe(errorReply(2, -32600, "invalid request"));
    ext.request(3, "tool/call", { arguments: {}, context: {}, name: "echo" });
    expect(await ext.reply(3)).toBe(textReply(3, "echo:{}"));
  });

  const malformed: [string, string | Uint8Array][] = [
    ["whitespace", '{"id": 2,"jsonrpc":"2.0","method":"tool/call","params":{"arguments":{},"context":{},"name":"echo"}}'],
    ["members out of order", '{"jsonrpc":"2.0","id":2,"method":"tool/call","params":{"arguments":{},"context":{},"name":"echo"}}'],
    ["a duplicate member", '{"id":2,"id":2,"jsonrpc":"2.0","method":"tool/call","params":{"arguments":{},"context":{},"name":"echo"}}'],
    ["a float", '{"id":2,"jsonrpc":"2.0","method":"tool/call","params":{"arguments":{"x":1.5},"context":{},"name":"echo"}}'],
    ["an integer beyond 2^53-1", '{"id":2,"jsonrpc":"2.0","method":"tool/call","params":{"arguments":{"x":9007199254740992},"context":{},"name":"echo"}}'],
    ["a CR before the LF", '{"id":2,"jsonrpc":"2.0","method":"tool/call","params":{"arguments":{},"context":{},"name":"echo"}}\r'],
    ["a needless escape", '{"id":2,"jsonrpc":"2.0","method":"tool/call","params":{"arguments":{"x":"\\u0041"},"context":{},"name":"echo"}}'],
    ["a lone surrogate escape", '{"id":2,"jsonrpc":"2.0","method":"tool/call","params":{"arguments":{"x":"\\ud800"},"context":{},"name":"echo"}}'],
    ["not JSON", "{"],
    ["invalid UTF-8", new Uint8Array([...Buffer.from('{"id":2,"jsonrpc":"2.0","method":"tool/call","params":{"arguments":{"x":"'), 0xc3, 0x28, ...Buffer.from('"},"context":{},"name":"echo"}}')])],
  ];
  for (const [name, frame] of malformed) {
    test(`a frame with ${name} ends the stream: no reply, the process exits`, async () => {
      const { ext } = await initialized(V03);
      ext.send(frame);
      ext.request(3, "tool/call", { arguments: {}, context: {}, name: "echo" });
      expect(await ext.exitWithin(5_000)).toBe(0);
      expect(ext.lines).toHaveLength(1);
      expect(ext.logs().some((r) => r.message === "protocol stream ended")).toBe(true);
    });
  }

  test("the selected bound replaces the offered one: a frame exactly at it is accepted, one byte over ends the stream", async () => {
    const offer = defaultOffer();
    offer.limits.max_frame_bytes = 2000; // the initialize reply (about 1.4 KB) must fit the offered bound too
    const { ext, reply: initialize } = await initialized(V03, offer);
    expect(JSON.parse(initialize).result.contract.limits.max_frame_bytes).toBe(2000);
    const frame = (id: number, pad: number) => canon({ id, jsonrpc: "2.0", method: "tool/call", params: { arguments: { p: "x".repeat(pad) }, context: {}, name: "echo" } });
    const base = Buffer.byteLength(frame(2, 0));
    expect(Buffer.byteLength(frame(2, 2000 - base))).toBe(2000);
    ext.send(frame(2, 2000 - base));
    expect(await ext.reply(2)).toBe(errorReply(2, -32012, "extension resource exhausted", { max_frame_bytes: 2000 })); // the echo reply would be larger
    ext.send(frame(3, 2001 - base));
    expect(await ext.exitWithin(5_000)).toBe(0);
    expect(ext.lines).toHaveLength(2);
  });

  test("a result frame above the selected bound is not written: -32012", async () => {
    const offer = defaultOffer();
    offer.limits.max_frame_bytes = 4096;
    const { ext } = await initialized(V03, offer);
    ext.request(2, "tool/call", { arguments: { p: '"'.repeat(1500) }, context: {}, name: "echo" });
    expect(await ext.reply(2)).toBe(errorReply(2, -32012, "extension resource exhausted", { max_frame_bytes: 4096 }));
    ext.request(3, "tool/call", { arguments: { p: "small" }, context: {}, name: "echo" });
    expect(await ext.reply(3)).toBe(textReply(3, 'echo:{"p":"small"}'));
  });

  const envelopes: [string, unknown, string][] = [
    ["an unknown member", { extra: true, id: 5, jsonrpc: "2.0", method: "tool/call", params: { arguments: {}, context: {}, name: "echo" } }, errorReply(5, -32600, "invalid request", { fields: ["extra"] })],
    ["params missing", { id: 5, jsonrpc: "2.0", method: "tool/call" }, errorReply(5, -32600, "invalid request")],
    ["params null", { id: 5, jsonrpc: "2.0", method: "tool/call", params: null }, errorReply(5, -32600, "invalid request")],
    ["an id on $/cancelRequest", { id: 5, jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 9 } }, errorReply(5, -32600, "invalid request")],
    ['jsonrpc "1.0"', { id: 5, jsonrpc: "1.0", method: "tool/call", params: { arguments: {}, context: {}, name: "echo" } }, errorReply(5, -32600, "invalid request")],
  ];
  for (const [name, frame, expected] of envelopes) {
    test(`a canonical envelope with ${name} → -32600 echoing the id; the stream continues`, async () => {
      const { ext } = await initialized(V03);
      ext.send(frame);
      expect(await ext.line(1)).toBe(expected);
      ext.request(6, "tool/call", { arguments: {}, context: {}, name: "echo" });
      expect(await ext.line(2)).toBe(textReply(6, "echo:{}"));
    });
  }

  test("notifications are never answered: an invalid one, an unknown one, a cancel for an unknown id", async () => {
    const { ext } = await initialized(V03);
    ext.send({ jsonrpc: "2.0", method: "tool/call-ish", params: {} });
    ext.notify("$/cancelRequest", { id: 999, reason: "nothing" });
    ext.notify("$/cancelRequest", { id: "x", reason: null });
    ext.notify("fixture/notice", { a: 1 });
    ext.request(2, "tool/call", { arguments: {}, context: {}, name: "echo" });
    expect(await ext.line(1)).toBe(textReply(2, "echo:{}"));
    await Bun.sleep(100);
    expect(ext.lines).toHaveLength(2);
  });

  test("admission: with max_concurrent_requests 4, a fifth unsettled request is -32012; reusing an unsettled id is -32600", async () => {
    const { ext } = await initialized(V03);
    for (const id of [2, 3, 4, 5]) ext.request(id, "tool/call", { arguments: { ms: 3000 }, context: {}, name: "slow" });
    ext.request(6, "tool/call", { arguments: { ms: 1 }, context: {}, name: "slow" });
    expect(await ext.line(1)).toBe(errorReply(6, -32012, "extension resource exhausted", { max_concurrent_requests: 4 }));
    ext.request(3, "tool/call", { arguments: {}, context: {}, name: "echo" });
    expect(await ext.line(2)).toBe(errorReply(3, -32600, "invalid request"));
    for (const id of [2, 3, 4, 5]) ext.notify("$/cancelRequest", { id });
    await ext.line(6);
    expect(ext.lines.slice(3, 7).sort()).toEqual([2, 3, 4, 5].map((id) => errorReply(id, -32800, "request cancelled", { reason: "request cancelled" })));
    ext.request("seven", "tool/call", { arguments: { ms: 1 }, context: {}, name: "slow" });
    expect(await ext.reply("seven")).toBe(textReply("seven", "slow:1"));
  });
});

describe("10.4 tools", () => {
  test("echo, fail_error, raise, structured ok/error, an unknown tool", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "tool/call", { arguments: { z: [1, "é"], a: { b: null } }, context: {}, name: "echo" });
    expect(await ext.reply(2)).toBe(textReply(2, 'echo:{"a":{"b":null},"z":[1,"é"]}'));
    ext.request(3, "tool/call", { arguments: { reason: "boom" }, context: {}, name: "fail_error" });
    expect(await ext.reply(3)).toBe('{"id":3,"jsonrpc":"2.0","result":{"content":[{"text":"fail_error:boom","type":"text"}],"is_error":true,"metadata":{"reason":"boom"}}}');
    ext.request(4, "tool/call", { arguments: {}, context: {}, name: "fail_error" });
    expect(await ext.reply(4)).toBe(textReply(4, "fail_error:", true, { reason: "" }));
    ext.request(5, "tool/call", { arguments: { message: "x" }, context: {}, name: "raise" });
    expect(await ext.reply(5)).toBe('{"error":{"code":-32603,"message":"internal error"},"id":5,"jsonrpc":"2.0"}');
    ext.request(6, "tool/call", { arguments: { count: 3, label: "L" }, context: {}, name: "structured" });
    expect(await ext.reply(6)).toBe(
      '{"id":6,"jsonrpc":"2.0","result":{"content":[{"text":"structured:L","type":"text"}],"is_error":false,"metadata":{"fixture":"structured","version":1},"structured_content":{"count":3,"doubled":6,"label":"L"}}}',
    );
    ext.request(7, "tool/call", { arguments: { count: 3, label: "L", mode: "error" }, context: {}, name: "structured" });
    expect(await ext.reply(7)).toBe(textReply(7, "structured:error", true));
    ext.request(8, "tool/call", { arguments: {}, context: {}, name: "nope" });
    expect(JSON.parse(await ext.reply(8)).error).toMatchObject({ code: -32601, message: "unknown or unnegotiated method" });
    expect(ext.logs().find((r) => r.message === "request failed" && r.error === "raise:x")?.level).toBe("error");
  });

  test("slow completes; a cancel gets exactly one -32800 with the given reason, or 'request cancelled'; repeats and late cancels are ignored", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "tool/call", { arguments: { ms: 20 }, context: {}, name: "slow" });
    expect(await ext.reply(2)).toBe(textReply(2, "slow:20"));
    ext.request(3, "tool/call", { arguments: { ms: 5000 }, context: {}, name: "slow" });
    ext.request(4, "tool/call", { arguments: { ms: 5000 }, context: {}, name: "slow" });
    await Bun.sleep(100);
    ext.notify("$/cancelRequest", { id: 3, reason: "user" });
    ext.notify("$/cancelRequest", { id: 3, reason: "again" });
    ext.notify("$/cancelRequest", { id: 4 });
    expect(await ext.reply(3)).toBe('{"error":{"code":-32800,"data":{"reason":"user"},"message":"request cancelled"},"id":3,"jsonrpc":"2.0"}');
    expect(await ext.reply(4)).toBe(errorReply(4, -32800, "request cancelled", { reason: "request cancelled" }));
    ext.notify("$/cancelRequest", { id: 2 });
    ext.request(5, "tool/call", { arguments: {}, context: {}, name: "echo" });
    expect(await ext.reply(5)).toBe(textReply(5, "echo:{}"));
    await Bun.sleep(100);
    expect(ext.lines.filter((l) => l.includes('"id":3,'))).toHaveLength(1);
    expect(ext.lines).toHaveLength(5);
  });

  test("tool/call params are closed: an unknown member is -32602", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "tool/call", { arguments: {}, catalog_revision: 0, context: {}, name: "echo" });
    expect(JSON.parse(await ext.reply(2)).error).toMatchObject({ code: -32602, message: "invalid params" });
  });
});

describe("10.5 session hooks, other methods, shutdown, EOF", () => {
  test("hook/run session_start and session_end → continue", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "hook/run", { hook: "session_start", payload: { binding: BINDING } });
    expect(await ext.reply(2)).toBe('{"id":2,"jsonrpc":"2.0","result":{"disposition":{"kind":"continue"}}}');
    ext.request(3, "hook/run", { hook: "session_end", payload: { binding: BINDING, duration_ms: 17, outcome: "shutdown", reason: "shutdown" } });
    expect(await ext.reply(3)).toBe('{"id":3,"jsonrpc":"2.0","result":{"disposition":{"kind":"continue"}}}');
    ext.request(4, "hook/run", { hook: "session_end", payload: { binding: BINDING, duration_ms: 17, outcome: "shutdown", reason: "bored" } });
    expect(JSON.parse(await ext.reply(4)).error).toMatchObject({ code: -32602, message: "invalid params" });
  });

  test("without lifecycle_events/hook/run selected, hook/run is -32601", async () => {
    const { ext } = await initialized(V03_NO_HOOKS);
    ext.request(2, "hook/run", { hook: "session_start", payload: { binding: BINDING } });
    expect(await ext.reply(2)).toBe(errorReply(2, -32601, "unknown or unnegotiated method", { method: "hook/run" }));
  });

  test("unselected or unknown methods are -32601 and the stream continues", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "migration/detect", { source_root: "/tmp" });
    expect(await ext.reply(2)).toBe(errorReply(2, -32601, "unknown or unnegotiated method", { method: "migration/detect" }));
    ext.request(3, "fixture/nope", {});
    expect(await ext.reply(3)).toBe(errorReply(3, -32601, "unknown or unnegotiated method", { method: "fixture/nope" }));
    ext.request(4, "tool/call", { arguments: {}, context: {}, name: "echo" });
    expect(await ext.reply(4)).toBe(textReply(4, "echo:{}"));
  });

  test('shutdown cancels unsettled calls (-32800, reason "shutdown"), then {"terminal":"shutdown"}; the process exits 0', async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "tool/call", { arguments: { ms: 10_000 }, context: {}, name: "slow" });
    ext.request(3, "tool/call", { arguments: { ms: 10_000 }, context: {}, name: "slow" });
    await Bun.sleep(100);
    ext.request(4, "shutdown", {});
    expect(await ext.line(3)).toBe('{"id":4,"jsonrpc":"2.0","result":{"terminal":"shutdown"}}');
    expect(ext.lines.slice(1, 3).sort()).toEqual([errorReply(2, -32800, "request cancelled", { reason: "shutdown" }), errorReply(3, -32800, "request cancelled", { reason: "shutdown" })]);
    ext.end();
    expect(await ext.exitWithin(3_000)).toBe(0);
  });

  test("shutdown params are closed: {x:1} is -32602", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "shutdown", { x: 1 });
    expect(JSON.parse(await ext.reply(2)).error).toMatchObject({ code: -32602, message: "invalid params" });
  });

  test("stdin EOF with a call in flight: the process exits 0 within 6 s", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "tool/call", { arguments: { ms: 30_000 }, context: {}, name: "slow" });
    await Bun.sleep(100);
    const started = performance.now();
    ext.end();
    expect(await ext.exitWithin(6_000)).toBe(0);
    expect(performance.now() - started).toBeLessThan(6_000);
  });
});

describe("10.6 provider", () => {
  const REGISTER_PARAMS =
    '{"models":[{"api_name":"echo-1","capabilities":{"parallel_tool_calls":false,"reasoning":false,"structured_output":false,"tools":false},"context_window":8192,"id":"echo-1","max_output_tokens":1024,"protocol":"openai_chat"}],"provider":{"auth":{"kind":"none"},"id":"fixture","label":"Conformance fixture"}}';
  const COMPLETE = '{"jsonrpc":"2.0","method":"providers/complete","params":{}}';
  const event = (stream: string, sequence: number, kind: string, payload: unknown) => canon({ jsonrpc: "2.0", method: "provider/event", params: { kind, payload, sequence, stream_id: stream } });
  const streamParams = (stream: string, request: unknown, model = "echo-1", provider = "fixture") => ({ model_id: model, provider_id: provider, request, stream_id: stream });

  test("right after the initialize result: providers/register with the exact params, then providers/complete {} after the answer", async () => {
    const { ext, handshake } = await initialized(V03);
    const id = JSON.parse(handshake[0]!).id;
    expect(Number.isSafeInteger(id)).toBe(true);
    expect(handshake).toEqual([`{"id":${id},"jsonrpc":"2.0","method":"providers/register","params":${REGISTER_PARAMS}}`, COMPLETE]);
    expect(ext.lines).toHaveLength(1);
  });

  test("providers/complete follows an error answer too, and nothing is sent before the answer", async () => {
    const ext = new RawExtension(V03);
    ext.request(1, "initialize", initializeParams(ext, V03));
    await ext.line(0);
    const register = JSON.parse(await ext.line(1));
    await Bun.sleep(200);
    expect(ext.lines).toHaveLength(2);
    ext.send({ error: { code: -32602, message: "invalid params" }, id: register.id, jsonrpc: "2.0" });
    expect(await ext.line(2)).toBe(COMPLETE);
  });

  test("provider/stream: accepted, then started, text_start, text_delta echo:canon(R), text_end, finished with sequences 0..4", async () => {
    const { ext } = await initialized(V03);
    const request = { messages: [{ content: "héllo", role: "user" }], model: "echo-1", stream: true };
    ext.request(2, "provider/stream", streamParams("provider-1-0", request));
    expect(await ext.line(1)).toBe('{"id":2,"jsonrpc":"2.0","result":{"accepted":true,"stream_id":"provider-1-0"}}');
    await ext.line(6);
    expect(ext.lines.slice(2)).toEqual([
      event("provider-1-0", 0, "started", {}),
      event("provider-1-0", 1, "text_start", { index: 0 }),
      event("provider-1-0", 2, "text_delta", { delta: `echo:${canon(request)}`, index: 0 }),
      event("provider-1-0", 3, "text_end", { index: 0 }),
      event("provider-1-0", 4, "finished", { stop_reason: "end_turn" }),
    ]);
    await Bun.sleep(100);
    expect(ext.lines).toHaveLength(7);
  });

  test("another provider or model is not accepted: reason 'unknown model', no event", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "provider/stream", streamParams("s-a", {}, "echo-2"));
    expect(await ext.reply(2)).toBe('{"id":2,"jsonrpc":"2.0","result":{"accepted":false,"reason":"unknown model","stream_id":"s-a"}}');
    ext.request(3, "provider/stream", streamParams("s-b", {}, "echo-1", "other"));
    expect(await ext.reply(3)).toBe('{"id":3,"jsonrpc":"2.0","result":{"accepted":false,"reason":"unknown model","stream_id":"s-b"}}');
    await Bun.sleep(100);
    expect(ext.lines).toHaveLength(3);
  });

  test("hold_ms waits after started; provider/cancel then stops the stream: no further event for it, the next stream runs", async () => {
    const { ext } = await initialized(V03);
    ext.request(2, "provider/stream", streamParams("held", { hold_ms: 600 }));
    expect(await ext.line(1)).toBe('{"id":2,"jsonrpc":"2.0","result":{"accepted":true,"stream_id":"held"}}');
    expect(await ext.line(2)).toBe(event("held", 0, "started", {}));
    ext.notify("provider/cancel", { reason: "user", stream_id: "held" });
    await Bun.sleep(1_000);
    expect(ext.lines).toHaveLength(3);
    ext.request(3, "provider/stream", streamParams("next", {}));
    expect(await ext.line(3)).toBe('{"id":3,"jsonrpc":"2.0","result":{"accepted":true,"stream_id":"next"}}');
    expect(await ext.line(8)).toBe(event("next", 4, "finished", { stop_reason: "end_turn" }));
  });

  test("hold_ms without a cancel: the remaining events follow after the hold", async () => {
    const { ext } = await initialized(V03);
    const started = performance.now();
    ext.request(2, "provider/stream", streamParams("slow", { hold_ms: 300 }));
    expect(await ext.line(6)).toBe(event("slow", 4, "finished", { stop_reason: "end_turn" }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  test("without providers = true no provider name is selected: provider/stream is -32601 and no handshake is sent", async () => {
    const { ext, handshake } = await initialized(V03_NO_PROVIDERS);
    expect(handshake).toEqual([]);
    ext.request(2, "provider/stream", streamParams("s", {}));
    expect(await ext.line(1)).toBe(errorReply(2, -32601, "unknown or unnegotiated method", { method: "provider/stream" }));
  });
});
