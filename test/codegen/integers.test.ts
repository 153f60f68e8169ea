/**
 * Integers in tool arguments (issue 25 item 4): `integer` and `number` are
 * `number`, and a literal a number cannot hold exactly is refused with the
 * fix; `format = "int64"`/`"uint64"` is `bigint` and always arrives as one,
 * exactly; results write a `bigint` exactly.
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

[tools.plan]
description = "Plan a todo"
parameters = { type = "object", properties = { days = { type = "integer" }, ratio = { type = "number" }, id = { type = "integer", format = "int64" }, size = { type = "integer", format = "uint64" }, parent = { type = ["integer", "null"], format = "int64" }, ids = { type = "array", items = { type = "integer", format = "int64" } }, steps = { type = "array", items = { type = "integer" } } } }

[tools.raw]
description = "Checks its own arguments"
parameters = { type = "object", properties = { id = { type = "integer", format = "int64" } } }
validate = false
`;

function generated(body: string): { dir: string; file: string } {
  const dir = project("todo", MANIFEST);
  const run = Bun.spawnSync([process.execPath, CLI, "gen"], { cwd: dir, stderr: "pipe" });
  expect(run.stderr.toString()).toContain("wrote extension.toml");
  expect(run.exitCode).toBe(0);
  const file = join(dir, "src/extension.ts");
  writeFileSync(
    file,
    read(dir, "src/extension.ts")
      .replace(/(\n {4}plan: [^\n]*\{\n)[\s\S]*?(\n {4}\},)/, `$1      ${body}$2`)
      .replace(/(\n {4}raw: [^\n]*\{\n)[\s\S]*?(\n {4}\},)/, "$1      return `raw ${typeof args.id} ${args.id}`;$2"),
  );
  return { dir, file };
}

describe("integer and number arguments", () => {
  test("are number in the generated type: arithmetic compiles without bounds; int64 and uint64 are bigint", () => {
    const { dir, file } = generated("return `${args.days! * 24} ${args.days?.toFixed()} ${args.ratio! / 2} ${(args.id ?? 0n) + 1n} ${args.size! * 2n} ${args.parent === null ? 'none' : args.parent! + 1n} ${args.ids?.map((i) => i + 1n)} ${args.steps?.map((s) => s * 2)}`;");
    expect(read(dir, "src/extension.gen.ts")).toContain(
      "export interface PlanArgs {\n  days?: number;\n  ratio?: number;\n  id?: bigint;\n  size?: bigint;\n  parent?: bigint | null;\n  ids?: bigint[];\n  steps?: number[];\n}",
    );
    // Without a validator nothing converts: the type says what may arrive.
    expect(read(dir, "src/extension.gen.ts")).toContain("export interface RawArgs {\n  id?: number | bigint;\n}");
    expect(typecheck([file])).toEqual([]);
  });

  test("a literal beyond ±(2^53−1) typed number is refused with the path and the fix; int64 arrives as bigint, exactly", async () => {
    const { dir } = generated("return { content: `${typeof args.days} ${args.days} ${typeof args.id} ${args.id} ${typeof args.size} ${args.parent} ${args.ids?.map((i) => typeof i)}`, metadata: { id: args.id ?? null, next: args.id === undefined ? null : args.id + 1n } };");
    const host = await TestHost.start(dir);
    await host.initialize();
    let id = 900;
    const call = async (args: string) => {
      host.sendRaw(`{"jsonrpc":"2.0","id":${++id},"method":"tool/call","params":{"name":"plan","arguments":${args},"context":${JSON.stringify(host.executionContext())}}}`);
      return (await host.waitForReply(id)).result as { content: { text: string }[]; is_error: boolean; metadata: Record<string, unknown> };
    };
    const tooBig = await call('{"days":9007199254740992}');
    expect(tooBig.is_error).toBe(true);
    expect(tooBig.content[0]!.text).toBe(
      'invalid arguments for tool `plan`: /days must be within ±9007199254740991 to arrive exactly as a number (to accept larger integers, declare it with format = "int64" in manifest.toml: it then arrives as a bigint) (rule: safeInteger). Call it again with arguments that match its parameters schema.',
    );
    expect((await call('{"steps":[1,-9007199254740993]}')).content[0]!.text).toContain("/steps/1 must be within ±9007199254740991");
    expect((await call('{"ratio":123456789012345678901234567890}')).content[0]!.text).toContain("/ratio must be within ±9007199254740991");
    // The largest safe integer and fractions are numbers as before.
    expect(await call('{"days":9007199254740991,"ratio":0.5}')).toMatchObject({ is_error: false, content: [{ text: "number 9007199254740991 undefined undefined undefined undefined undefined" }] });
    // int64: a small value arrives as a bigint too, a big one exactly, in properties, nullable types and array items.
    const small = await call('{"id":5,"size":0,"parent":7,"ids":[1,9007199254740993]}');
    expect(small).toMatchObject({ is_error: false, content: [{ text: "undefined undefined bigint 5 bigint 7 bigint,bigint" }] });
    // 5n + 1n went out as 6: the wire has no bigint type, and the test host reads small integers as numbers.
    expect(small.metadata).toEqual({ id: 5, next: 6 });
    const exact = await call('{"id":9007199254740993,"parent":null}');
    expect(exact).toMatchObject({ is_error: false, content: [{ text: "undefined undefined bigint 9007199254740993 undefined null undefined" }] });
    // Results write a bigint exactly: the reply's text holds every digit.
    expect(exact.metadata).toEqual({ id: 9007199254740993n, next: 9007199254740994n });
    expect(host.transcript.some((e) => e.from === "extension" && e.text.includes('"metadata":{"id":9007199254740993,"next":9007199254740994}'))).toBe(true);
    // The formats' ranges are checked exactly.
    expect((await call('{"id":9223372036854775808}')).content[0]!.text).toContain("/id must be an int64 (-9223372036854775808 to 9223372036854775807) (rule: format)");
    expect((await call('{"size":-1}')).content[0]!.text).toContain("/size must be a uint64 (0 to 18446744073709551615) (rule: format)");
    expect(await call('{"size":18446744073709551615}')).toMatchObject({ is_error: false });
    expect((await call('{"id":1.5}')).content[0]!.text).toContain("/id must be integer (rule: type)");
    expect(await host.callTool("raw", { id: 5 })).toMatchObject({ is_error: false, content: [{ text: "raw number 5" }] });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("format int64 on a type that is not integer is refused by gen with the key and the fix", () => {
    const dir = project("todo", MANIFEST.replace('id = { type = "integer", format = "int64" }', 'id = { type = "number", format = "int64" }'));
    const run = Bun.spawnSync([process.execPath, CLI, "gen"], { cwd: dir, stderr: "pipe" });
    expect(run.exitCode).toBe(1);
    expect(run.stderr.toString()).toContain('manifest.toml: tools.plan.parameters/properties/id/format: "int64" needs type = "integer"');
  });
});
