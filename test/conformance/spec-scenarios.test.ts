/**
 * Process-level tests (a real extension over pipes, driven by the test host)
 * for docs/protocol-0.2.md §10 scenarios that had no, or only in-process, coverage.
 * Fixture: test/fixtures/spec-scenarios/ (one fixture.ts, one manifest per mode).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_OPTIONAL_FEATURES, REQUIRED_FEATURES, TestHost, temporaryDirectory } from "octet-extension/testing";
import { error, fixture, text } from "./helpers.ts";

const dir = (name: string) => new URL(`../fixtures/spec-scenarios/${name}`, import.meta.url).pathname;
const MAIN = dir("v02");
const PLAIN = dir("v02-plain");
const LIMIT512 = dir("v02-limit512");
const LIMIT512_PROGRESS = dir("v02-limit512-progress");
const RESTRICTED = dir("v02-restricted");
const V01 = dir("v01");
const V01_OUTPUT_SCHEMA = dir("v01-output-schema");

type Obj = Record<string, any>;

const call = (id: number | string, name: string, args: object = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name, arguments: args, context: {} } });

/** A scratch directory the test owns, so it can release blocked handlers. */
const scratchDir = () => temporaryDirectory("spec-scenarios-");
const release = (scratch: string, key: string) => writeFileSync(join(scratch, `release-${key}`), "");

/** Wait for the `n`-th (1-based) structured stderr record with `message`. */
async function waitForLog(host: TestHost, message: string, n = 1, timeoutMs = 5_000): Promise<Obj> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = host.logs().filter((l) => l.message === message);
    if (found.length >= n) return found[n - 1] as Obj;
    if (Date.now() > deadline) throw new Error(`no stderr record "${message}" #${n} within ${timeoutMs} ms; stderr:\n${host.stderr.join("\n")}`);
    await Bun.sleep(10);
  }
}

/** The `error` member of a raw reply frame. */
const errorOf = (reply: Record<string, unknown>) => reply.error as Obj;
const framesWithId = (host: TestHost, id: unknown) => host.extensionFrames().filter((f) => !("method" in f) && f.id === id);
const frames = (host: TestHost, method: string) => host.extensionFrames().filter((f) => f.method === method);

/** Octet 0.8.0's extra API 0.2 offer (docs/protocol-0.2.md §3.1), unconditional part. */
const OCTET_080_EXTRAS = [
  "progress_decoration", "runtime_commands", "semantic_ui", "editor_handoff", "terminal_input", "autocomplete",
  "dynamic_tool_renderers", "composer", "shortcuts", "session_entries", "message_injection", "lifecycle_events_v2",
  "active_tools", "terminal_handoff", "session_context", "model_catalog",
];

const SNAPSHOT = (revision: number) => ({
  revision,
  status: { state: "active", label: "1 worker" },
  activities: [],
  actions: [{ id: "stop", label: "Stop worker", command: "workers", arguments: ["stop"], destructive: true }],
});

describe("docs/protocol-0.2.md §10 initialization scenarios, process level", () => {
  test("§10 11: features echoed in offer order (unknown optional dropped), limits min(12, local 2), handler registered as turn_settled subscribes turn/settled", async () => {
    const scratch = scratchDir();
    const host = await fixture(MAIN, { scratch, offer: { optional: [...DEFAULT_OPTIONAL_FEATURES, "future_optional_feature"], maxConcurrentRequests: 12 } }, false);
    const result = await host.initialize();
    expect(result.protocol).toEqual({
      version: "0.2",
      features: ["request_cancellation", "content_parts", "request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools"],
      limits: { max_concurrent_requests: 2 },
      lifecycle_events: ["turn/settled"],
    });
    // The underscore registration really is the turn/settled subscription.
    release(scratch, "t11");
    host.lifecycle("turn/settled", { session_id: "s", run_id: "r", turn_id: "t11", outcome: "completed", duration_ms: 3, reason: null });
    expect((await waitForLog(host, "lifecycle received")).params).toEqual({ session_id: "s", run_id: "r", turn_id: "t11", outcome: "completed", duration_ms: 3, reason: null });
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 12: no lifecycle handler → default offer answered without lifecycle_events in features and no lifecycle_events key", async () => {
    const host = await fixture(PLAIN, {}, false);
    const protocol = (await host.initialize()).protocol as Obj;
    expect(protocol).toEqual({
      version: "0.2",
      features: ["request_cancellation", "content_parts", "request_progress", "artifacts", "policy_intents", "dynamic_tools"],
      limits: { max_concurrent_requests: 8 },
    });
    expect("lifecycle_events" in protocol).toBe(false);
    expect(host.transcript.find((e) => e.from === "extension")!.text).not.toContain("lifecycle_events");
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 13: supportedFeatures [content_parts] → -32000 required API 0.2 features are unsupported, data.unsupported_features [request_cancellation]; stays uninitialized", async () => {
    const host = await fixture(RESTRICTED, {}, false);
    const reply = await host.request("initialize", host.initializeParams());
    expect(reply).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32000, message: "required API 0.2 features are unsupported", data: { unsupported_features: ["request_cancellation"] } },
    });
    expect((await host.request("tool/call", { name: "echo", arguments: {} })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    expect(await host.closeStdin()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("§10 17: agent_sessions, approvals, secrets offered and delegation_telemetry_v1 required → all echoed, in offer order, required first", async () => {
    const host = await fixture(
      MAIN,
      { offer: { required: [...REQUIRED_FEATURES, "delegation_telemetry_v1"], optional: [...DEFAULT_OPTIONAL_FEATURES, "agent_sessions", "approvals", "secrets"] } },
      false,
    );
    const protocol = (await host.initialize()).protocol as Obj;
    expect(protocol.features).toEqual([
      "request_cancellation", "content_parts", "delegation_telemetry_v1",
      "request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools",
      "agent_sessions", "approvals", "secrets",
    ]);
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 18: octet 0.8.0 offer (runtime_commands, composer, shortcuts, semantic_ui, model_catalog, …) → none of the octet-only features echoed; initialize succeeds", async () => {
    const host = await fixture(MAIN, { octetVersion: "0.8.0", offer: { optional: [...DEFAULT_OPTIONAL_FEATURES, ...OCTET_080_EXTRAS] } }, false);
    const protocol = (await host.initialize()).protocol as Obj;
    for (const feature of ["runtime_commands", "composer", "shortcuts", "semantic_ui", "model_catalog"]) expect(protocol.features).not.toContain(feature);
    // Only progress_decoration of the octet additions is supported by the SDK (docs/protocol-0.2.md §3.1).
    expect(protocol.features).toEqual([
      "request_cancellation", "content_parts", "request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools", "progress_decoration",
    ]);
    expect(await host.callTool("media", {})).toMatchObject({ is_error: false });
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 19: API 0.2 tool with output_schema {type:object} → definition carries it", async () => {
    const host = await fixture(MAIN, {}, false);
    const tools = (await host.initialize()).tools as Obj[];
    expect(tools.find((t) => t.name === "schema_tool")).toEqual({
      name: "schema_tool",
      description: "Tool with an output schema",
      parameters: { type: "object" },
      output_schema: { type: "object" },
    });
    for (const tool of tools.filter((t) => t.name !== "schema_tool")) expect("output_schema" in tool).toBe(false);
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 19: the same registration on API 0.1 → local registration error; no frame is ever sent", async () => {
    const host = await fixture(V01_OUTPUT_SCHEMA, {}, false);
    await expect(host.request("initialize", host.initializeParams())).rejects.toThrow();
    expect(await host.exited).toBe(1);
    expect(host.transcript.filter((e) => e.from === "extension")).toEqual([]);
    const lines = host.stderr.filter((l) => l.trim() !== "");
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error" });
    expect(lines[0]).toContain("tool `schema_tool`: outputSchema needs API 0.2 or 0.4; this extension speaks API 0.1");
    expect(host.violations).toEqual([]);
  });
});

describe("docs/protocol-0.2.md §10 results and limits, process level", () => {
  test("§10 31: maxMessageBytes 512, tool returns 600 × x → exactly one reply, -32603 'exceeds 512 bytes' (never -32800); the stream stays usable", async () => {
    const host = await fixture(LIMIT512, {}, false);
    // The whole exchange must fit the 512-byte limit, so the initialize is compact.
    await host.initialize({
      api_version: "0.2",
      contributes: { tools: ["x600", "echo"], commands: [] },
      protocol: { version: "0.2", required_features: REQUIRED_FEATURES, optional_features: DEFAULT_OPTIONAL_FEATURES, limits: { max_concurrent_requests: 64 } },
    });
    const reply = await host.request("tool/call", { name: "x600", arguments: {} }, { id: 31 });
    expect(errorOf(reply).code).toBe(-32603);
    expect(errorOf(reply).message).toContain("exceeds 512 bytes");
    expect((await host.request("tool/call", { name: "echo", arguments: { text: "after" } })).result).toEqual(text("after"));
    await Bun.sleep(100);
    expect(framesWithId(host, 31).length).toBe(1);
    expect(host.extensionFrames().some((f) => (f.error as Obj | undefined)?.code === -32800)).toBe(false);
    expect(host.transcript.some((e) => e.from === "extension" && e.text.includes("x".repeat(600)))).toBe(false);
    expect(await host.shutdown()).toBe(0);
  });

  test("maxMessageBytes 512: a $/progress event over the limit is refused to its caller with -32603 and never written; the call and the stream go on", async () => {
    const host = await fixture(LIMIT512_PROGRESS, {}, false);
    await host.initialize({
      api_version: "0.2",
      contributes: { tools: ["x600", "echo", "p600"], commands: [] },
      protocol: { version: "0.2", required_features: REQUIRED_FEATURES, optional_features: ["request_progress"], limits: { max_concurrent_requests: 64 } },
    });
    expect(host.features.has("request_progress")).toBe(true);
    expect(await host.callTool("p600", {})).toEqual(text("-32603 JSON-RPC message exceeds 512 bytes"));
    expect(host.extensionFrames().some((f) => f.method === "$/progress")).toBe(false);
    expect(host.transcript.some((e) => e.from === "extension" && e.text.includes("x".repeat(600)))).toBe(false);
    expect((await host.request("tool/call", { name: "echo", arguments: { text: "after" } })).result).toEqual(text("after"));
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 37: artifacts negotiated, content with media parts but no text part → -32603 requires an explicit text part", async () => {
    const media = await fixture(MAIN);
    expect(media.features.has("artifacts")).toBe(true);
    for (const kind of ["image_only", "audio_only", "image_audio"]) {
      const reply = await media.request("tool/call", { name: "media", arguments: { kind }, context: media.executionContext() });
      expect(reply.error).toEqual({ code: -32603, message: "tool result requires an explicit text part" });
    }
    // The same parts with a text part pass: the refusal is about the missing text part only.
    expect(await media.callTool("media", {})).toEqual({
      content: [{ type: "text", text: "media" }, { type: "image", artifact_id: "artifact_0123456789abcdef0123456789abcdef", mime_type: "image/png" }],
      is_error: false,
      metadata: {},
    });
    expect(await media.shutdown()).toBe(0);
    // Without artifacts the media part is refused first, for another reason: the branch above needs the feature.
    const bare = await fixture(MAIN, { offer: { optional: [] } });
    const reply = await bare.request("tool/call", { name: "media", arguments: { kind: "image_only" }, context: bare.executionContext() });
    expect(reply.error).toEqual({ code: -32603, message: "image content requires artifacts negotiation" });
    expect(await bare.shutdown()).toBe(0);
  });

  test("§10 38: tool with output_schema — is_error result without structured_content passes, a throw becomes is_error, omission is -32603", async () => {
    const host = await fixture(MAIN);
    const errorResult = await host.callTool("schema_tool", { mode: "error_result" });
    expect(errorResult).toEqual(error("failed"));
    expect("structured_content" in (errorResult as Obj)).toBe(false);
    const thrown = await host.callTool("schema_tool", { mode: "throw" });
    expect(thrown).toEqual(error("schema tool exploded"));
    expect("structured_content" in (thrown as Obj)).toBe(false);
    expect(await waitForLog(host, "tool handler failed")).toEqual({ level: "error", message: "tool handler failed", tool: "schema_tool", error: "schema tool exploded" });
    const omitted = await host.request("tool/call", { name: "schema_tool", arguments: { mode: "omit" }, context: host.executionContext() });
    expect(errorOf(omitted).code).toBe(-32603);
    expect(errorOf(omitted).message).toContain("omitted structured_content");
    expect(await host.callTool("schema_tool", {})).toEqual({ ...text("ok"), structured_content: { ok: true } });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("docs/protocol-0.2.md §10 cancellation scenarios, process level", () => {
  test("§10 51: cancel of a handler waiting on its token → exactly the -32800 reply; the ambient request id inside was 10", async () => {
    const host = await fixture(MAIN);
    host.sendRaw(call(10, "ambient"));
    expect(await waitForLog(host, "ambient before")).toEqual({ level: "info", message: "ambient before", request_id: 10, ctx_request_id: 10, same_token: true });
    host.notify("$/cancelRequest", { id: 10, reason: "user" });
    const reply = await host.waitForReply(10);
    expect(reply).toEqual({ jsonrpc: "2.0", id: 10, error: { code: -32800, message: "request cancelled", data: { reason: "user" } } });
    expect(await waitForLog(host, "ambient after")).toEqual({ level: "info", message: "ambient after", request_id: 10, cancelled: true, same_token: true });
    expect(framesWithId(host, 10).length).toBe(1);
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 55: handler ignores the cancel and returns normally afterwards → the reply is -32800, not its result", async () => {
    const scratch = scratchDir();
    const host = await fixture(MAIN, { scratch });
    host.sendRaw(call(10, "ignore_cancel", { key: "k55" }));
    await waitForLog(host, "ignore_cancel started");
    host.cancel(10, "user");
    // Cooperative cancellation: nothing is answered while the handler is still running.
    await Bun.sleep(300);
    expect(framesWithId(host, 10)).toEqual([]);
    release(scratch, "k55");
    expect(await host.waitForReply(10)).toEqual({ jsonrpc: "2.0", id: 10, error: { code: -32800, message: "request cancelled", data: { reason: "user" } } });
    expect((await waitForLog(host, "ignore_cancel returning")).cancelled).toBe(true);
    await Bun.sleep(50);
    expect(framesWithId(host, 10).length).toBe(1);
    expect(host.transcript.some((e) => e.from === "extension" && e.text.includes("ignore_cancel:k55"))).toBe(false);
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 83: host cancels the outstanding child (parent settled); the uncaught -32800 becomes the tool's reply", async () => {
    const host = await fixture(MAIN);
    host.onRequest("input/request", (_params, frame) => {
      host.notify("$/cancelRequest", { id: frame.id, reason: "parent settled" });
      return TestHost.noReply;
    });
    const reply = await host.request("tool/call", { name: "input_uncaught", arguments: {}, context: host.executionContext() }, { id: 83 });
    expect(reply).toEqual({ jsonrpc: "2.0", id: 83, error: { code: -32800, message: "request cancelled", data: { reason: "parent settled" } } });
    expect(frames(host, "input/request").length).toBe(1);
    // Only the helper failed; the handler itself was not cancelled, so the SDK cancels nothing.
    expect(frames(host, "$/cancelRequest")).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});

describe("docs/protocol-0.2.md §10 host services outside and inside handlers, process level", () => {
  test("§10 64: API 0.1 tool calls request_input → the call fails -32601; no input/request frame", async () => {
    const host = await fixture(V01);
    const reply = await host.request("tool/call", { name: "input_uncaught", arguments: {}, context: host.executionContext() });
    expect(reply.error).toEqual({ code: -32601, message: "ext.user.input() needs API 0.2 or 0.4; this extension speaks API 0.1: set api_version = \"0.4\" in manifest.toml" });
    expect(frames(host, "input/request")).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 68: operation-scoped helper outside any handler → local -32602 and nothing written; with parent_request_id 7 the frame carries 7", async () => {
    const scratch = scratchDir();
    const host = await fixture(MAIN, { scratch });
    host.lifecycle("turn/settled", { action: "input", turn_id: "t68a" });
    expect(await waitForLog(host, "lifecycle input")).toMatchObject({
      ambient_request_id: null,
      ambient_token: false,
      ok: false,
      rpc: true,
      code: -32602,
      error: "operation-scoped host request requires parent_request_id",
    });
    expect(frames(host, "input/request")).toEqual([]);

    host.onRequest("input/request", (params) => ({ value: `answer-${params.parent_request_id}` }));
    host.sendRaw(call(7, "hold", { key: "h68" }));
    host.lifecycle("turn/settled", { action: "input", parent: 7, turn_id: "t68b" });
    const child = await host.waitForFrame((f) => f.method === "input/request");
    expect(child.params).toEqual({ prompt: "Outside?", secret: false, parent_request_id: 7 });
    expect(await waitForLog(host, "lifecycle input", 2)).toMatchObject({ ok: true, value: "answer-7" });
    release(scratch, "h68");
    expect((await host.waitForReply(7)).result).toEqual(text("hold:h68"));
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 69: wait_agents(timeout 0) → local value error before anything is sent, negotiated or not", async () => {
    const host = await fixture(MAIN, { offer: { optional: [...DEFAULT_OPTIONAL_FEATURES, "agent_sessions"] } });
    host.onRequest("agent/wait", () => ({ timed_out: true, snapshot: {} }));
    const valueError = { content: [{ type: "text", text: expect.stringContaining("timeout_ms") }], is_error: true, metadata: {} };
    expect(await host.callTool("agents_wait", { timeout: 0 })).toEqual(valueError);
    expect(await host.callTool("agents_wait", { timeout: 60_001 })).toEqual(valueError);
    expect(frames(host, "agent/wait")).toEqual([]);
    const id = host.peekNextId();
    expect(await host.callTool("agents_wait", { timeout: 1 })).toEqual(text("agents_wait:true"));
    expect(frames(host, "agent/wait").map((f) => f.params)).toEqual([{ timeout_ms: 1, parent_request_id: id }]);
    expect(await host.shutdown()).toBe(0);

    const bare = await fixture(MAIN);
    expect(await bare.callTool("agents_wait", { timeout: 0 })).toEqual(valueError);
    const refused = await bare.request("tool/call", { name: "agents_wait", arguments: { timeout: 1 }, context: bare.executionContext() });
    expect(errorOf(refused).code).toBe(-32601);
    expect(errorOf(refused).message).toContain("agent_sessions");
    expect(bare.extensionFrames().filter((f) => String(f.method).startsWith("agent/"))).toEqual([]);
    expect(await bare.shutdown()).toBe(0);
  });
});

describe("docs/protocol-0.2.md §10 presentation, process level", () => {
  test("§10 78: outside a handler → snapshot only (no parent, no owner); revision 0 again and 2^53 are local errors that write nothing", async () => {
    const host = await fixture(MAIN);
    host.lifecycle("turn/settled", { action: "present", revision: 0, turn_id: "p0" });
    const update = await host.waitForFrame((f) => f.method === "presentation/update");
    expect(update).toEqual({ jsonrpc: "2.0", method: "presentation/update", params: { snapshot: SNAPSHOT(0) } });
    expect(await waitForLog(host, "lifecycle present")).toMatchObject({ ok: true, ambient_request_id: null, ambient_token: false });

    host.lifecycle("turn/settled", { action: "present", revision: 0, turn_id: "p0-again" });
    const again = await waitForLog(host, "lifecycle present", 2);
    expect(again).toMatchObject({ ok: false, rpc: false, revision: 0 });
    expect(again.error).toContain("revision");
    host.lifecycle("turn/settled", { action: "present", revision: 2 ** 53, turn_id: "p-big" });
    const big = await waitForLog(host, "lifecycle present", 3);
    expect(big).toMatchObject({ ok: false, rpc: false });
    expect(big.error).toContain("portable");
    expect(frames(host, "presentation/update").length).toBe(1);
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 78: inside tool 42 → parent_request_id 42; with the owner triple → resource_owner and no parent; an owner missing a key is a local error", async () => {
    const host = await fixture(MAIN);
    host.sendRaw(call(42, "present", { revision: 1 }));
    expect((await host.waitForReply(42)).result).toEqual(text("present:1"));
    expect(frames(host, "presentation/update")[0]!.params).toEqual({ snapshot: SNAPSHOT(1), parent_request_id: 42 });
    expect(await host.callTool("present", { revision: 2, owner: host.resourceOwner })).toEqual(text("present:2"));
    expect(frames(host, "presentation/update")[1]!.params).toEqual({ snapshot: SNAPSHOT(2), resource_owner: host.resourceOwner });
    const { process_generation: _drop, ...partial } = host.resourceOwner;
    const refused = (await host.callTool("present", { revision: 3, owner: partial })) as Obj;
    expect(refused.is_error).toBe(true);
    expect(refused.content[0].text).toContain("resource_owner");
    expect(frames(host, "presentation/update").length).toBe(2);
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 78: presentation not declared → local -32601, inside and outside a handler; nothing written", async () => {
    const host = await fixture(MAIN, {}, false);
    const params = host.initializeParams();
    delete (params.contributes as Obj).presentation;
    await host.initialize(params);
    const reply = await host.request("tool/call", { name: "present", arguments: { revision: 1 }, context: host.executionContext() });
    expect(reply.error).toEqual({ code: -32601, message: "ext.presentation.publish() needs presentation = true under [contributes] in manifest.toml" });
    host.lifecycle("turn/settled", { action: "present", revision: 1, turn_id: "undeclared" });
    expect(await waitForLog(host, "lifecycle present")).toMatchObject({ ok: false, rpc: true, code: -32601, error: "ext.presentation.publish() needs presentation = true under [contributes] in manifest.toml" });
    expect(frames(host, "presentation/update")).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("§10 78: on API 0.1 → local -32601; nothing written", async () => {
    const host = await fixture(V01);
    const reply = await host.request("tool/call", { name: "present", arguments: { revision: 1 }, context: host.executionContext() });
    expect(reply.error).toEqual({ code: -32601, message: "ext.presentation.publish() needs API 0.2 or 0.4; this extension speaks API 0.1: set api_version = \"0.4\" in manifest.toml" });
    expect(frames(host, "presentation/update")).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});

describe("docs/protocol-0.2.md §10 shutdown, process level", () => {
  test("§10 76: turn/settled reaches the handler with its params and writes nothing; the shutdown reply waits until the handler returns", async () => {
    const scratch = scratchDir();
    const host = await fixture(MAIN, { scratch });
    const before = host.extensionFrames().length;
    host.lifecycle("turn/settled", { turn_id: "turn_1", outcome: "failed" });
    expect(await waitForLog(host, "lifecycle received")).toEqual({
      level: "info",
      message: "lifecycle received",
      ambient_request_id: null,
      ambient_token: false,
      params: { turn_id: "turn_1", outcome: "failed" },
    });
    expect(host.extensionFrames().length).toBe(before);
    host.sendRaw('{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{}}');
    await Bun.sleep(300);
    expect(framesWithId(host, 90)).toEqual([]);
    release(scratch, "turn_1");
    expect(await host.waitForReply(90)).toEqual({ jsonrpc: "2.0", id: 90, result: {} });
    expect(await waitForLog(host, "lifecycle returning")).toMatchObject({ released: true });
    expect(await host.exited).toBe(0);
    expect(host.extensionFrames().length).toBe(before + 1);
    expect(host.violations).toEqual([]);
  });
});
