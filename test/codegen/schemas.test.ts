/**
 * Schemas are fully supported and never leak into generated names: local
 * `$ref`s resolve within their own schema, `title` and tool names cannot
 * collide with or break the generated module, and the runtime checks every
 * declared tool's arguments with validators compiled at gen time.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost } from "octet-extension/testing";
import { gen } from "../../codegen/index.ts";
import { project, removeProjects, typecheck } from "./helpers.ts";

afterAll(removeProjects);

const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");
const HEAD = 'name = "shapes"\nversion = "0.1.0"\napi_version = "0.2"\n\n';

describe("schemas in the generated module", () => {
  test("local $ref into definitions and $defs resolves within its own schema, not to another tool's type", async () => {
    const dir = project(
      "shapes",
      `${HEAD}[tools.hello]\ndescription = "Hello"\nparameters = { type = "object", properties = { who = { type = "string" } }, required = ["who"] }\n\n` +
        `[tools.trip]\ndescription = "Trip"\nparameters = { type = "object", properties = { from = { "$ref" = "#/definitions/HelloArgs" }, to = { "$ref" = "#/$defs/Place" } }, required = ["from", "to"], definitions = { HelloArgs = { type = "integer", minimum = 0, maximum = 1000 } }, "$defs" = { Place = { type = "object", properties = { city = { type = "string" } }, required = ["city"] } } }\n`,
    );
    await gen(dir);
    const module = read(dir, "src/extension.gen.ts");
    expect(module).toContain("export interface TripArgs {\n  from: number;\n  to: {\n    city: string;\n  };\n}");
    expect(module).toContain("export interface HelloArgs {\n  who: string;\n}");
    writeFileSync(join(dir, "src/extension.ts"), read(dir, "src/extension.ts").replace(/hello: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "hello: (args) => args.who,").replace(/trip: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "trip: (args) => `${args.from + 1} ${args.to.city}`,"));
    expect(typecheck([join(dir, "src/extension.ts")])).toEqual([]);
  });

  test("title never names, merges with or breaks a generated type; tsType cannot reach the module", async () => {
    const dir = project(
      "shapes",
      `${HEAD}[tools.one]\ndescription = "One"\nparameters = { type = "object", title = "Extension", properties = { h = { type = "object", title = "Handlers", properties = { x = { type = "string" } } }, t = { type = "string", title = "ToolHandlers" } } }\n`,
    );
    await gen(dir);
    const module = read(dir, "src/extension.gen.ts");
    expect(module).not.toContain("interface Extension");
    expect(module.match(/export interface Handlers \{/g)).toHaveLength(1);
    expect(module).toContain("export interface Handlers {\n  tools: ToolHandlers;\n  commands: CommandHandlers;\n  /** Lifecycle observers, each optional (octet sends only the events handled here). */\n  lifecycle?: LifecycleSlots;\n}");
    expect(module.match(/from "octet-extension";/g)).toHaveLength(1);
    expect(module).toContain("export interface OneArgs {\n  h?: {\n    x?: string;\n  };\n  t?: string;\n}");
    expect(typecheck([join(dir, "src/extension.ts")])).toEqual([]);
  });

  test("a recursive $ref becomes any JSON value in the type and is still validated", async () => {
    const dir = project(
      "shapes",
      `${HEAD}[tools.tree]\ndescription = "Tree"\nparameters = { type = "object", properties = { root = { "$ref" = "#/$defs/Node" } }, "$defs" = { Node = { type = "object", properties = { children = { type = "array", items = { "$ref" = "#/$defs/Node" } } } } } }\n`,
    );
    await gen(dir);
    expect(read(dir, "src/extension.gen.ts")).toContain("children?: unknown[];");
    expect(typecheck([join(dir, "src/extension.ts")])).toEqual([]);
  });

  test("tools named like Object.prototype members work end to end", async () => {
    const dir = project("shapes", `${HEAD}[tools.__proto__]\ndescription = "Proto"\nparameters = { type = "object", properties = { constructor = { type = "string" } }, required = ["constructor"] }\n\n[tools.constructor]\ndescription = "Ctor"\n\n[tools.toString]\ndescription = "ToString"\n`);
    await gen(dir);
    const source = read(dir, "src/extension.ts");
    expect(source).toContain('["__proto__"]: async (args, ctx): Promise<ToolReturn> => {');
    writeFileSync(
      join(dir, "src/extension.ts"),
      source
        .replace(/\["__proto__"\]: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, '["__proto__"]: (args) => `proto ${args.constructor}`,')
        .replace(/constructor: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, 'constructor: () => "ctor",')
        .replace(/toString: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, 'toString: () => "str",'),
    );
    expect(typecheck([join(dir, "src/extension.ts")])).toEqual([]);
    expect((await gen(dir, { check: true })).changed).toEqual([]);
    const host = await TestHost.start(dir);
    await host.initialize();
    expect(await host.callTool("__proto__", { constructor: "x" })).toEqual({ content: [{ type: "text", text: "proto x" }], is_error: false, metadata: {} });
    expect(await host.callTool("constructor", {})).toMatchObject({ is_error: false, content: [{ text: "ctor" }] });
    expect(await host.callTool("toString", {})).toMatchObject({ is_error: false, content: [{ text: "str" }] });
    expect(await host.callTool("__proto__", {})).toMatchObject({ is_error: true });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("the runtime keeps the generated types: arguments are checked before the handler", () => {
  const MANIFEST = `${HEAD}[tools.forecast]\ndescription = "Forecast"\nparameters = { type = "object", properties = { city = { type = "string", minLength = 2 }, days = { type = "integer", minimum = 1 }, tags = { type = "array", uniqueItems = true }, unit = { const = "metric" } }, required = ["city"], additionalProperties = false }\n\n[tools.raw]\ndescription = "Checks its own arguments"\nparameters = { type = "object", properties = { n = { type = "integer" } } }\nvalidate = false\n`;

  test("a mismatch is an is_error result naming the path and the rule; the handler does not run; validate = false opts out", async () => {
    const dir = project("shapes", MANIFEST);
    await gen(dir);
    expect(read(dir, "src/extension.validators.gen.ts")).not.toMatch(/require\(|from "ajv/);
    expect(read(dir, "src/extension.validators.gen.ts")).not.toContain('validators["raw"]');
    writeFileSync(
      join(dir, "src/extension.ts"),
      read(dir, "src/extension.ts")
        .replace(/forecast: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "forecast: (args) => `call ${++calls}: ${args.city}`,")
        .replace(/raw: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "raw: (args) => `raw got ${JSON.stringify(args)}`,")
        .replace("export const handlers", "let calls = 0;\n\nexport const handlers"),
    );
    expect(typecheck([join(dir, "src/extension.ts")])).toEqual([]);
    const host = await TestHost.start(dir);
    await host.initialize();
    const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
    const wrongType = await host.callTool("forecast", { city: 7 });
    expect(wrongType).toMatchObject({ is_error: true });
    expect(text(wrongType)).toBe("invalid arguments for tool `forecast`: /city must be string (rule: type). Call it again with arguments that match its parameters schema.");
    const several = text(await host.callTool("forecast", { days: 0, tags: [1, 1], unit: "imperial", extra: true, city: "x" }));
    expect(several).toContain("/city must NOT have fewer than 2 characters (rule: minLength)");
    expect(several).toContain("/days must be >= 1 (rule: minimum)");
    expect(several).toContain("/tags must NOT have duplicate items (items ## 0 and 1 are identical) (rule: uniqueItems)");
    expect(several).toContain("/unit must be equal to constant (rule: const)");
    expect(several).toContain("(arguments) must NOT have additional properties 'extra' (rule: additionalProperties)");
    expect(text(await host.callTool("forecast", {}))).toContain("(arguments) must have required property 'city' (rule: required)");
    expect(text(await host.callTool("forecast", [1]))).toContain("(arguments) must be object (rule: type)");
    // Only now does the handler run, for the first time.
    expect(await host.callTool("forecast", { city: "Oslo", days: 2, tags: ["a"], unit: "metric" })).toEqual({ content: [{ type: "text", text: "call 1: Oslo" }], is_error: false, metadata: {} });
    expect(text(await host.callTool("raw", { n: "not a number" }))).toBe('raw got {"n":"not a number"}');
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });
});

describe("integers beyond 2^53: number or, with format int64/uint64, bigint in the generated types and through the validators", () => {
  const MANIFEST =
    `${HEAD}[tools.ids]\ndescription = "Ids"\nparameters = { type = "object", properties = { ` +
    `id = { type = "integer", format = "uint64" }, small = { type = "integer", minimum = 0, maximum = 100 }, half = { type = "integer", format = "int64", minimum = 0 }, ` +
    `ratio = { type = "number", minimum = -1.5, maximum = 1.5 }, amount = { type = "number" }, either = { type = ["integer", "string"] }, ` +
    `list = { type = "array", items = { type = "integer", format = "int64" }, uniqueItems = true }, level = { enum = [1, 2] } }, required = ["id"], additionalProperties = false }\n`;

  test("integer and number schemas are number, int64 and uint64 bigint; bounds, enum and type still hold for big integers", async () => {
    const dir = project("shapes", MANIFEST);
    await gen(dir);
    const module = read(dir, "src/extension.gen.ts");
    expect(module).toContain(
      "export interface IdsArgs {\n  id: bigint;\n  small?: number;\n  half?: bigint;\n  ratio?: number;\n  amount?: number;\n  either?: number | string;\n  list?: bigint[];\n  level?: 1 | 2;\n}",
    );
    // Mixing a bigint with a number does not compile, and the type checker says so.
    writeFileSync(join(dir, "src/extension.ts"), read(dir, "src/extension.ts").replace(/ids: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "ids: (args) => `${args.id + 1}`,"));
    expect(typecheck([join(dir, "src/extension.ts")]).length).toBeGreaterThan(0);
    writeFileSync(
      join(dir, "src/extension.ts"),
      read(dir, "src/extension.ts").replace("ids: (args) => `${args.id + 1}`,", "ids: (args) => `${typeof args.id} ${args.id + 1n} ${(args.small ?? 0) + 1} ${JSON.stringify(args.list?.map(String))}`,"),
    );
    expect(typecheck([join(dir, "src/extension.ts")])).toEqual([]);

    const host = await TestHost.start(dir);
    await host.initialize();
    const call = async (id: number, args: string) => {
      host.sendRaw(`{"jsonrpc":"2.0","id":${id},"method":"tool/call","params":{"name":"ids","arguments":${args},"context":${JSON.stringify(host.executionContext())}}}`);
      return ((await host.waitForReply(id)).result as { content: { text: string }[]; is_error: boolean });
    };
    expect(await call(900, '{"id":18446744073709551615,"small":7}')).toMatchObject({ is_error: false, content: [{ text: 'bigint 18446744073709551616 8 undefined' }] });
    expect(await call(901, '{"id":9007199254740991}')).toMatchObject({ is_error: false, content: [{ text: "bigint 9007199254740992 1 undefined" }] });
    expect(await call(902, '{"id":9007199254740993,"half":9007199254740993,"list":[1,9007199254740993]}')).toMatchObject({
      is_error: false,
      content: [{ text: 'bigint 9007199254740994 1 ["1","9007199254740993"]' }],
    });
    // A number schema refuses what a number cannot hold exactly.
    const big = await call(908, '{"id":1,"amount":123456789012345678901234567890,"either":9007199254740993}');
    expect(big.is_error).toBe(true);
    expect(big.content[0]!.text).toContain("/amount must be within ±9007199254740991");
    expect(big.content[0]!.text).toContain("/either must be within ±9007199254740991");
    // Bounds still hold for big integers.
    const small = await call(903, '{"id":1,"small":18446744073709551615}');
    expect(small.is_error).toBe(true);
    expect(small.content[0]!.text).toContain("/small must be <= 100 (rule: maximum)");
    const ratio = await call(904, '{"id":1,"ratio":9007199254740993}');
    expect(ratio.content[0]!.text).toContain("/ratio must be <= 1.5 (rule: maximum)");
    const half = await call(905, '{"id":1,"half":-9007199254740993}');
    expect(half.content[0]!.text).toContain("/half must be >= 0 (rule: minimum)");
    const level = await call(906, '{"id":1,"level":9007199254740993}');
    expect(level.content[0]!.text).toContain("/level must be equal to one of the allowed values (rule: enum)");
    const text = await call(907, '{"id":"18446744073709551615"}');
    expect(text.content[0]!.text).toContain("/id must be integer (rule: type)");
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });
});
