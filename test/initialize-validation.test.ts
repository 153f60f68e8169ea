/**
 * initialize validation on both APIs, process level (docs/protocol-0.2.md §3.1, §8.2):
 * contributes and its tool and command lists, declared vs registered sets,
 * and the order of the checks. Fixture: test/fixtures/dispatch/.
 */
import { describe, expect, test } from "bun:test";
import type { TestHost } from "octet-extension/testing";
import { APIS, type Obj, REGISTERED_COMMANDS, REGISTERED_TOOLS, V02 } from "./dispatch-fixture.ts";
import { expectCleanStreams, startHost } from "./helpers.ts";

describe("initialize validation (docs/protocol-0.2.md §3.1, §8.2)", () => {
  /** Reject every initialize in `cases`, checking the process stays uninitialised after each. */
  async function expectInitErrors(host: TestHost, cases: [Obj, Obj][]): Promise<void> {
    for (const [params, expected] of cases) {
      const reply = await host.request("initialize", params);
      expect({ params, error: reply.error }).toEqual({ params, error: expected });
      expect("result" in reply).toBe(false);
      expect((await host.request("tool/call", { name: "echo", arguments: {} })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    }
  }

  const mismatch = (kind: "tools" | "commands", declared: unknown[], registered: string[]) => ({
    code: -32602,
    message: `registered ${kind} do not match manifest declarations`,
    data: { declared, registered },
  });

  /** Sort `data.declared` / `data.registered` so that their order does not matter. */
  function sortedData(error: unknown): unknown {
    const e = error as { data?: { declared?: unknown[]; registered?: unknown[] } };
    if (!e?.data || !Array.isArray(e.data.declared) || !Array.isArray(e.data.registered)) return error;
    return { ...e, data: { ...e.data, declared: [...e.data.declared].sort(), registered: [...e.data.registered].sort() } };
  }

  for (const [api, dir] of APIS) {
    test(`API ${api}: contributes not an object → -32602; uninitialised; later initialize succeeds`, async () => {
      const host = await startHost(dir);
      const base = host.initializeParams();
      for (const contributes of [[], "tools", 5, true, null, [["echo"]]]) {
        const reply = await host.request("initialize", { ...base, contributes });
        expect({ contributes, code: (reply.error as Obj | undefined)?.code }).toEqual({ contributes, code: -32602 });
        expect((await host.request("tool/call", { name: "echo", arguments: {} })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
      }
      // An empty object means no declarations to check.
      expect(await host.initialize({ ...base, contributes: {} })).toMatchObject({ api_version: api });
      expect(await host.callTool("echo", { text: "ok" })).toBeDefined();
      expect(await host.shutdown()).toBe(0);
      expectCleanStreams(host);
    });

    test(`API ${api}: contributes.tools / .commands not an array of strings → -32602 with the specified message`, async () => {
      const host = await startHost(dir);
      const base = host.initializeParams();
      const contributes = base.contributes as Obj;
      const bad = ["echo", {}, null, 7, true, ["echo", 1], [null], [["echo"]], { 0: "echo" }];
      const cases: [Obj, Obj][] = [];
      for (const value of bad) {
        cases.push([{ ...base, contributes: { ...contributes, tools: value } }, { code: -32602, message: "initialize contributes.tools must be an array of strings" }]);
        cases.push([{ ...base, contributes: { ...contributes, commands: value } }, { code: -32602, message: "initialize contributes.commands must be an array of strings" }]);
      }
      // tools are checked before commands.
      cases.push([{ ...base, contributes: { ...contributes, tools: "echo", commands: "mark" } }, { code: -32602, message: "initialize contributes.tools must be an array of strings" }]);
      cases.push([{ ...base, contributes: { ...contributes, tools: ["ghost"], commands: "mark" } }, mismatch("tools", ["ghost"], REGISTERED_TOOLS)]);
      await expectInitErrors(host, cases);
      await host.initialize();
      expect(await host.shutdown()).toBe(0);
      expectCleanStreams(host);
    });

    test(`API ${api}: tools declared but not registered, and command set mismatches → -32602 with data {declared, registered}`, async () => {
      const host = await startHost(dir);
      const base = host.initializeParams();
      const contributes = base.contributes as Obj;
      const toolSets: string[][] = [
        [...REGISTERED_TOOLS, "ghost"], // declared, not registered
        ["echo", "returns", "mark", "ghost"], // same count, one differs
        [], // nothing declared, four registered
        ["echo", "returns", "mark"], // registered, not declared
      ];
      const commandSets: string[][] = [["mark", "other", "ghost"], ["mark"], ["mark", "ghost"], []];
      for (const tools of toolSets) {
        const reply = await host.request("initialize", { ...base, contributes: { ...contributes, tools } });
        expect(Object.keys((reply.error as { data?: object })?.data ?? {}).sort()).toEqual(["declared", "registered"]);
        expect(sortedData(reply.error)).toEqual(sortedData(mismatch("tools", tools, REGISTERED_TOOLS)));
      }
      for (const commands of commandSets) {
        const reply = await host.request("initialize", { ...base, contributes: { ...contributes, commands } });
        expect(Object.keys((reply.error as { data?: object })?.data ?? {}).sort()).toEqual(["declared", "registered"]);
        expect(sortedData(reply.error)).toEqual(sortedData(mismatch("commands", commands, REGISTERED_COMMANDS)));
      }
      // Order is not significant: a permuted declaration is accepted.
      const result = await host.initialize({ ...base, contributes: { ...contributes, tools: [...REGISTERED_TOOLS].reverse(), commands: [...REGISTERED_COMMANDS].reverse() } });
      expect((result.tools as Obj[]).map((t) => t.name)).toEqual(REGISTERED_TOOLS);
      expect(await host.shutdown()).toBe(0);
      expectCleanStreams(host);
    });

    test(`API ${api}: validation order — params, then api_version, then contributes`, async () => {
      const host = await startHost(dir);
      const base = host.initializeParams();
      const other = api === "0.1" ? "0.2" : "0.1";
      const reply = await host.request("initialize", { ...base, api_version: other, contributes: "not an object" });
      expect(reply.error).toEqual({ code: -32000, message: `unsupported API version: the host asked for API ${other}, this extension speaks API ${api} (new Extension({ apiVersion }) or OCTET_EXTENSION_API_VERSION)` });
      for (const params of [[], "x", 1, null]) expect((await host.request("initialize", params)).error).toMatchObject({ code: -32602 });
      await host.initialize();
      expect(await host.shutdown()).toBe(0);
    });
  }

  test("API 0.2: contributes are validated before protocol, even with dynamic_tools offered", async () => {
    const host = await startHost(V02);
    const base = host.initializeParams();
    const contributes = base.contributes as Obj;
    const protocol = base.protocol as Obj;
    expect(protocol.optional_features).toContain("dynamic_tools");
    const declared = [...REGISTERED_TOOLS, "ghost"];
    const cases: [Obj, Obj][] = [
      // dynamic_tools will be negotiated: the SDK still requires the exact manifest set.
      [{ ...base, contributes: { ...contributes, tools: declared } }, mismatch("tools", declared, REGISTERED_TOOLS)],
      // protocol.version 0.3 alone would be -32000; the contributes error comes first.
      [{ ...base, contributes: { ...contributes, tools: declared }, protocol: { ...protocol, version: "0.3" } }, mismatch("tools", declared, REGISTERED_TOOLS)],
      [{ ...base, contributes: { ...contributes, commands: ["ghost"] }, protocol: { ...protocol, required_features: ["content_parts", "teleport"] } }, mismatch("commands", ["ghost"], REGISTERED_COMMANDS)],
      [{ ...base, contributes: { ...contributes, tools: 1 }, protocol: undefined }, { code: -32602, message: "initialize contributes.tools must be an array of strings" }],
    ];
    for (const [params, expected] of cases) {
      const reply = await host.request("initialize", params);
      expect(sortedData(reply.error)).toEqual(sortedData(expected));
      expect((await host.request("tool/call", { name: "echo", arguments: {} })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    }
    const contributesReply = await host.request("initialize", { ...base, contributes: [], protocol: { ...protocol, version: "0.3" } });
    expect((contributesReply.error as Obj).code).toBe(-32602);
    // Valid contributes: now the protocol errors surface.
    expect((await host.request("initialize", { ...base, protocol: { ...protocol, version: "0.3" } })).error).toMatchObject({ code: -32000 });
    await host.initialize();
    expect(host.features.has("dynamic_tools")).toBe(true);
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });
});
