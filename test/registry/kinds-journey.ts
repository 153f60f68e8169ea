/**
 * The journey's second extension (issue 25 item 1): in a fresh scaffold, a
 * tool with required `$ref` arguments, a status item, a context contribution,
 * a hook and a renderer are declared, generated, implemented from the stubs,
 * tested with the test host's typed helpers, called one kind at a time from
 * the scaffold's scripts, and probed by `conformance` on that tool.
 */
import { expect } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What the journey's session offers: a command that must succeed, one that must fail. */
export interface Steps {
  step(command: string, cwd?: string): Promise<string>;
  fails(command: string, cwd?: string): Promise<string>;
}

const DECLARATIONS = `[tools.add_todo]
description = "Add a todo"
parameters = { type = "object", "$defs" = { todo = { type = "object", properties = { title = { type = "string", minLength = 1 }, priority = { enum = ["low", "high"] } }, required = ["title", "priority"] } }, properties = { todo = { "$ref" = "#/$defs/todo" } }, required = ["todo"] }

[contributes]
notifications = true
hooks = ["before_prompt"]
ui = ["status"]
context = true
tool_renderers = ["add_todo"]
`;

const SOURCE = `import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ContextEntry, Extension, type HandlerContext, type HookResult, type RenderResult, type StatusItem, type ToolReturn } from "octet-extension";
import { type Handlers, register } from "./extension.gen.ts";

/** The todos, one a line in the scratch directory octet gives the process. */
const todos = (ctx: HandlerContext): string[] => {
  const file = join(ctx.scratch, "todos.txt");
  return existsSync(file) ? readFileSync(file, "utf8").split("\\n").filter(Boolean) : [];
};

export const handlers = {
  tools: {
    hello: async (args, ctx): Promise<ToolReturn> => \`Hello, \${args.name}!\`,
    add_todo: async (args, ctx): Promise<ToolReturn> => {
      appendFileSync(join(ctx.scratch, "todos.txt"), \`\${args.todo.title} (\${args.todo.priority})\\n\`);
      return \`added \${args.todo.title}\`;
    },
  },
  commands: {},
  hooks: {
    before_prompt: async (payload, ctx): Promise<HookResult<"before_prompt">> => ({ context: [{ label: "todos", content: \`\${todos(ctx).length} open\` }] }),
  },
  ui: {
    status: async (params, ctx): Promise<StatusItem<"status"> | null> => ({ text: \`\${todos(ctx).length} todos\` }),
  },
  context: async (params, ctx): Promise<ContextEntry[]> => [{ label: "todos", content: todos(ctx).join("\\n") || "nothing to do" }],
  tool_renderers: {
    add_todo: async (params, ctx): Promise<RenderResult> => ({ segments: [{ text: \`add_todo · \${params.output ?? "running"}\`, style_role: params.is_error ? "error" : null }] }),
  },
} satisfies Handlers;

await register(new Extension(), handlers).run();
`;

const TEST = `import { expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";

test("each kind answers through the test host", async () => {
  const host = await TestHost.start(new URL("..", import.meta.url).pathname);
  await host.initialize();
  expect(await host.collectStatus()).toEqual({ surface: "status", text: "0 todos", priority: 0 });
  expect(await host.callTool("add_todo", { todo: { title: "milk", priority: "high" } })).toMatchObject({ is_error: false });
  expect((await host.collectStatus())?.text).toBe("1 todos");
  expect(await host.collectContext("next?")).toEqual([{ label: "todos", content: "milk (high)" }]);
  expect((await host.runHook("before_prompt", { prompt: "next?" })).context).toEqual([{ label: "todos", content: "1 open" }]);
  expect((await host.renderTool("add_todo", { todo: { title: "milk" } }, "added milk")).segments).toEqual([{ text: "add_todo · added milk", style_role: null }]);
  expect(JSON.stringify(await host.callTool("add_todo", { todo: { title: "milk" } }))).toContain("must have required property 'priority'");
  expect(await host.shutdown()).toBe(0);
});
`;

/** Declare, gen, implement, test, call each kind, conformance; returns conformance's summary line. */
export async function kindsLoop(s: Steps, dir: string): Promise<string> {
  const manifest = join(dir, "manifest.toml");
  const scaffolded = readFileSync(manifest, "utf8");
  expect(scaffolded).toContain("[contributes]\nnotifications = true\n");
  writeFileSync(manifest, scaffolded.replace("[contributes]\nnotifications = true\n", DECLARATIONS));
  const generated = await s.step("bun run gen", dir);
  for (const stub of ["tools.add_todo", "hooks.before_prompt", "ui.status", "context", "tool_renderers.add_todo"]) expect(generated).toContain(`added stub for ${stub}`);
  await s.step("bun run typecheck", dir); // the stubs alone type-check
  writeFileSync(join(dir, "src/extension.ts"), SOURCE);
  writeFileSync(join(dir, "test/todo.test.ts"), TEST);
  await s.step("bun run typecheck", dir);
  // A slot left out is a type error naming it.
  writeFileSync(join(dir, "src/extension.ts"), SOURCE.replace(/ {2}context: [^\n]*\n/, ""));
  expect(await s.fails("bun run typecheck", dir)).toContain("Property 'context' is missing");
  writeFileSync(join(dir, "src/extension.ts"), SOURCE);
  const tested = await s.step("bun run test", dir);
  expect(tested).toMatch(/\b3 pass\b/);
  expect(tested).toMatch(/\b0 fail\b/);
  // Each kind from the command line, state kept in one scratch directory.
  const call = (args: string) => s.step(`bun run call -- ${args} --scratch .scratch --quiet 2>/dev/null`, dir);
  expect(await call("--status")).toBe("0 todos\n");
  expect(await call(`add_todo '{"todo":{"title":"milk","priority":"high"}}'`)).toBe("added milk\n");
  expect(await call("--status")).toBe("1 todos\n");
  expect(await call("--context next")).toBe("milk (high)\n");
  expect(await call(`--hook before_prompt '{"prompt":"next"}'`)).toBe("continue\n");
  expect(await call(`--render add_todo '{"output":"added milk"}'`)).toBe("add_todo · added milk\n");
  expect(await s.fails(`bun run call -- add_todo '{"todo":{"title":"milk"}}'`, dir)).toContain("must have required property 'priority'");
  // conformance exercises the tool with required $ref arguments: its probes reach the handler.
  const probed = await s.step("bun run conformance -- --tool add_todo", dir);
  expect(probed).toMatch(/calls: add_todo \{"todo":\{/);
  expect(probed).toContain("10 passed, 0 failed");
  expect(probed).toContain("3/3 probes that call add_todo exercised its handler");
  return probed.split("\n").find((line) => line.startsWith("10 checks:")) ?? "";
}
