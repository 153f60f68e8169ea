/**
 * `[flags.*]`, `[shortcuts.*]` and `contributes.menu` in manifest.toml:
 * gen writes them into extension.toml as octet reads them, adds typed stubs
 * and a typed `flags(ext)`, the type checker holds the handlers to them, and
 * the result runs under the strict test host on API 0.4 (docs/manifest.md).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost } from "octet-extension/testing";
import { gen, loadAuthorManifest } from "../../codegen/index.ts";
import { project, removeProjects, typecheck } from "./helpers.ts";

afterAll(removeProjects);

const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");

const DEPLOY = `name = "deploy"
version = "0.1.0"
api_version = "0.4"

[commands.deploy]
description = "Deploy"

[commands.status]
description = "Show the status"

[flags.dry-run]
type = "boolean"
default = false
description = "Print what would change"

[flags.region]
type = "string"
default = "eu"

[flags.retries]
type = "integer"
default = 2

[shortcuts.open_panel]
key = "ctrl+shift+p"
description = "Open the deploy panel"

[tools.plan]
description = "Plan a deploy"

[contributes]
menu = true
`;

describe("gen: flags, shortcuts and the menu", () => {
  test("extension.toml carries them as octet reads them; stubs are added; implemented handlers type-check and run under the test host", async () => {
    const dir = project("deploy", DEPLOY);
    const first = await gen(dir);
    expect(first.added).toEqual(["tools.plan", "commands.deploy", "commands.status", "shortcuts.open_panel", "menu"]);
    const host = read(dir, "extension.toml");
    expect(host).toContain(
      [
        "menu = true",
        "flags = [",
        '  { name = "dry-run", type = "boolean", default = false, description = "Print what would change" },',
        '  { name = "region", type = "string", default = "eu" },',
        '  { name = "retries", type = "integer", default = 2 },',
        "]",
        "shortcuts = [",
        '  { key = "ctrl+shift+p", name = "open_panel", description = "Open the deploy panel" },',
        "]",
      ].join("\n"),
    );
    const generated = read(dir, "src/extension.gen.ts");
    expect(generated).toContain('export interface Flags {\n  /** Print what would change */\n  readonly "dry-run": boolean;\n  readonly "region": string;\n  readonly "retries": number;\n}');
    // The stubs alone type-check (they throw until implemented).
    const source = join(dir, "src/extension.ts");
    expect(typecheck([source])).toEqual([]);
    const implemented = read(dir, "src/extension.ts")
      .replace('import { type Handlers, register } from "./extension.gen.ts";', 'import { flags, type Handlers, register } from "./extension.gen.ts";\n\nconst ext = new Extension();')
      .replace(/plan: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "plan: () => { const f = flags(ext); return `plan for ${f.region}, ${f.retries} retries${f[\"dry-run\"] ? \" (dry run)\" : \"\"}`; },")
      .replace(/deploy: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "deploy: (args) => `deploying ${args.join(\" \")}`,")
      .replace(/status: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, 'status: () => "green",')
      .replace(/open_panel: async \(params, ctx\) => \{[\s\S]*?\n {4}\},/, "open_panel: (params) => `opened by ${params.name}`,")
      .replace(/menu: async \(params, ctx\) => \{[\s\S]*?\n {2}\},/, 'menu: () => ({ items: [{ id: "eu", label: "Deploy to eu", command: "deploy", arguments: ["eu"] }] }),')
      .replace("await register(new Extension(), handlers).run();", "await register(ext, handlers).run();");
    writeFileSync(source, implemented);
    expect(typecheck([source])).toEqual([]);
    // A menu item naming a command that is not declared does not type-check.
    writeFileSync(source, implemented.replace('command: "deploy"', 'command: "launch"'));
    expect(typecheck([source]).map((d) => d.code)).toContain(2322);
    // Nor does a shortcut handler missing.
    writeFileSync(source, implemented.replace(/open_panel: \(params\) => [^\n]*\n/, ""));
    expect(typecheck([source]).length).toBeGreaterThan(0);
    writeFileSync(source, implemented);
    expect((await gen(dir, { check: true })).changed).toEqual([]);

    const test = await TestHost.start(dir, { flags: { "dry-run": true, retries: 5 } });
    const result = await test.initialize();
    expect(result).toMatchObject({ api_version: "0.4", shortcuts: [{ key: "ctrl+shift+p", name: "open_panel", description: "Open the deploy panel" }] });
    expect(await test.callTool("plan")).toMatchObject({ content: [{ text: "plan for eu, 5 retries (dry run)" }] });
    expect(await test.runShortcut("open_panel")).toMatchObject({ text: "opened by open_panel" });
    const menu = await test.collectMenu();
    expect(await test.executeCommand(menu.items[0]!.command!, menu.items[0]!.arguments)).toMatchObject({ text: "deploying eu" });
    expect(await test.shutdown()).toBe(0);
    expect(test.violations).toEqual([]);
  });

  test("bad flags and shortcuts name the key and the fix", () => {
    const cases: [string, RegExp][] = [
      ['[flags.Verbose]\ntype = "boolean"\ndefault = false\n', /flags\.Verbose: is not a valid flag name/],
      ['[flags.verbose]\ntype = "bool"\ndefault = false\n', /flags\.verbose\.type: "bool" is not a flag type/],
      ['[flags.depth]\ntype = "integer"\ndefault = 1.5\n', /flags\.depth\.default: is missing or not a integer/],
      ['[flags.depth]\ntype = "integer"\n', /flags\.depth\.default: is missing or not a integer/],
      ['[flags.depth]\ntype = "integer"\ndefault = 1\nshort = "d"\n', /flags\.depth\.short: unknown key/],
      ['[shortcuts.go]\nkey = "p"\ndescription = "Go"\n', /shortcuts\.go\.key: octet would not bind "p": a shortcut must include ctrl, alt or super/],
      ['[shortcuts.go]\nkey = "ctrl+c"\ndescription = "Go"\n', /octet would not bind "ctrl\+c": octet reserves this key for itself/],
      ['[shortcuts.go]\nkey = "alt+p"\ndescription = "Go"\n', /alt with a character may be text typed with Option or AltGr/],
      ['[shortcuts.go]\nkey = "ctrl+hyper"\ndescription = "Go"\n', /"hyper" is not a key octet knows/],
      ['[shortcuts.go]\nkey = "ctrl+p"\ndescription = "Go"\n\n[shortcuts.again]\nkey = "CTRL+P"\ndescription = "Again"\n', /shortcuts\.again\.key: "CTRL\+P" is already the key of shortcuts\.go/],
      ['[shortcuts.go]\nkey = "ctrl+p"\n', /shortcuts\.go\.description: is missing/],
    ];
    for (const [tables, pattern] of cases) {
      const dir = project("bad", `name = "bad"\nversion = "0.1.0"\napi_version = "0.4"\n\n${tables}`);
      expect(() => loadAuthorManifest(dir)).toThrow(pattern);
    }
    const hooks = (api: string, hook: string) => project("hooks", `name = "hooks"\nversion = "0.1.0"\napi_version = "${api}"\n\n[contributes]\nhooks = ["${hook}"]\n`);
    expect(() => loadAuthorManifest(hooks("0.2", "session_tree"))).toThrow(/contributes\.hooks: session_tree requires api_version 0\.4/);
    expect(() => loadAuthorManifest(hooks("0.4", "resources_discover"))).toThrow(/contributes\.hooks: resources_discover is an API 0\.4 hook this SDK does not implement yet/);
    expect(loadAuthorManifest(hooks("0.4", "cache_warming_decision")).contributes.hooks).toEqual(["cache_warming_decision"]);
    const old = project("old", `name = "old"\nversion = "0.1.0"\napi_version = "0.1"\n\n[flags.verbose]\ntype = "boolean"\ndefault = false\n`);
    expect(() => loadAuthorManifest(old)).toThrow(/flags: CLI flags require api_version 0\.2 or later/);
  });
});
