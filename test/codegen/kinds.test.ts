/**
 * Every kind `manifest.toml` declares has a typed slot in the generated
 * `Handlers` (issue 25 item 1; docs/kinds.md): gen writes a stub for each,
 * the type checker names a missing slot and refuses a wrong answer, gen
 * refuses a handler nothing declares, `register` wires them all, and the
 * test host's typed helpers invoke each kind (`call`: test/tools/call-kinds.test.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost } from "octet-extension/testing";
import ts from "typescript";
import { cli, IMPLEMENTED, implementedProject, KINDS } from "./kinds-project.ts";
import { project, REPO, removeProjects, typecheck } from "./helpers.ts";

afterAll(removeProjects);

const STUBS = [
  "tools.add_todo",
  "commands.todos",
  "shortcuts.open_todos",
  "menu",
  "hooks.before_prompt",
  "hooks.before_tool_call",
  "hooks.post_mutation",
  "hooks.cache_warming_decision",
  "hooks.session_before_compact",
  "ui.status",
  "ui.header",
  "context",
  "tool_renderers.add_todo",
];

/** Each source's diagnostics, all type-checked in one program (each written beside the project's file). */
function errorsOf(dir: string, sources: string[]): string[] {
  const files = sources.map((source, i) => {
    const file = join(dir, `src/variant-${i}.ts`);
    writeFileSync(file, source);
    return file;
  });
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: ["bun"],
    typeRoots: [join(REPO, "node_modules", "@types")],
    paths: { "octet-extension": [join(REPO, "src/index.ts")] },
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  for (const file of files) rmSync(file);
  return files.map((file) => diagnostics.filter((d) => d.file?.fileName === file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n"));
}

describe("every declared kind has a typed slot", () => {
  test("gen writes a slot, a stub and a register line for each kind; the stubs type-check; a second run changes nothing", () => {
    const dir = project("kinds", KINDS);
    const run = cli(dir, "gen");
    expect(run.code).toBe(0);
    expect(run.stderr.split("\n").filter((l) => l.startsWith("added stub for ")).map((l) => l.slice("added stub for ".length))).toEqual(STUBS);
    const generated = readFileSync(join(dir, "src/extension.gen.ts"), "utf8");
    for (const piece of [
      'export interface HookHandlers {\n  before_prompt: HookSlot<"before_prompt">;',
      '  session_before_compact: HookSlot<"session_before_compact">;\n}',
      'export interface UiHandlers {\n  status: StatusSlot<"status">;\n  header: StatusSlot<"header">;\n}',
      'export interface ToolRendererHandlers {\n  add_todo: RendererSlot<"add_todo">;\n}',
      "  hooks: HookHandlers;\n  ui: UiHandlers;",
      "  context: ContextSlot;\n  tool_renderers: ToolRendererHandlers;",
      "  lifecycle?: LifecycleSlots;",
      'ext.hook(hook, own(handlers.hooks, hook, "hook"))',
      'ext.status(surface, withSurface(surface, own(handlers.ui, surface, "ui surface")))',
      'ext.context(own(handlers, "context", "context provider"))',
      'ext.renderer(name, own(handlers.tool_renderers, name, "tool renderer"))',
      "ext.onLifecycle(event, observer as never)",
    ]) {
      expect(generated).toContain(piece);
    }
    const source = readFileSync(join(dir, "src/extension.ts"), "utf8");
    expect(source).toContain('    before_prompt: async (payload, ctx): Promise<HookResult<"before_prompt">> => {\n      throw new Error("hook `before_prompt` is not implemented yet");\n    },\n');
    expect(source).toContain('    header: async (params, ctx): Promise<StatusItem<"header"> | null> => {\n');
    expect(source).toContain('  context: async (params, ctx): Promise<ContextEntry[]> => {\n    throw new Error("the context provider is not implemented yet");\n  },\n');
    expect(source).toContain("    add_todo: async (params, ctx): Promise<RenderResult> => {\n");
    expect(typecheck([join(dir, "src/extension.ts")])).toEqual([]);
    expect(cli(dir, "gen").stderr).toContain("nothing to change");
    expect(cli(dir, "check").code).toBe(0);
  });

  test("gen adds the stubs of newly declared kinds to an existing file and touches nothing else", () => {
    const dir = project("kinds", KINDS.replace(/\n\[contributes\][\s\S]*$/, "\n[contributes]\nmenu = true\n"));
    expect(cli(dir, "gen").code).toBe(0);
    const file = join(dir, "src/extension.ts");
    const authored = readFileSync(file, "utf8").replace("export const handlers", "// the author's note\nexport const handlers");
    writeFileSync(file, authored);
    writeFileSync(join(dir, "manifest.toml"), KINDS);
    const run = cli(dir, "gen");
    expect(run.stderr.split("\n").filter((l) => l.startsWith("added stub for ")).map((l) => l.slice("added stub for ".length))).toEqual(STUBS.slice(4));
    const updated = readFileSync(file, "utf8");
    // The import gains the stubs' return types; every other line the author had is kept, in order.
    const [importLine, ...rest] = authored.split("\n");
    expect(updated.split("\n")[0]).toBe(importLine!.replace(" }", ", type HookResult, type StatusItem, type ContextEntry, type RenderResult }"));
    const kept = updated.split("\n");
    let at = 0;
    for (const line of rest) {
      at = kept.indexOf(line, at);
      expect({ line, found: at !== -1 }).toEqual({ line, found: true });
    }
    expect(updated).toContain("// the author's note");
    expect(typecheck([file])).toEqual([]);
  });

  test("a declared kind without a handler is a type error naming the slot; a wrong answer is a type error naming the key", () => {
    const dir = implementedProject();
    const variants: [string, (errors: string) => void][] = [];
    const check = (source: string, expectation: (errors: string) => void) => variants.push([source, expectation]);
    const without = (pattern: RegExp, expected: RegExp) => {
      expect(IMPLEMENTED).toMatch(pattern);
      check(IMPLEMENTED.replace(pattern, ""), (errors) => expect(errors).toMatch(expected));
    };
    const wrong = (from: string, to: string, expected: string | RegExp) => {
      expect(IMPLEMENTED).toContain(from);
      check(IMPLEMENTED.replace(from, to), (errors) => (typeof expected === "string" ? expect(errors).toContain(expected) : expect(errors).toMatch(expected)));
    };
    check(IMPLEMENTED, (errors) => expect(errors).toBe(""));
    without(/ {4}before_prompt: [^\n]*\n/, /Property 'before_prompt' is missing in type [\s\S]* but required in type 'HookHandlers'/);
    without(/ {4}header: [^\n]*\n/, /Property 'header' is missing in type [\s\S]* but required in type 'UiHandlers'/);
    without(/ {2}context: [^\n]*\n/, /Property 'context' is missing in type [\s\S]* but required in type 'Handlers'/);
    without(/ {2}tool_renderers: \{\n[^\n]*\n {2}\},\n/, /Property 'tool_renderers' is missing in type [\s\S]* but required in type 'Handlers'/);
    without(/ {2}hooks: \{\n(?: {4}[^\n]*\n)+ {2}\},\n/, /Property 'hooks' is missing in type [\s\S]* but required in type 'Handlers'/);
    // A misspelt key of an answer is named, as for tool results.
    wrong("priority: 1 })", "priority: 1, colour: 2 })", "'colour' does not exist in type 'StatusItem<\"status\">'");
    wrong('({ context: [{ label: "todos"', '({ contexts: [{ label: "todos"', "'contexts' does not exist in type 'HookAnswer'");
    wrong('style_role: params.is_error ? "error" : null }]', 'style: "error" }]', "'style' does not exist in type 'RenderSegment'");
    wrong('placement: "system_suffix" }]', 'placement: "system" }]', `Type '"system"' is not assignable to type 'ContextPlacement`);
    // A hook's own field takes only what octet accepts.
    // TypeScript prints a union's members in the order it made their types, which depends on what it checked first.
    wrong('? "stop" : "warm"', '? "stop" : "maybe"', /Type '"maybe"' is not assignable to type '(?:"warm" \| "stop"|"stop" \| "warm") \| null \| undefined'/);
    wrong('{ disposition: { action: "deny", reason: "no rm here" } }', '{ disposition: { action: "deny" } }', /Property 'reason' is missing/);
    // The payload is typed as octet sends it.
    wrong("payload.affected_resources", "payload.resources", "Property 'resources' does not exist on type 'PostMutationPayload'");
    wrong("params.turn_id", "params.turn", /Property 'turn' does not exist on type/);
    // A status item for one surface cannot claim another.
    wrong("({ text: `todos on the ${params.surface}`,", '({ surface: "footer", text: "x",', `Type '"footer"' is not assignable to type '"header"'`);
    const errors = errorsOf(dir, variants.map(([source]) => source));
    variants.forEach(([, expectation], i) => expectation(errors[i]!));
  });

  test("a handler of an undeclared kind is refused by gen and by the type checker", () => {
    const dir = implementedProject();
    const extra = IMPLEMENTED.replace("  hooks: {\n", "  hooks: {\n    after_response: async () => null,\n")
      .replace("  ui: {\n", '  ui: {\n    footer: async () => ({ text: "x" }),\n')
      .replace("  tool_renderers: {\n", '  tool_renderers: {\n    other_tool: async () => "x",\n')
      .replace('    "turn/settled":', '    "turn/ended": () => {},\n    "turn/settled":');
    writeFileSync(join(dir, "src/extension.ts"), extra);
    writeFileSync(join(dir, "manifest.toml"), KINDS.replace("context = true\n", ""));
    const gen = cli(dir, "gen");
    for (const orphan of ["hooks.after_response", "ui.footer", "context", "tool_renderers.other_tool", "lifecycle.turn/ended"]) {
      expect(gen.stderr).toContain(`handler \`${orphan}\` in src/extension.ts has no declaration in manifest.toml`);
    }
    const check = cli(dir, "check");
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("orphan handlers: hooks.after_response, ui.footer, context, tool_renderers.other_tool, lifecycle.turn/ended");
    const errors = typecheck([join(dir, "src/extension.ts")]).map((d) => d.text).join("\n");
    for (const name of ["after_response", "footer", "other_tool", '"turn/ended"']) expect(errors).toContain(`'${name}' does not exist in type`);
    // TypeScript names one unknown key per object: the context provider alone.
    writeFileSync(join(dir, "src/extension.ts"), IMPLEMENTED);
    expect(typecheck([join(dir, "src/extension.ts")]).map((d) => d.text).join("\n")).toContain("'context' does not exist in type 'Handlers'");
  });

  test("the implemented extension runs under the test host; each typed helper returns its handler's answer", async () => {
    const dir = implementedProject();
    const host = await TestHost.start(dir);
    await host.initialize();
    expect(await host.collectStatus()).toEqual({ surface: "status", text: "1 todos", priority: 1 });
    expect(await host.collectStatus("header")).toEqual({ surface: "header", text: "todos on the header", priority: 0, style_role: "extension.kinds.header" });
    expect(await host.collectContext("next?")).toEqual([{ label: "todos", content: "write docs", placement: "system_suffix" }]);
    expect(await host.runHook("before_prompt", { prompt: "next?" })).toEqual({ disposition: { action: "continue" }, context: [{ label: "todos", content: "1 open for next?" }], notifications: [] });
    expect((await host.runHook("before_tool_call", { name: "rm", arguments: {} })).disposition).toEqual({ action: "deny", reason: "no rm here" });
    const mutation = await host.runHook("post_mutation", { mutation_id: "m1", kind: "resource", affected_resources: ["resource:a"], generation: 1, state: "committed" });
    expect(mutation.post_mutation).toEqual({ action: "request_rescan", resource_ids: ["resource:a"] });
    const decision = { phase: "idle", warm_cost_microdollars: 1, miss_cost_microdollars: 2, continuation_probability: 0.5, expected_savings_microdollars: 0, economics_available: true, action: "warm" } as const;
    expect((await host.runHook("cache_warming_decision", { decision, model: "m" })).cache_warming_decision).toBe("stop");
    const compaction = await host.runHook("session_before_compact", { kind: "before_compact", reason: "manual", first_kept: "e1", preparation: {}, branch_entries: [], custom_instructions: null });
    expect(compaction.session_operation).toEqual({ action: "cancel" });
    expect(await host.callTool("add_todo", { title: "ship" })).toMatchObject({ content: [{ type: "text", text: "added ship" }], is_error: false });
    expect(await host.renderTool("add_todo", { title: "ship" }, "added ship")).toEqual({ segments: [{ text: "add_todo · added ship", style_role: null }] });
    expect(await host.executeCommand("todos")).toEqual({ text: "write docs, ship", notifications: [], context: [] });
    expect((await host.runShortcut("open_todos")).text).toBe("opened by open_todos");
    expect((await host.collectMenu()).items).toEqual([{ id: "list", label: "List the todos", command: "todos", arguments: [] }]);
    host.lifecycle("turn/settled", { session_id: "s", run_id: "r", turn_id: "t1", outcome: "completed", duration_ms: 5, reason: null });
    const notice = await host.waitForFrame((frame) => frame.method === "notification");
    expect(notice.params).toEqual({ level: "info", message: "turn t1 completed" });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("collectStatus() without a surface names the fix when the manifest declares none", async () => {
    const dir = project("plain", 'name = "plain"\nversion = "0.1.0"\napi_version = "0.4"\n');
    expect(cli(dir, "gen").code).toBe(0);
    const host = await TestHost.start(dir);
    await host.initialize();
    await expect(host.collectStatus()).rejects.toThrow('collectStatus(): the manifest declares no UI surface; declare one (manifest.toml [contributes] ui = ["status"]) or pass the surface');
    expect(await host.shutdown()).toBe(0);
  });
});
