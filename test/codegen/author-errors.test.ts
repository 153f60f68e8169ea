/**
 * Every bad input a new author hit (issue 10) gets one line from the CLI —
 * `error: FILE: KEY: problem (fix)`, or FILE:LINE:COLUMN for TOML — with no
 * stack trace, and nothing is written.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";
import { project, removeProjects, REPO, WEATHER } from "./helpers.ts";

afterAll(removeProjects);

const CLI = join(REPO, "codegen/cli.ts");

function cli(dir: string, ...args: string[]) {
  const run = Bun.spawnSync([process.execPath, CLI, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  return { exitCode: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

const TOOL = (parameters: string) => `${WEATHER}\n[tools.hello]\ndescription = "Say hello"\nparameters = ${parameters}\n`;

const CASES: [string, string, RegExp][] = [
  ["generated = the source file", `${WEATHER}\n[source]\ngenerated = "src/extension.ts"\n`, /manifest\.toml: source\.generated: "src\/extension\.ts" does not end in "\.gen\.ts" \(generated files end in "\.gen\.ts"/],
  ["generated = the manifest", `${WEATHER}\n[source]\ngenerated = "manifest.toml"\n`, /manifest\.toml: source\.generated: "manifest\.toml" is a file the tooling owns/],
  ["generated outside the project", `${WEATHER}\n[source]\ngenerated = "../../escape.gen.ts"\n`, /source\.generated: "\.\.\/\.\.\/escape\.gen\.ts" is outside the project \(keep it inside/],
  ["generated absolute", `${WEATHER}\n[source]\ngenerated = "/tmp/escape.gen.ts"\n`, /source\.generated: "\/tmp\/escape\.gen\.ts" is absolute/],
  ["file = the manifest", `${WEATHER}\n[source]\nfile = "manifest.toml"\n`, /source\.file: "manifest\.toml" is a file the tooling owns/],
  ["file = a generated name", `${WEATHER}\n[source]\nfile = "src/extension.gen.ts"\n`, /source\.file: "src\/extension\.gen\.ts" is not a handwritten \.ts file/],
  ["dangling $ref", TOOL('{ type = "object", properties = { a = { "$ref" = "#/definitions/Nope" } } }'), /tools\.hello\.parameters\/properties\/a\/\$ref: "#\/definitions\/Nope" points at nothing in this schema/],
  ["$ref to another tool's type", TOOL('{ type = "object", properties = { a = { "$ref" = "#/definitions/GetForecastArgs" } } }'), /tools\.hello\.parameters\/properties\/a\/\$ref: "#\/definitions\/GetForecastArgs" points at nothing/],
  ["remote $ref", TOOL('{ type = "object", properties = { a = { "$ref" = "https://example.com/s.json" } } }'), /is not a local reference \(refer into the same schema/],
  ['type = "strin"', TOOL('{ type = "object", properties = { a = { type = "strin" } } }'), /tools\.hello\.parameters\/properties\/a\/type: "strin" is not allowed \(use one of "array", "boolean", "integer", "null", "number", "object", "string"\)/],
  ["properties = 5", TOOL('{ type = "object", properties = 5 }'), /tools\.hello\.parameters\/properties: must be object/],
  ['required = "a"', TOOL('{ type = "object", properties = { a = { type = "string" } }, required = "a" }'), /tools\.hello\.parameters\/required: must be array/],
  ["misspelt keyword", TOOL('{ type = "object", properties = { a = { type = "string" } }, requried = ["a"] }'), /tools\.hello\.parameters\/requried: unknown keyword `requried` \(remove it or fix its spelling/],
  ["tsType", TOOL('{ type = "object", properties = { a = { type = "string", tsType = "any; export const x = 1" } } }'), /tools\.hello\.parameters\/properties\/a: `tsType` is a code-generator keyword, not JSON Schema/],
  ["tsEnumNames", TOOL('{ type = "object", properties = { a = { enum = ["x"], tsEnumNames = ["X"] } } }'), /`tsEnumNames` is a code-generator keyword/],
  ["draft-04", TOOL('{ "$schema" = "http://json-schema.org/draft-04/schema#", type = "object" }'), /tools\.hello\.parameters\/\$schema: "http:\/\/json-schema\.org\/draft-04\/schema#" is not a supported JSON Schema draft/],
  ["parameters not an object schema", TOOL('{ type = "array" }'), /tools\.hello\.parameters: must describe an object/],
  ["lifecycel typo", `${WEATHER}\n[runtime]\nlifecycel = "oneshot"\n`, /manifest\.toml: runtime\.lifecycel: unknown key \(allowed: lifecycle, sharing/],
  ['lifecycle = "forever"', `${WEATHER}\n[runtime]\nlifecycle = "forever"\n`, /runtime\.lifecycle: "forever" is not one of octet's values \(use one of legacy_resident, lazy_resident, oneshot/],
  ['lifecycle = ["a"]', `${WEATHER}\n[runtime]\nlifecycle = ["a"]\n`, /runtime\.lifecycle: must be a string, not an array/],
  ["runtime = 5", `runtime = 5\n${WEATHER}`, /manifest\.toml: runtime: must be a table/],
  ["always without workspace sharing", `${WEATHER}\n[runtime]\nlifecycle = "always"\n`, /runtime\.lifecycle: "always" requires sharing = "workspace"/],
  ["workspace sharing on the default lifecycle", `${WEATHER}\n[runtime]\nsharing = "workspace"\n`, /runtime\.sharing: "legacy_resident" \(the default lifecycle\) requires sharing = "isolated"/],
  ["workspace sharing on API 0.1", `${WEATHER.replace('api_version = "0.2"', 'api_version = "0.1"')}\n[runtime]\nlifecycle = "always"\nsharing = "workspace"\n`, /runtime\.sharing: "workspace" sharing requires api_version 0\.2/],
  ["validate not a boolean", `${WEATHER}\n[tools.hello]\ndescription = "x"\nvalidate = "no"\n`, /tools\.hello\.validate: must be true or false/],
  ["menu on API 0.1", `${WEATHER.replace('api_version = "0.2"', 'api_version = "0.1"').replace("[contributes]", "[contributes]\nmenu = true")}`, /contributes\.menu: requires api_version 0\.2/],
];

describe("author-tool errors are one line naming file, key and fix; nothing is written", () => {
  test.each(CASES)("%s", (_name, manifest, pattern) => {
    const dir = project("weather", manifest);
    const before = readdirSync(dir).sort();
    const run = cli(dir, "gen");
    expect(run.exitCode).toBe(1);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(`error: ${join(dir, "manifest.toml")}`);
    expect(lines[0]).toMatch(pattern);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  test("a TOML syntax error names the line and column", () => {
    const dir = project("weather", 'name = "weather"\nversion = "0.1.0"\napi_version = \ndescription = "x"\n');
    const run = cli(dir, "gen");
    expect(run.exitCode).toBe(1);
    expect(run.stderr.trimEnd()).toBe(`error: ${join(dir, "manifest.toml")}:3:15: invalid TOML: Missing value after '='; values must be on the same line (fix the TOML syntax at that line and column)`);
  });

  test("an unexpected failure is one line too, and --debug adds the stack", () => {
    const dir = project("weather", WEATHER);
    mkdirSync(join(dir, "src"));
    // A directory where gen must write a file: not a manifest problem, but still no crash dump.
    mkdirSync(join(dir, "extension.toml"));
    const run = cli(dir, "gen");
    expect(run.exitCode).toBe(1);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("run again with --debug for the stack");
    const debug = cli(dir, "gen", "--debug");
    expect(debug.exitCode).toBe(1);
    expect(debug.stderr).toMatch(/\n\s+at /);
  }, 30_000);

  test("build on stale files, and call with bad arguments, fail in one line", () => {
    const dir = project("weather", WEATHER);
    expect(cli(dir, "gen").exitCode).toBe(0);
    writeFileSync(join(dir, "manifest.toml"), WEATHER.replace("Get the forecast", "Get a forecast"));
    const build = cli(dir, "build");
    expect(build.exitCode).toBe(1);
    expect(build.stderr.trimEnd()).toBe("error: src/extension.gen.ts is stale: run `bun run gen`, then build again");
    expect(existsSync(join(dir, "dist"))).toBe(false);
    for (const [args, message] of [
      [["get_forecast", "[1,2]"], "error: tool arguments must be a JSON object, not an array"],
      [["get_forecast", '"Oslo"'], "error: tool arguments must be a JSON object, not string"],
      [["get_forecast", "{city"], "error: the arguments are not JSON"],
    ] as const) {
      const call = cli(dir, "call", ...args);
      expect(call.exitCode).toBe(2);
      expect(call.stdout).toStartWith(message);
      expect(call.stdout).not.toContain("→"); // refused before the extension was started
    }
  }, 30_000);

  test("--requires-octet without a value is refused", () => {
    const run = cli(temporaryDirectory("cli-"), "build", "--requires-octet");
    expect(run.exitCode).toBe(1);
    expect(run.stderr.trimEnd()).toBe("error: --requires-octet needs a value");
  });

  test("smaller checks: a name that differs from the directory, a missing or inexact requires_octet, a tool answering is_error", async () => {
    const other = project("weather-dev", WEATHER);
    expect(cli(other, "gen").stderr).toContain('warning: the project directory is "weather-dev" but name = "weather": octet loads an extension only from a directory named like it');
    const dir = project("weather", WEATHER);
    expect(cli(dir, "gen").stderr).not.toContain("warning:");
    rmSync(join(dir, "tsconfig.json"));
    const missing = cli(dir, "build");
    expect(missing.stderr).toContain("warning: no requires_octet: octet installs a bundle only with an exact one");
    expect(missing.stderr.trimEnd().split("\n").at(-1)).toBe(`error: ${join(dir, "tsconfig.json")} is missing: build type-checks the project first — add one (see docs/manifest.md) or pass --skip-typecheck`);
    expect(cli(dir, "build", "--requires-octet", "^0.8.0").stderr).toContain('warning: requires_octet = "^0.8.0" is not exact');
    expect(cli(dir, "build", "--requires-octet", "=0.8.0").stderr).not.toContain("requires_octet");
    // gen's stubs throw: the tool answers is_error, and call says so with exit status 1.
    const call = cli(dir, "call", "get_forecast", '{"city":"Oslo"}');
    expect(call.exitCode).toBe(1);
    expect(call.stdout).toContain("! the tool answered is_error: true");
    expect(call.stdout).toContain('"is_error":true');
  }, 60_000);
});
