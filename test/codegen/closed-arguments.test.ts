/**
 * Tool arguments (issue 25 item 3): an object schema in `parameters` that does
 * not state `additionalProperties` is closed, alike in the generated type, the
 * generated validator and the schema the initialize reply sends to octet.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost } from "octet-extension/testing";
import { project, removeProjects, typecheck } from "./helpers.ts";

afterAll(removeProjects);

const CLI = join(import.meta.dir, "../../codegen/cli.ts");
const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");

const MANIFEST = `name = "todo"
version = "0.1.0"
api_version = "0.4"
description = "Todos"

[tools.add]
description = "Add a todo"
parameters = { type = "object", properties = { title = { type = "string" }, due = { type = "object", properties = { day = { type = "integer" } } }, labels = { type = "object" }, notes = { type = "object", properties = { text = { type = "string" } }, additionalProperties = true }, kind = { anyOf = [{ type = "object", properties = { a = { type = "string" } }, required = ["a"] }, { type = "string" }] }, both = { allOf = [{ type = "object", properties = { x = { type = "string" } } }, { type = "object", properties = { y = { type = "string" } } }] } }, required = ["title"] }

[tools.ping]
description = "No arguments"
`;

function generated(): string {
  const dir = project("todo", MANIFEST);
  const run = Bun.spawnSync([process.execPath, CLI, "gen"], { cwd: dir, stderr: "pipe" });
  expect(run.stderr.toString()).toContain("wrote extension.toml");
  expect(run.exitCode).toBe(0);
  const file = join(dir, "src/extension.ts");
  writeFileSync(
    file,
    read(dir, "src/extension.ts")
      .replace(/(\n {4}add: [^\n]*\{\n)[\s\S]*?(\n {4}\},)/, "$1      return `stored ${JSON.stringify({ ...args })}`;$2")
      .replace(/(\n {4}ping: [^\n]*\{\n)[\s\S]*?(\n {4}\},)/, '$1      return "pong";$2'),
  );
  return dir;
}

describe("undeclared keys", () => {
  test("are refused at run time with an is_error result naming the key, before the handler runs", async () => {
    const dir = generated();
    const host = await TestHost.start(dir);
    const init = (await host.initialize()) as { tools: { name: string; parameters: Record<string, unknown> }[] };
    const text = async (name: string, args: unknown) => {
      const result = (await host.callTool(name, args)) as { is_error: boolean; content: { text: string }[] };
      return `${result.is_error ? "is_error: " : ""}${result.content[0]!.text}`;
    };
    expect(await text("add", { title: "a", colour: "red" })).toBe(
      "is_error: invalid arguments for tool `add`: (arguments) must NOT have additional properties 'colour' (rule: additionalProperties). Call it again with arguments that match its parameters schema.",
    );
    expect(await text("add", { title: "a", due: { day: 1, hour: 9 } })).toContain("/due must NOT have additional properties 'hour' (rule: additionalProperties)");
    expect(await text("add", { title: "a", kind: { a: "x", b: "y" } })).toContain("/kind must NOT have additional properties 'b' (rule: additionalProperties)");
    expect(await text("ping", { extra: 1 })).toContain("(arguments) must NOT have additional properties 'extra'");
    // What the schema leaves open stays open: a free-form object, a stated additionalProperties, an allOf.
    expect(await text("add", { title: "a", labels: { any: 1 }, notes: { text: "n", more: 2 }, both: { x: "1", y: "2" }, kind: "k" })).toBe(
      'stored {"title":"a","labels":{"any":1},"notes":{"text":"n","more":2},"both":{"x":"1","y":"2"},"kind":"k"}',
    );
    expect(await text("ping", {})).toBe("pong");
    // octet gets the same closed schema in the initialize reply.
    const add = init.tools.find((t) => t.name === "add")!.parameters as { additionalProperties: unknown; properties: Record<string, { additionalProperties?: unknown; anyOf?: { additionalProperties?: unknown }[] }> };
    expect(add.additionalProperties).toBe(false);
    expect(add.properties.due!.additionalProperties).toBe(false);
    expect(add.properties.notes!.additionalProperties).toBe(true);
    expect(add.properties.kind!.anyOf![0]!.additionalProperties).toBe(false);
    expect("additionalProperties" in add.properties.labels!).toBe(false);
    expect(init.tools.find((t) => t.name === "ping")!.parameters).toEqual({ type: "object", additionalProperties: false });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("are refused by the generated type too; what the validator leaves open the type leaves open", () => {
    const dir = generated();
    const file = join(dir, "src/extension.ts");
    const source = read(dir, "src/extension.ts");
    const check = (line: string) => {
      writeFileSync(file, source.replace("export const handlers", `import type { AddArgs } from "./extension.gen.ts";\n${line}\n\nexport const handlers`));
      return typecheck([file]).map((d) => d.text);
    };
    expect(check('const a: AddArgs = { title: "a", colour: "red" };').join("\n")).toContain("'colour' does not exist in type 'AddArgs'");
    expect(check('const a: AddArgs = { title: "a", due: { day: 1, hour: 9 } };').join("\n")).toContain("'hour' does not exist in type");
    expect(check('const a: AddArgs = { title: "a", labels: { any: 1 }, notes: { text: "n", more: 2 }, both: { x: "1", y: "2" }, kind: { a: "x" } };')).toEqual([]);
  });
});
