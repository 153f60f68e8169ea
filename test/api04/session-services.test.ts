/**
 * API 0.4 session services, process level (docs/api-0.4.md "Session
 * services"): composer, session entries, user messages, the active tool
 * set, session control and compaction, each behind its feature and
 * correlated with the calling request. Fixture: test/fixtures/sessions/.
 */
import { describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { waitLog } from "../dispatch-fixture.ts";
import { expectCleanStreams } from "../helpers.ts";

type Obj = Record<string, unknown>;
const dir = (v: string) => new URL(`../fixtures/sessions/sessions-v${v}`, import.meta.url).pathname;
// The 0.4 fixture declares session hooks, which octet refuses to start without session_entries.
const CONTROL = ["session_entries", "session_control_v1", "session_compaction_v1"];
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

async function started(options: Parameters<typeof TestHost.start>[1] = {}, v = "04"): Promise<TestHost> {
  const host = await TestHost.start(dir(v), options);
  await host.initialize();
  return host;
}

/** Requests the extension sent for `method`, with their parent. */
const sent = (host: TestHost, method: string) => host.extensionFrames().filter((f) => f.method === method).map((f) => f.params as Obj);

describe("API 0.4 session services", () => {
  test("the default 0.4 offer selects composer, session_entries, message_injection and active_tools", async () => {
    const host = await TestHost.start(dir("04"));
    const result = await host.initialize();
    expect((result.protocol as Obj).features).toEqual(expect.arrayContaining(["composer", "session_entries", "message_injection", "active_tools"]));
    expect(await host.shutdown()).toBe(0);
  });

  test("composer, entries, user messages and active tools carry the calling request as parent", async () => {
    const host = await started();
    const composeId = host.peekNextId();
    expect(text(await host.callTool("compose"))).toBe('{"before":""}');
    expect(sent(host, "composer/insert")).toEqual([{ text: "/deploy", parent_request_id: composeId }]);
    expect(sent(host, "composer/set")).toEqual([{ text: "replaced", parent_request_id: composeId }]);
    const entry = text(await host.callTool("journal"));
    expect(sent(host, "session/append_entry")[0]).toMatchObject({ entry_type: "todo", data: { text: "ship it" } });
    expect(sent(host, "session/set_label")[0]).toMatchObject({ entry_id: entry, label: "shipped" });
    expect(sent(host, "session/set_name")[0]).toMatchObject({ name: "release work" });
    expect(JSON.parse(text(await host.callTool("nudge", { text: "run the tests" })))).toEqual({ ok: null });
    expect(sent(host, "session/send_user_message")[0]).toMatchObject({ text: "run the tests" });
    expect(JSON.parse(text(await host.callTool("focus", { names: ["compose", "journal"] })))).toEqual({ ok: null });
    expect(sent(host, "tools/set_active")[0]).toMatchObject({ names: ["compose", "journal"] });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
    expectCleanStreams(host);
  });

  test("bad arguments are refused locally: nothing is sent", async () => {
    const host = await started();
    expect(JSON.parse(text(await host.callTool("journal", { bad: true })))).toEqual({ error: "local", message: "entry type must not be blank" });
    expect(JSON.parse(text(await host.callTool("focus", { names: ["ok", "not ok"] })))).toEqual({ error: "local", message: 'active tool name "not ok" must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$' });
    expect(JSON.parse(text(await host.callTool("nudge", { text: "\u001b[2J" })))).toEqual({ error: "local", message: "user message may contain no control characters but tab and newline" });
    expect(sent(host, "session/append_entry").length + sent(host, "tools/set_active").length + sent(host, "session/send_user_message").length).toBe(0);
    expect(await host.shutdown()).toBe(0);
  });

  test("without the feature (a host that does not offer it, or API 0.2) a service is -32601 and nothing is sent", async () => {
    const bare = await started({ offer: { optional: ["request_progress", "session_entries"] } });
    expect(JSON.parse(text(await bare.callTool("nudge")))).toEqual({ error: -32601, message: "ext.session.sendUserMessage() needs the message_injection feature, which was not negotiated (API 0.4): the host did not offer it" });
    expect(await bare.shutdown()).toBe(0);
    const old = await started({}, "02");
    expect(JSON.parse(text(await old.callTool("focus", { names: [] })))).toEqual({ error: -32601, message: "ext.session.setActiveTools() needs the active_tools feature, which was not negotiated (API 0.2): it is an API 0.4 feature; set api_version = \"0.4\" in manifest.toml" });
    expect(sent(old, "tools/set_active")).toEqual([]);
    expect(await old.shutdown()).toBe(0);
  });

  test("session control: each method resolves to the session id the host returns", async () => {
    const optional = ["request_progress", ...CONTROL];
    const host = await started({ offer: { optional } });
    expect(JSON.parse(text(await host.callTool("control")))).toEqual(["test-session", "test-session", "test-session", "s-2", "test-session"]);
    expect(sent(host, "session/switch")[0]).toMatchObject({ session_id: "s-2" });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("session/compact is sent only after the request's successful reply, with its resource_owner; never after a failure", async () => {
    const host = await started({ offer: { optional: ["request_progress", ...CONTROL] } });
    const id = host.peekNextId();
    expect(text(await host.callTool("compact"))).toBe("compaction requested");
    const frames = host.extensionFrames();
    const reply = frames.findIndex((f) => f.id === id && "result" in f);
    const compact = await host.waitForFrame((f) => f.method === "session/compact");
    expect(frames.indexOf(compact) === -1 || host.extensionFrames().indexOf(compact) > reply).toBe(true);
    expect(compact.params).toEqual({ parent_request_id: id, resource_owner: host.resourceOwner, custom_instructions: "keep the todo list" });
    expect(await waitLog(host, (l) => l.message === "compacted")).toMatchObject({ entry_id: "compaction-1", summary: "compacted by the test host", first_kept: "entry-1" });
    expect(await host.callTool("compact_then_fail")).toMatchObject({ is_error: true });
    expect(await waitLog(host, (l) => l.message === "compaction failed")).toMatchObject({ error: "session compaction not requested: the request did not succeed" });
    expect(sent(host, "session/compact").length).toBe(1);
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });
});

describe("API 0.4 session-operation hooks", () => {
  const leaf = (grant = "a".repeat(64)) => ({ grant_id: grant, activation_epoch: 3, operation_id: "op-1" });
  const run = (host: TestHost, hook: string, payload: Obj, extra: Obj = {}) => host.request("hook/run", { hook, payload, context: host.executionContext({ resource_owner: host.resourceOwner }), ...extra });

  test("declared session hooks make session_entries required; before_compact may replace or cancel", async () => {
    const host = await TestHost.start(dir("04"));
    const result = await host.initialize();
    expect((result.protocol as Obj).features).toContain("session_entries");
    const replace = await run(host, "session_before_compact", { kind: "before_compact", reason: "manual", first_kept: "e-7", preparation: {}, branch_entries: [], custom_instructions: null });
    expect(replace.result).toEqual({ disposition: { action: "continue" }, context: [], notifications: [], session_operation: { action: "replace_compaction", replacement: { summary: "handoff notes", first_kept: "e-7" } } });
    const cancel = await run(host, "session_before_compact", { kind: "before_compact", reason: "overflow", first_kept: "e-7", preparation: {}, branch_entries: [], custom_instructions: null });
    expect((cancel.result as Obj).session_operation).toEqual({ action: "cancel" });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("appends inside a hook use its session_leaf grant, then each successor", async () => {
    const host = await TestHost.start(dir("04"));
    await host.initialize();
    const reply = await run(host, "session_before_compact", { kind: "before_compact", reason: "threshold", first_kept: "e-1", preparation: {}, branch_entries: [], custom_instructions: null }, { session_leaf: { ...leaf(), owner: host.resourceOwner, expected_head: null } });
    expect(reply.error).toBeUndefined();
    const appends = sent(host, "session/append_entry");
    expect(appends[0]!.session_leaf).toEqual(leaf());
    expect(appends[1]!.session_leaf).toMatchObject({ activation_epoch: 3, operation_id: "op-1" });
    expect((appends[1]!.session_leaf as Obj).grant_id).not.toBe("a".repeat(64));
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("observations may only continue, session hooks add no context, and a malformed grant is -32602", async () => {
    const host = await TestHost.start(dir("04"));
    await host.initialize();
    const turn = { kind: "model_turn_end", run_id: "run:1", turn_index: 99, timestamp_ms: 1, assistant_entry: {}, tool_result_entries: [] };
    expect((await run(host, "model_turn_end", turn)).error).toEqual({ code: -32603, message: "invalid session hook result: model_turn_end may not return cancel" });
    expect((await run(host, "model_turn_end", { ...turn, turn_index: 1 })).result).toEqual({ disposition: { action: "continue" }, context: [], notifications: [] });
    expect((await run(host, "session_tree", { kind: "tree", old_head: "a", new_head: "bad" })).error).toEqual({ code: -32603, message: "invalid session hook result: session hooks cannot add prompt context" });
    expect((await run(host, "session_tree", { kind: "tree", old_head: "a", new_head: "b" }, { session_leaf: { grant_id: "XYZ", activation_epoch: 1, operation_id: "o" } })).error).toEqual({ code: -32602, message: "invalid session_leaf grant" });
    expect(await host.shutdown()).toBe(0);
  });
});
