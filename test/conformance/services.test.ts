import { describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { error, fixture, FULL_OFFER, text, V01, NEGOTIATED } from "./helpers.ts";

/** Extension→host requests (frames with a method and an id). */
const requests = (host: TestHost, method: string) => host.extensionFrames().filter((f) => f.method === method && "id" in f);
for (const [api, V] of NEGOTIATED) {
  describe(`API ${api}: conformance fixture: host services (4.2, 4.3; docs/protocol-0.2.md §10 57–69)`, () => {
    test("notify and confirm carry the right params; 0.2 confirm carries the parent, 0.1 confirm a numeric id and no parent", async () => {
      const host = await fixture(V);
      host.onRequest("confirmation/request", () => ({ confirmed: true }));
      expect(await host.callTool("notify", { message: "hi", level: "success", title: "T" })).toEqual(text("notify:sent"));
      expect(requests(host, "notification").length).toBe(0); // notifications are not requests
      expect(host.notifications("notification")[0]!.params).toEqual({ level: "success", message: "hi", title: "T" });
      const id = host.peekNextId();
      expect(await host.callTool("confirm", { prompt: "Continue?" })).toEqual(text("confirm:true"));
      const confirmation = requests(host, "confirmation/request")[0]!;
      expect(typeof confirmation.id).toBe("string");
      expect(confirmation.params).toEqual({ prompt: "Continue?", destructive: false, default: false, parent_request_id: id });
      expect(await host.shutdown()).toBe(0);

      const old = await fixture(V01);
      old.onRequest("confirmation/request", () => ({ confirmed: false }));
      expect(await old.callTool("confirm", { prompt: "Continue?", detail: "d" })).toEqual({ content: "confirm:false", is_error: false, metadata: {} });
      const legacy = requests(old, "confirmation/request")[0]!;
      expect(legacy.id).toBe(1);
      expect(legacy.params).toEqual({ prompt: "Continue?", destructive: false, default: false, detail: "d" });
      expect(await old.shutdown()).toBe(0);
    });

    test("input: secret answers never reach stdout or stderr; bad answers are -32603; a blank prompt is refused locally", async () => {
      const host = await fixture(V);
      host.onRequest("input/request", (params) => ({ value: params.secret ? "s3cret-value" : "plain" }));
      const id = host.peekNextId();
      expect(await host.callTool("input", { prompt: "Password:", secret: true })).toEqual(text("input:secret:12"));
      expect(requests(host, "input/request")[0]!.params).toEqual({ prompt: "Password:", secret: true, parent_request_id: id });
      expect(await host.callTool("input", { prompt: "Name?" })).toEqual(text("input:plain"));
      host.onRequest("input/request", () => ({ value: null }));
      expect(await host.callTool("input", { prompt: "Name?" })).toEqual(text("input:null"));
      host.onRequest("input/request", () => ({ value: "a", unexpected: true }));
      expect(await host.callTool("input", { prompt: "Name?" })).toEqual(error("input:error:-32603"));
      host.onRequest("input/request", () => ({ value: "v".repeat(262_144) }));
      expect(await host.callTool("input", { prompt: "Name?", secret: true })).toEqual(text("input:secret:262144"));
      host.onRequest("input/request", () => ({ value: "v".repeat(262_145) }));
      expect(await host.callTool("input", { prompt: "Name?" })).toEqual(error("input:error:-32603"));
      const before = requests(host, "input/request").length;
      expect(await host.callTool("input", { prompt: "   " })).toEqual(error("input:local-error"));
      expect(requests(host, "input/request").length).toBe(before);
      expect(await host.shutdown()).toBe(0);
      const everything = host.transcript.filter((e) => e.from === "extension").map((e) => e.text).join("\n") + host.stderr.join("\n");
      expect(everything).not.toContain("s3cret-value");
    });

    test("artifact: inline and path publications, ../ refused locally, not negotiated → -32601 with nothing written", async () => {
      const host = await fixture(V, { offer: { optional: ["artifacts"] } });
      const id = host.peekNextId();
      const inline = (await host.callTool("artifact", {})) as { content: Record<string, string>[] };
      const artifactId = inline.content[0]!.text!.slice("artifact:".length);
      expect(artifactId).toMatch(/^artifact_[0-9a-f]{32}$/);
      expect(inline.content[1]).toEqual({ type: "image", artifact_id: artifactId, mime_type: "image/png", alt: "fixture pixel" });
      const sent = requests(host, "artifact/publish")[0]!.params as Record<string, unknown>;
      expect(sent).toEqual({
        mime_type: "image/png",
        size: 68,
        sha256: "2aa4fa20701cdd6d8d56046069001186b5267e3ee7d0ef618ad2f4a683723e11",
        data: { encoding: "base64", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII=" },
        parent_request_id: id,
      });
      await host.callTool("artifact", { mode: "path" });
      expect(requests(host, "artifact/publish")[1]!.params).toMatchObject({ path: "fixture/pixel.png", size: 68 });
      expect(await host.callTool("artifact", { mode: "escape" })).toEqual(error("artifact:local-error"));
      expect(requests(host, "artifact/publish").length).toBe(2);
      expect(await host.shutdown()).toBe(0);

      const bare = await fixture(V, { offer: { optional: [] } });
      expect(await bare.callTool("artifact", {})).toEqual(error("artifact:error:-32601"));
      expect(requests(bare, "artifact/publish")).toEqual([]);
      expect(await bare.shutdown()).toBe(0);
    });

    test("policy: ask with a token is retried once with the token; a token with allow is refused", async () => {
      const host = await fixture(V, { offer: FULL_OFFER });
      let calls = 0;
      host.onRequest("policy/evaluate", () => (++calls === 1 ? { decision: "ask", approval_token: "b".repeat(64) } : { decision: "allow" }));
      expect(await host.callTool("policy", {})).toEqual(text("policy:ask:allow"));
      const [first, second] = requests(host, "policy/evaluate");
      expect((first!.params as Record<string, unknown>).approval_token).toBeUndefined();
      expect((second!.params as Record<string, unknown>).approval_token).toBe("b".repeat(64));
      expect(typeof (first!.params as Record<string, unknown>).parent_request_id).toBe("number");
      host.onRequest("policy/evaluate", () => ({ decision: "allow", approval_token: "c".repeat(64) }));
      expect(await host.callTool("policy", {})).toEqual(error("policy:error:-32603"));
      host.onRequest("policy/evaluate", () => ({ decision: "deny" }));
      expect(await host.callTool("policy", {})).toEqual(text("policy:deny"));
      expect(await host.shutdown()).toBe(0);
    });

    test("secret: value never logged; a 65,537-byte value is -32603; bad names are local errors; host errors map", async () => {
      const host = await fixture(V, { offer: FULL_OFFER });
      host.onRequest("secret/get", () => ({ value: "hunter2-secret" }));
      expect(await host.callTool("secret", { name: "fixture.api_token" })).toEqual(text("secret:14"));
      expect(requests(host, "secret/get")[0]!.params).toMatchObject({ name: "fixture.api_token" });
      host.onRequest("secret/get", () => ({ value: "é".repeat(32_768) }));
      expect(await host.callTool("secret", { name: "fixture.api_token" })).toEqual(text("secret:65536"));
      host.onRequest("secret/get", () => ({ value: "x".repeat(65_537) }));
      expect(await host.callTool("secret", { name: "fixture.api_token" })).toEqual(error("secret:error:-32603"));
      host.onRequest("secret/get", () => TestHost.errorReply(-32004, "secret is unavailable"));
      expect(await host.callTool("secret", { name: "fixture.empty" })).toEqual(error("secret:error:-32004"));
      expect(await host.callTool("secret", { name: "" })).toEqual(error("secret:local-error"));
      expect(await host.callTool("secret", { name: "x".repeat(65) })).toEqual(error("secret:local-error"));
      host.onRequest("secret/get", () => ({ value: "" }));
      expect(await host.callTool("secret", { name: "x".repeat(64) })).toEqual(text("secret:0"));
      expect(await host.shutdown()).toBe(0);
      expect(host.stderr.join("\n") + host.transcript.filter((e) => e.from === "extension").map((e) => e.text).join("")).not.toContain("hunter2-secret");
    });

    test("agents: six frames in order with the parent; exact spawn policy; without negotiation → -32601", async () => {
      const host = await fixture(V, { offer: FULL_OFFER });
      host.onRequest("agent/spawn", () => ({ agent_id: "agent-1", status: "running" }));
      host.onRequest("agent/message", () => ({ delivered_to: "agent-1", delivery: "steering" }));
      host.onRequest("agent/follow_up", () => ({ agent_id: "agent-1", agent_path: "/a", delivery: "follow_up" }));
      host.onRequest("agent/list", () => ({ principal: "p", resource_owner: "o", persistence_error: null, agents: [{}, {}] }));
      host.onRequest("agent/wait", () => ({ timed_out: true, snapshot: {} }));
      host.onRequest("agent/interrupt", () => ({ agent_id: "agent-1", interrupt_requested: true }));
      const id = host.peekNextId();
      expect(await host.callTool("agents", {})).toEqual(text("agents:agent-1:2:true:true"));
      const frames = host.extensionFrames().filter((f) => String(f.method).startsWith("agent/"));
      expect(frames.map((f) => f.method)).toEqual(["agent/spawn", "agent/message", "agent/follow_up", "agent/list", "agent/wait", "agent/interrupt"]);
      for (const frame of frames) expect((frame.params as Record<string, unknown>).parent_request_id).toBe(id);
      expect((frames[0]!.params as Record<string, unknown>).policy).toEqual({
        tools: ["read", "search"],
        max_depth: 1,
        max_concurrent_children: 2,
        max_turns: 8,
        max_tokens: null,
        max_cost_microdollars: 200000,
        max_output_bytes: 8192,
        timeout_ms: 300000,
      });
      expect(frames[4]!.params).toEqual({ timeout_ms: 1000, parent_request_id: id });
      expect(frames[3]!.params).toEqual({ parent_request_id: id });
      expect(await host.shutdown()).toBe(0);

      const bare = await fixture(V);
      expect(await bare.callTool("agents", {})).toEqual(error("agents:error:-32601"));
      expect(bare.extensionFrames().filter((f) => String(f.method).startsWith("agent/"))).toEqual([]);
      expect(await bare.shutdown()).toBe(0);
    });

    test("host error codes map to <tool>:error:<code>; a host cancel of the child maps to -32800", async () => {
      const host = await fixture(V);
      host.onRequest("confirmation/request", () => TestHost.errorReply(-32002, "no owner"));
      expect(await host.callTool("confirm", {})).toEqual(error("confirm:error:-32002"));
      host.onRequest("confirmation/request", (_params, frame) => {
        host.notify("$/cancelRequest", { id: frame.id, reason: "parent settled" });
        return TestHost.noReply;
      });
      expect(await host.callTool("confirm", {})).toEqual(error("confirm:error:-32800"));
      expect(await host.shutdown()).toBe(0);
    });

    test("operation-scoped helpers outside any handler need an explicit parent (-32602 before sending)", async () => {
      const host = await fixture(V);
      // The command handler runs confirm with the command as parent; a lifecycle-free process has no other parent.
      host.onRequest("confirmation/request", () => ({ confirmed: true }));
      const id = host.peekNextId();
      expect(await host.executeCommand("fixture", ["confirm"])).toMatchObject({ text: "fixture:confirm:true" });
      expect((requests(host, "confirmation/request")[0]!.params as Record<string, unknown>).parent_request_id).toBe(id);
      expect(await host.shutdown()).toBe(0);
    });
  });
}
