import { describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { error, fixture, text, NEGOTIATED } from "./helpers.ts";

const catalogOffer = { offer: { optional: ["dynamic_tools"] } };
for (const [api, V] of NEGOTIATED) {
  describe(`API ${api}: conformance fixture: dynamic tool catalogs (4.4; docs/protocol-0.2.md §8.7, §10 70–75)`, () => {
    test("register → revision 1; the staged revision dispatches before the ack; older revisions keep their handlers", async () => {
      const host = await fixture(V, catalogOffer);
      let release!: () => void;
      host.onRequest("tools/register", (params) => {
        const names = (params.tools as { name: string }[]).map((t) => t.name);
        return new Promise((resolve) => (release = () => resolve({ revision: 1, tools: [...host.catalogTools.filter((n) => !names.includes(n)), ...names] })));
      });
      const registering = host.callTool("register", { names: ["versioned"], version: 2 });
      await host.waitForFrame((f) => f.method === "tools/register");
      const frame = host.extensionFrames().find((f) => f.method === "tools/register")!;
      expect(frame.params).toEqual({ tools: [{ name: "versioned", description: "Dynamic fixture tool versioned v2", parameters: { type: "object" } }] });
      // Before the host answers: revision 1 (staged) dispatches to the new handler, 0 to the old one.
      expect(await host.callTool("versioned", {}, { catalogRevision: 1 })).toEqual(text("dyn:versioned:v2"));
      expect(await host.callTool("versioned", {}, { catalogRevision: 0 })).toEqual(text("versioned:v0"));
      expect(await host.callTool("catalog", {}, { catalogRevision: 0 })).toEqual(text("catalog:0"));
      release();
      const registered = (await registering) as { content: { text: string }[] };
      expect(registered.content[0]!.text).toStartWith("register:1:");
      expect(await host.callTool("catalog", {}, { catalogRevision: 1 })).toEqual(text("catalog:1"));
      expect(await host.callTool("versioned", {}, { catalogRevision: 0 })).toEqual(text("versioned:v0"));
      expect(await host.shutdown()).toBe(0);
    });

    test("unregister: the removed tool is unknown at the new revision (-32601) and still callable at the old one", async () => {
      const host = await fixture(V, catalogOffer);
      expect(await host.callTool("register", { names: ["extra"] })).toMatchObject({ is_error: false });
      host.catalogRevision = 1;
      const removed = (await host.callTool("unregister", { names: ["extra"] }, { catalogRevision: 1 })) as { content: { text: string }[] };
      expect(removed.content[0]!.text).toStartWith("unregister:2:");
      expect(removed.content[0]!.text).not.toContain("extra");
      expect(await host.callTool("extra", {}, { catalogRevision: 1 })).toEqual(text("dyn:extra:v1"));
      await expect(host.callTool("extra", {}, { catalogRevision: 2 })).rejects.toMatchObject({ code: -32601 });
      expect(await host.shutdown()).toBe(0);
    });

    test("eight commits retire revision 0 (-32602 unknown or retired); revision 1 still works", async () => {
      const host = await fixture(V, catalogOffer);
      for (let version = 1; version <= 8; version++) expect(await host.callTool("register", { names: ["versioned"], version }, { catalogRevision: version - 1 })).toMatchObject({ is_error: false });
      const retired = await host.request("tool/call", { name: "versioned", arguments: {}, catalog_revision: 0, context: host.executionContext() });
      expect(retired.error).toMatchObject({ code: -32602 });
      expect((retired.error as { message: string }).message).toContain("unknown or retired");
      expect(await host.callTool("versioned", {}, { catalogRevision: 1 })).toEqual(text("dyn:versioned:v1"));
      expect(await host.callTool("versioned", {}, { catalogRevision: 8 })).toEqual(text("dyn:versioned:v8"));
      expect(await host.shutdown()).toBe(0);
    });

    test("a rejected registration leaves the catalog unchanged; a wrong ack revision is -32603; the would-be epoch is not dispatchable", async () => {
      const host = await fixture(V, catalogOffer);
      host.onRequest("tools/register", () => TestHost.errorReply(-32602, "name conflict"));
      expect(await host.callTool("register", { names: ["x"] })).toEqual(error("register:error:-32602"));
      expect(await host.callTool("catalog", {})).toEqual(text("catalog:0"));
      await expect(host.callTool("catalog", {}, { catalogRevision: 1 })).rejects.toMatchObject({ code: -32602 });
      host.onRequest("tools/register", () => ({ revision: 5, tools: ["x"] }));
      expect(await host.callTool("register", { names: ["x"] })).toEqual(error("register:error:-32603"));
      host.onRequest("tools/register", () => ({ revision: 1, tools: ["not-staged"] }));
      expect(await host.callTool("register", { names: ["x"] })).toEqual(error("register:error:-32603"));
      expect(await host.callTool("catalog", {})).toEqual(text("catalog:0"));
      expect(await host.shutdown()).toBe(0);
    });

    test("local refusals: a catalog over 256 tools, duplicate names — nothing is sent (per-request counts: unit/helpers)", async () => {
      const host = await fixture(V, catalogOffer);
      // 23 bootstrap tools + 233 = 256, the catalog cap; one more is refused locally.
      expect(await host.callTool("register", { prefix: "bulk_", count: 233 })).toMatchObject({ is_error: false });
      host.catalogRevision = 1;
      expect(await host.callTool("register", { prefix: "more_", count: 1 })).toEqual(error("register:local-error"));
      expect(await host.callTool("register", { names: ["a", "a"] })).toEqual(error("register:local-error"));
      expect(host.extensionFrames().filter((f) => f.method === "tools/register").length).toBe(1);
      expect(await host.shutdown()).toBe(0);
    });

    test("catalog_revision without negotiated dynamic_tools → -32602; negative or fractional revisions → -32602", async () => {
      const plain = await fixture(V, { offer: { optional: ["request_progress"] } });
      const reply = await plain.request("tool/call", { name: "echo", arguments: {}, catalog_revision: 0 });
      expect((reply.error as { message: string }).message).toContain("requires negotiated dynamic_tools");
      expect(await plain.callTool("register", { names: ["x"] })).toEqual(error("register:error:-32601"));
      expect(await plain.shutdown()).toBe(0);
      const host = await fixture(V, catalogOffer);
      for (const revision of [-1, 1.5]) {
        expect((await host.request("tool/call", { name: "echo", arguments: {}, catalog_revision: revision })).error).toMatchObject({ code: -32602 });
      }
      expect(await host.shutdown()).toBe(0);
    });
  });
}
