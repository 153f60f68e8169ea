/**
 * A generated project for the conformance and inspect tests: its first tool,
 * `add_todo`, has required arguments (a `$ref`'d nested object, an enum,
 * minLength, a patterned array with minItems); every handler call is logged
 * to a file the test reads; the `todos` command answers only once the `hold`
 * file is gone (absent unless a test makes it).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gen } from "../../codegen/index.ts";
import { project } from "../codegen/helpers.ts";

const MANIFEST = `name = "todo"
version = "0.1.0"
api_version = "0.4"
description = "Todos with due dates"

[tools.add_todo]
description = "Add a todo"
parameters = "schemas/add_todo.json"

[tools.list_todos]
description = "List the todos"
parameters = { type = "object", properties = {} }

[commands.todos]
description = "Show the todos"
`;

export const ADD_TODO_SCHEMA = {
  type: "object",
  properties: {
    title: { type: "string", minLength: 1, maxLength: 80 },
    priority: { enum: ["low", "normal", "high"] },
    tags: { type: "array", items: { type: "string", pattern: "^[a-z][a-z0-9-]*$" }, minItems: 1, uniqueItems: true },
    due: { $ref: "#/$defs/Day" },
  },
  required: ["title", "priority", "tags", "due"],
  additionalProperties: false,
  $defs: {
    Day: {
      type: "object",
      properties: { year: { type: "integer", minimum: 2000, maximum: 2100 }, month: { type: "integer", minimum: 1, maximum: 12 }, day: { type: "integer", minimum: 1, maximum: 31 } },
      required: ["year", "month", "day"],
      additionalProperties: false,
    },
  },
};

/** Handlers that log each call (tool and arguments) to `log`, one JSON line each; `todos` waits while `hold` exists. */
const source = (log: string, hold: string) => `import { appendFileSync, existsSync } from "node:fs";
import { Extension } from "octet-extension";
import { type Handlers, register } from "./extension.gen.ts";

const record = (tool: string, args: unknown) => appendFileSync(${JSON.stringify(log)}, JSON.stringify({ tool, args }) + "\\n");

export const handlers = {
  tools: {
    add_todo: (args) => (record("add_todo", args), \`added \${args.title}\`),
    list_todos: (args) => (record("list_todos", args), "no todos"),
  },
  commands: {
    todos: async () => {
      while (existsSync(${JSON.stringify(hold)})) await Bun.sleep(10);
      return "no todos";
    },
  },
} satisfies Handlers;

await register(new Extension(), handlers).run();
`;

export interface LoggedCall {
  tool: string;
  args: Record<string, unknown>;
}

/** The todo project, generated, with its handlers; `calls()` returns (and forgets) the calls logged so far. */
export async function todoProject(): Promise<{ dir: string; calls(): LoggedCall[]; hold: string }> {
  const dir = project("todo", MANIFEST);
  mkdirSync(join(dir, "schemas"));
  writeFileSync(join(dir, "schemas/add_todo.json"), JSON.stringify(ADD_TODO_SCHEMA, null, 2));
  await gen(dir);
  const log = join(dir, "calls.log");
  const hold = join(dir, "todos.hold");
  writeFileSync(join(dir, "src/extension.ts"), source(log, hold));
  const calls = () => {
    if (!existsSync(log)) return [];
    const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
    writeFileSync(log, "");
    return lines.map((line) => JSON.parse(line) as LoggedCall);
  };
  return { dir, calls, hold };
}
