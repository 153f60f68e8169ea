/** API 0.3 session lifecycle and event bus, process level under the strict test host (test/fixtures/api03-services). */
import { afterEach, describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";

const DIR = new URL("../fixtures/api03-services", import.meta.url).pathname;
let host: TestHost;
afterEach(() => host?.kill());

const text = (result: any) => JSON.parse(result.content[0].text);
const sent = (h: TestHost, method: string) => h.transcript.filter((e) => e.from === "extension" && (e.frame as any)?.method === method).map((e) => (e.frame as any).params);

describe("API 0.3 session lifecycle", () => {
  test("selected when offered and enabled; create/fork/reload/switch get the host's ids", async () => {
    host = await TestHost.start(DIR, { sessions: true });
    const result = await host.initialize();
    expect((result.contract as any).capabilities).toContain("session_lifecycle");
    expect((result.contract as any).methods).toEqual(expect.arrayContaining(["session/create", "session/fork", "session/reload", "session/switch"]));
    expect(text(await host.callTool("session", { op: "create" }))).toBe("session-1");
    expect(text(await host.callTool("session", { op: "fork" }))).toBe("session-2");
    expect(text(await host.callTool("session", { op: "reload" }))).toBe("session-3");
    expect(text(await host.callTool("session", { op: "switch", id: "session-1" }))).toBe("session-1");
    expect(sent(host, "session/switch")).toEqual([{ session_id: "session-1" }]);
    expect(sent(host, "session/create")).toEqual([{}]);
    expect(host.services03!.activeSession).toBe("session-1");
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("not offered (octet without a lifecycle service): not selected, and a call is refused locally in one line", async () => {
    host = await TestHost.start(DIR);
    const result = await host.initialize();
    expect((result.contract as any).capabilities).not.toContain("session_lifecycle");
    const answer = await host.callTool("session", { op: "create" }).catch((e) => e);
    expect(answer).toMatchObject({ code: -32601, message: "unknown or unnegotiated method", data: { method: "session/create" } });
    expect(sent(host, "session/create")).toEqual([]);
    expect(host.stderr.join("\n")).toContain("ext.sessions.create(): session_lifecycle is not selected: octet did not offer it");
    expect(await host.shutdown()).toBe(0);
  });
});

describe("API 0.3 event bus", () => {
  test("binding, declare, subscribe (pending, then active on topic_available), publish, events to the handler", async () => {
    host = await TestHost.start(DIR, { bus: true });
    const result = await host.initialize();
    expect((result.contract as any).methods).toEqual(expect.arrayContaining(["bus/declare", "bus/event", "bus/lifecycle", "bus/publish", "bus/subscribe", "bus/unsubscribe"]));
    const published = text(await host.callTool("publish", { ready: true, phase: "busy" }));
    expect(published).toMatchObject({ topic: "bus.services-probe.status", sequence: 1 });
    expect(sent(host, "bus/declare")).toEqual([
      {
        binding_id: "binding-1",
        fields: [
          { kind: "boolean", max_bytes: 1024, name: "ready", required: true, values: [] },
          { kind: "enum", max_bytes: 1024, name: "phase", required: true, values: ["idle", "busy"] },
          { kind: "string", max_bytes: 16, name: "note", required: false, values: [] },
        ],
        topic: "bus.services-probe.status",
      },
    ]);
    expect(host.services03!.published).toEqual([{ payload: { phase: "busy", ready: true }, sequence: 1, topic: "bus.services-probe.status" }]);
    expect(text(await host.callTool("seen")).subscribed).toBe("pending");
    expect(host.services03!.publishBusEvent("bus.peer.news", { headline: "x" })).toBe(false);

    host.services03!.declareBusTopic("bus.peer.news", [{ kind: "string", max_bytes: 64, name: "headline", required: true, values: [] }]);
    for (let i = 0; i < 100 && sent(host, "bus/subscribe").length < 2; i++) await Bun.sleep(10);
    expect(host.services03!.publishBusEvent("bus.peer.news", { headline: "hello" })).toBe(true);
    await Bun.sleep(50);
    const { seen } = text(await host.callTool("seen"));
    expect(seen.map((s: any) => s.lifecycle?.kind ?? "event")).toEqual(["binding", "topic_available", "event"]);
    expect(seen[2].event).toMatchObject({ topic: "bus.peer.news", publisher: "peer", payload: { headline: "hello" }, sequence: 1, processGeneration: 1 });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("a new binding re-declares and re-subscribes under it; publications are not replayed", async () => {
    host = await TestHost.start(DIR, { bus: true });
    await host.initialize();
    await host.callTool("publish", { ready: true, phase: "idle" });
    host.services03!.busLifecycle();
    for (let i = 0; i < 100 && sent(host, "bus/declare").length < 2; i++) await Bun.sleep(10);
    expect(sent(host, "bus/declare").map((p: any) => p.binding_id)).toEqual(["binding-1", "binding-2"]);
    expect(sent(host, "bus/subscribe").map((p: any) => p.binding_id)).toEqual(["binding-1", "binding-2"]);
    expect(sent(host, "bus/publish")).toHaveLength(1);
    expect(text(await host.callTool("publish", { ready: false, phase: "idle" }))).toMatchObject({ sequence: 2 });
    expect(sent(host, "bus/publish").at(-1).binding_id).toBe("binding-2");
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("what breaks the bus rules is refused locally with one clear line and never written", async () => {
    host = await TestHost.start(DIR, { bus: true });
    await host.initialize();
    await host.callTool("publish", { ready: true, phase: "idle" });
    const refusal = async (what: string) => (await host.callTool("try", { what }) as any).content[0].text as string;
    expect(await refusal("payload")).toBe('-32602 invalid params: ext.bus.publish("status"): ready must be a boolean');
    expect(await refusal("long")).toBe('-32012 extension resource exhausted: ext.bus.publish("status"): note exceeds 16 bytes');
    expect(await refusal("field")).toBe('-32602 invalid params: ext.bus.declare("other"): field "api_key" looks like authority, a credential or a path ("apikey"); rename it');
    expect(await refusal("topic")).toBe('-32602 invalid params: ext.bus.subscribe("bus.*.news"): the topic owner must match [a-z0-9][a-z0-9_-]* (got "*")');
    expect(await refusal("many")).toBe('-32012 extension resource exhausted: ext.bus.subscribe("bus.peer.t15"): 16 subscriptions is the most a process may hold');
    expect(sent(host, "bus/publish")).toHaveLength(1);
    expect(sent(host, "bus/declare")).toHaveLength(1);
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("without a configured bus (not offered) nothing of the bus is selected", async () => {
    host = await TestHost.start(DIR);
    const result = await host.initialize();
    expect((result.contract as any).capabilities).not.toContain("event_bus");
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });
});
