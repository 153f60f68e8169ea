/**
 * A project declaring every kind and its implementation, for the kind tests
 * (test/codegen/kinds.test.ts, test/tools/call-kinds.test.ts).
 */
import { expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { project, REPO } from "./helpers.ts";

const CLI = join(REPO, "codegen/cli.ts");
/** Run the real CLI in `dir`. */
export const cli = (dir: string, ...args: string[]) => {
  const run = Bun.spawnSync([process.execPath, CLI, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
};

/** A manifest declaring every kind (API 0.4). */
export const KINDS = `name = "kinds"
version = "0.1.0"
api_version = "0.4"
description = "Every kind"

[tools.add_todo]
description = "Add a todo"
parameters = { type = "object", properties = { title = { type = "string" } }, required = ["title"] }

[commands.todos]
description = "List the todos"

[shortcuts.open_todos]
key = "ctrl+shift+t"
description = "Open the todo list"

[contributes]
hooks = ["before_prompt", "before_tool_call", "post_mutation", "cache_warming_decision", "session_before_compact"]
ui = ["status", "header"]
context = true
tool_renderers = ["add_todo"]
menu = true
notifications = true
`;

/** The author's file, every slot implemented (the stubs' return annotations kept). */
export const IMPLEMENTED = `import { type ContextEntry, Extension, type HookResult, type RenderResult, type StatusItem } from "octet-extension";
import { type Handlers, register } from "./extension.gen.ts";

const ext = new Extension();
const todos: string[] = ["write docs"];

export const handlers = {
  tools: {
    add_todo: async (args) => {
      todos.push(args.title);
      return \`added \${args.title}\`;
    },
  },
  commands: {
    todos: async () => todos.join(", "),
  },
  shortcuts: {
    open_todos: async (params) => \`opened by \${params.name}\`,
  },
  menu: async () => ({ items: [{ id: "list", label: "List the todos", command: "todos", arguments: [] }] }),
  hooks: {
    before_prompt: async (payload, ctx): Promise<HookResult<"before_prompt">> => ({ context: [{ label: "todos", content: \`\${todos.length} open for \${payload.prompt}\` }] }),
    before_tool_call: async (payload, ctx): Promise<HookResult<"before_tool_call">> => (payload.name === "rm" ? { disposition: { action: "deny", reason: "no rm here" } } : null),
    post_mutation: async (payload, ctx): Promise<HookResult<"post_mutation">> => ({ post_mutation: { action: "request_rescan", resource_ids: payload.affected_resources } }),
    cache_warming_decision: async (payload, ctx): Promise<HookResult<"cache_warming_decision">> => ({ cache_warming_decision: payload.decision.phase === "idle" ? "stop" : "warm" }),
    session_before_compact: async (payload, ctx): Promise<HookResult<"session_before_compact">> => ({ session_operation: { action: "cancel" } }),
  },
  ui: {
    status: async (params, ctx): Promise<StatusItem<"status"> | null> => ({ text: \`\${todos.length} todos\`, priority: 1 }),
    header: async (params, ctx): Promise<StatusItem<"header"> | null> => ({ text: \`todos on the \${params.surface}\`, style_role: "extension.kinds.header" }),
  },
  context: async (params, ctx): Promise<ContextEntry[]> => [{ label: "todos", content: todos.join("\\n"), placement: "system_suffix" }],
  tool_renderers: {
    add_todo: async (params, ctx): Promise<RenderResult> => ({ segments: [{ text: \`add_todo · \${params.output ?? "running"}\`, style_role: params.is_error ? "error" : null }] }),
  },
  lifecycle: {
    "turn/settled": (params) => ext.notify(\`turn \${params.turn_id} \${params.outcome}\`),
  },
} satisfies Handlers;

await register(ext, handlers).run();
`;

/** A generated project with every slot implemented. */
export function implementedProject(): string {
  const dir = project("kinds", KINDS);
  expect(cli(dir, "gen").code).toBe(0);
  writeFileSync(join(dir, "src/extension.ts"), IMPLEMENTED);
  return dir;
}

