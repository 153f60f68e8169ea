/**
 * `octet-extension inspect` in a real terminal (tmux) on a tool with required
 * arguments: `call NAME`'s skeleton satisfies the tool's schema (Enter calls
 * it and the handler answers), Tab completes commands, tool names and slash
 * commands, also when tmux delivers several keys in one read, and keys typed
 * while a command runs are kept, cursor after them, when the prompt returns.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { compileSchema } from "../../codegen/ajv.ts";
import { removeProjects } from "../codegen/helpers.ts";
import { inspectInTerminal as terminal } from "./terminal.ts";
import { ADD_TODO_SCHEMA, type LoggedCall, todoProject } from "./todo-project.ts";

afterAll(removeProjects);

let dir = "";
let calls: () => LoggedCall[] = () => [];
let hold = "";

beforeAll(async () => {
  ({ dir, calls, hold } = await todoProject());
});

describe("octet-extension inspect: skeletons and Tab", () => {
  test("call NAME fills in arguments that satisfy the tool's schema; Enter calls the handler and gets a non-error result", async () => {
    const t = await terminal(dir);
    await t.waitFor("tools: add_todo, list_todos · commands: /todos · type help");
    t.keys("frames off", "Enter");
    t.keys("call add_todo", "Enter");
    const screen = await t.waitFor(/octet> call add_todo \{.*\}\s*$/);
    const skeleton = JSON.parse(/octet> call add_todo (\{.*\})\s*$/.exec(screen)![1]!);
    const validate = compileSchema(ADD_TODO_SCHEMA);
    expect({ skeleton, valid: validate(skeleton), errors: validate.errors ?? null }).toEqual({ skeleton, valid: true, errors: null });
    t.keys("Enter");
    await t.waitFor(`= {"content":[{"type":"text","text":"added ${skeleton.title}"}]`);
    expect(calls()).toEqual([{ tool: "add_todo", args: skeleton }]);
    t.keys("quit", "Enter");
    await t.waitFor("INSPECT-EXIT=0");
  }, 60_000);

  test("Tab completes a command, a tool name and a slash command, key by key and when the keys arrive in one read", async () => {
    const t = await terminal(dir);
    await t.waitFor("type help");
    t.keys("frames off", "Enter");
    // One send-keys: the terminal reads "ca\tlis\t" at once.
    t.keys("ca", "Tab", "lis", "Tab");
    await t.waitFor(/octet> call list_todos $/m);
    t.keys("C-u");
    // Typed one key at a time.
    for (const key of ["ca", "Tab", "add", "Tab"]) {
      t.keys(key);
      await Bun.sleep(150);
    }
    await t.waitFor(/octet> call add_todo $/m);
    t.keys("C-u", "/to", "Tab");
    await t.waitFor(/octet> \/todos$/m);
    t.keys("Enter");
    await t.waitFor('= {"text":"no todos"');
    // Two Tabs list the tool names.
    t.keys("call ", "Tab", "Tab");
    await t.waitFor(/call add_todo\s+call list_todos/);
    t.keys("C-u", "quit", "Enter");
    await t.waitFor("INSPECT-EXIT=0");
  }, 60_000);

  test("keys typed while a command runs stay on the line when the prompt returns, the cursor after them", async () => {
    const t = await terminal(dir);
    await t.waitFor("type help");
    writeFileSync(hold, ""); // /todos answers once this is gone
    t.keys("/todos", "Enter");
    await t.waitFor(/→ .*"method":"command\/execute"/);
    t.keys("too");
    await t.waitFor(/too$/m);
    rmSync(hold);
    await t.waitFor(/octet> too$/m);
    // Typed at the cursor: "tools" when it follows the typed-ahead keys, "lstoo" when the prompt moved it to the start.
    t.keys("ls", "Enter");
    const screen = await t.waitFor(/add_todo: Add a todo|unknown command/);
    expect(screen).not.toContain("unknown command");
    t.keys("quit", "Enter");
    await t.waitFor("INSPECT-EXIT=0");
  }, 60_000);
});
