/**
 * Menus (`menu/collect`), shortcuts (`shortcut/execute`) and CLI flags
 * (`flag_values`) on API 0.2 and 0.4, process level (docs/api-0.4.md).
 * Fixture: test/fixtures/menus/.
 */
import { describe, expect, test } from "bun:test";
import { HostViolation, TestHost } from "octet-extension/testing";
import { expectCleanStreams } from "../helpers.ts";

type Obj = Record<string, unknown>;
const fixture = (name: string) => new URL(`../fixtures/menus/${name}`, import.meta.url).pathname;
const APIS: [string, string][] = [
  ["0.2", fixture("menus-v02")],
  ["0.4", fixture("menus-v04")],
];
const SHORTCUTS = [
  { key: "ctrl+shift+p", name: "open_panel", description: "Open the panel" },
  { key: "ctrl+r", name: "refresh", description: "Refresh" },
];

for (const [api, dir] of APIS) {
  describe(`API ${api}`, () => {
    test("flag_values: declared defaults, the user's values over them; ext.flags has every flag", async () => {
      const defaults = await TestHost.start(dir);
      expect(defaults.initializeParams().flag_values).toEqual([
        { name: "depth", value: 2 },
        { name: "dry-run", value: false },
        { name: "zone", value: "eu" },
      ]);
      await defaults.initialize();
      expect(await defaults.callTool("show_flags")).toMatchObject({ content: [{ text: JSON.stringify({ "dry-run": false, zone: "eu", depth: 2 }) }] });
      expect(await defaults.shutdown()).toBe(0);

      const given = await TestHost.start(dir, { flags: { "dry-run": true, depth: 5 } });
      await given.initialize();
      expect(JSON.parse(((await given.callTool("show_flags")) as { content: { text: string }[] }).content[0]!.text)).toEqual({ "dry-run": true, zone: "eu", depth: 5 });
      expect(await given.shutdown()).toBe(0);
      expectCleanStreams(given);
    });

    test("flags octet would refuse before starting anything: unknown, wrong type", async () => {
      await expect(TestHost.start(dir, { flags: { verbose: true } })).rejects.toThrow("--verbose is not a flag of menus-v0");
      await expect(TestHost.start(dir, { flags: { depth: "deep" } })).rejects.toThrow('--depth takes a integer value, not "deep"');
    });

    test("malformed flag_values are refused with -32602 and the extension stays uninitialised", async () => {
      const host = await TestHost.start(dir);
      const base = host.initializeParams();
      for (const flag_values of [{}, "x", [{ name: "depth" }], [{ name: "Depth", value: 1 }], [{ name: "depth", value: 1.5 }], [{ name: "depth", value: 1 }, { name: "depth", value: 2 }]]) {
        const reply = await host.request("initialize", { ...base, flag_values });
        expect({ flag_values, code: (reply.error as Obj | undefined)?.code }).toEqual({ flag_values, code: -32602 });
      }
      await host.initialize();
      expect(await host.shutdown()).toBe(0);
    });

    test("shortcuts: echoed in the initialize reply exactly as declared; shortcut/execute runs the handler and answers like a command", async () => {
      const host = await TestHost.start(dir);
      const result = await host.initialize();
      expect(result.shortcuts).toEqual(SHORTCUTS);
      expect(await host.runShortcut("open_panel")).toEqual({ text: "pressed open_panel", notifications: [{ level: "info", message: "panel opened" }], context: [] });
      expect(await host.runShortcut("refresh")).toEqual({ text: "refreshed", notifications: [], context: [] });
      const unknown = await host.request("shortcut/execute", { name: "nope", context: host.executionContext() });
      expect(unknown.error).toEqual({ code: -32601, message: "unknown shortcut: nope" });
      expect(await host.shutdown()).toBe(0);
      expect(host.violations).toEqual([]);
      expectCleanStreams(host);
    });

    test("registered shortcuts must match the declared ones (-32602, as for tools and commands)", async () => {
      const host = await TestHost.start(dir);
      const base = host.initializeParams();
      const contributes = base.contributes as Obj;
      const reply = await host.request("initialize", { ...base, contributes: { ...contributes, shortcuts: [SHORTCUTS[0]] } });
      expect(reply.error).toEqual({ code: -32602, message: "registered shortcuts do not match manifest declarations", data: { declared: ["open_panel"], registered: ["open_panel", "refresh"] } });
      await host.initialize();
      expect(await host.shutdown()).toBe(0);
    });

    test("menu/collect returns the handler's menu; picking an item is an ordinary command/execute", async () => {
      const host = await TestHost.start(dir);
      await host.initialize();
      const menu = await host.collectMenu();
      expect(menu.items.map((i) => i.id)).toEqual(["staging", "more"]);
      const prod = (menu.items[1]!.items as Obj[])[0]!;
      expect(await host.executeCommand(prod.command as string, prod.arguments as string[])).toEqual({ text: "deploying prod", notifications: [], context: [] });
      expect(await host.shutdown()).toBe(0);
      expect(host.violations).toEqual([]);
    });

    test("a menu breaking one of octet's rules is answered -32603 naming the rule, and the extension keeps serving", async () => {
      const host = await TestHost.start(dir);
      await host.initialize();
      const cases: [string, string][] = [
        ["undeclared-command", 'menu item "x" routes to undeclared command "launch"'],
        ["two-recommended", "a menu level may recommend at most one item"],
        ["duplicate-id", 'duplicate menu item id "a"'],
        ["both-command-and-items", 'menu item "a" must either route to a command or open a submenu'],
        ["neither-command-nor-items", 'menu item "a" must either route to a command or open a submenu'],
        ["five-levels", "menu nests deeper than 4 levels"],
        ["257-items", "more than 256 items"],
        ["unknown-state", "status state must be one of empty, loading, pending, active, running, succeeded, failed, cancelled, degraded, stopped, unavailable"],
        ["blank-label", 'item "a" label must not be empty'],
        ["unknown-key", 'item has unknown key "icon"'],
        ["33-arguments", 'item "a" arguments must be at most 32 strings of at most 4096 bytes'],
        ["submenu-arguments", 'submenu "a" cannot carry arguments or destructive'],
      ];
      for (const [mode, problem] of cases) {
        await host.callTool("set_menu", { mode });
        const reply = await host.request("menu/collect", { context: host.executionContext() });
        expect({ mode, error: reply.error }).toEqual({ mode, error: { code: -32603, message: `menu handler returned an invalid menu: ${problem}` } });
      }
      await host.callTool("set_menu", { mode: "no-items" });
      expect((await host.request("menu/collect", { context: host.executionContext() })).error).toEqual({ code: -32603, message: "menu handler must return an object with an items array" });
      await host.callTool("set_menu", { mode: "good" });
      expect((await host.collectMenu()).title).toBe("Deploys");
      expect(await host.shutdown()).toBe(0);
    });

    test("without contributes.menu a registered menu handler is refused at initialize", async () => {
      const host = await TestHost.start(dir);
      const base = host.initializeParams();
      const contributes = { ...(base.contributes as Obj) };
      delete contributes.menu;
      const refused = await host.request("initialize", { ...base, contributes });
      expect(refused.error).toEqual({ code: -32602, message: "a menu handler requires contributes.menu = true" });
      await host.initialize();
      expect(await host.shutdown()).toBe(0);
    });
  });
}

describe("menus and shortcuts elsewhere", () => {
  test("an extension without contributes.menu answers menu/collect -32601", async () => {
    const host = await TestHost.start(new URL("../fixtures/dispatch/dispatch-v04", import.meta.url).pathname);
    await host.initialize();
    expect((await host.request("menu/collect", { context: host.executionContext() })).error).toEqual({ code: -32601, message: "menu/collect requires contributes.menu = true" });
    expect(await host.shutdown()).toBe(0);
  });

  test("test host: a reply whose shortcuts differ from the manifest's is fatal", async () => {
    const host = await TestHost.start(fixture("menus-v04"));
    const base = host.initializeParams();
    const contributes = base.contributes as Obj;
    // The extension echoes what it was sent: a reordered list differs from the manifest's order.
    await expect(host.initialize({ ...base, contributes: { ...contributes, shortcuts: [SHORTCUTS[1], SHORTCUTS[0]] } })).rejects.toThrow("initialized shortcuts do not match manifest declarations");
  });

  test("test host: collectMenu reports the runtime's refusal of a bad menu as the reply error", async () => {
    const host = await TestHost.start(fixture("menus-v04"));
    await host.initialize();
    await host.callTool("set_menu", { mode: "undeclared-command" });
    const error = await host.collectMenu().catch((e: unknown) => e);
    // The runtime refuses it first: the reply is an error, which the test host reports as such.
    expect(error).toMatchObject({ code: -32603 });
    expect(error).not.toBeInstanceOf(HostViolation);
    expect(await host.shutdown()).toBe(0);
  });
});
