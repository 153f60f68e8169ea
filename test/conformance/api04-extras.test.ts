/**
 * The conformance fixture's API 0.4 extras (docs/conformance-fixture.md §9),
 * process level: with a 0.4 manifest that sets `contributes.menu` and lists the
 * `flags` tool, initialize succeeds, `flags` reports `initialize.flag_values` as
 * received, and `menu/collect` answers the fixed menu. Without them, neither exists.
 */
import { describe, expect, test } from "bun:test";
import { fixture, text, V04 } from "./helpers.ts";

const EXTRAS = new URL("../fixtures/conformance/v04-extras/octet-conformance-fixture", import.meta.url).pathname;
type Obj = Record<string, unknown>;

/** §9: the menu, byte for byte. */
const MENU = '{"title":"Conformance fixture","status":{"state":"active","label":"ready"},"detail":"fixture menu","items":[{"id":"echo","label":"Echo","command":"fixture","arguments":["menu"]}]}';

describe("conformance fixture: API 0.4 extras (§9)", () => {
  test("manifest with contributes.menu and the flags tool: initialize succeeds with 24 tools; flags is described as specified", async () => {
    const host = await fixture(EXTRAS, {}, false);
    const result = await host.initialize();
    const tools = result.tools as Obj[];
    expect(tools.length).toBe(24);
    expect(tools.find((t) => t.name === "flags")).toEqual({ name: "flags", description: "Report initialize.flag_values", parameters: { type: "object" } });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("flags answers TEXT(flags: + canon(initialize.flag_values)) as received: defaults, the user's values, absent → null", async () => {
    const defaults = await fixture(EXTRAS);
    expect(await defaults.callTool("flags")).toEqual(text('flags:[{"name":"dry-run","value":false},{"name":"zone","value":"eu"}]'));
    expect(await defaults.shutdown()).toBe(0);

    const given = await fixture(EXTRAS, { flags: { "dry-run": true, zone: "ü-\"west\"" } });
    expect(await given.callTool("flags", { ignored: 1 })).toEqual(text('flags:[{"name":"dry-run","value":true},{"name":"zone","value":"ü-\\"west\\""}]'));
    expect(await given.shutdown()).toBe(0);

    const absent = await fixture(EXTRAS, {}, false);
    const { flag_values: _dropped, ...params } = absent.initializeParams();
    await absent.initialize(params);
    expect(await absent.callTool("flags")).toEqual(text("flags:null"));
    expect(await absent.shutdown()).toBe(0);
  });

  test("menu/collect answers exactly the §9 menu", async () => {
    const host = await fixture(EXTRAS);
    const reply = await host.request("menu/collect", { context: host.executionContext() });
    expect(reply.error).toBeUndefined();
    expect(JSON.stringify(reply.result)).toBe(MENU);
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("the plain 0.4 manifest declares neither: no flags tool, menu/collect -32601", async () => {
    const host = await fixture(V04, {}, false);
    const result = await host.initialize();
    expect((result.tools as Obj[]).map((t) => t.name)).not.toContain("flags");
    expect((await host.request("tool/call", { name: "flags", arguments: {}, context: host.executionContext() })).error).toEqual({ code: -32601, message: "unknown tool: flags" });
    expect((await host.request("menu/collect", { context: host.executionContext() })).error).toMatchObject({ code: -32601 });
    expect(await host.shutdown()).toBe(0);
  });
});
