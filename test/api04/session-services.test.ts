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
const CONTROL = ["session_control_v1", "session_compaction_v1"];
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
    const bare = await started({ offer: { optional: ["request_progress"] } });
    expect(JSON.parse(text(await bare.callTool("nudge")))).toEqual({ error: -32601, message: "API 0.4 feature is not negotiated: message_injection" });
    expect(await bare.shutdown()).toBe(0);
    const old = await started({}, "02");
    expect(JSON.parse(text(await old.callTool("focus", { names: [] })))).toEqual({ error: -32601, message: "API 0.4 feature is not negotiated: active_tools" });
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
