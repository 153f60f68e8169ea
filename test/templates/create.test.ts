import { describe, expect, test } from "bun:test";
import { temporaryDirectory } from "octet-extension/testing";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TSCONFIG } from "../codegen/helpers.ts";

// The initializer alone (no install). The whole journey, from a registry, is test/registry/journey.test.ts.
const INIT = join(import.meta.dir, "../../templates/create-octet-extension/index.js");
const NODE = Bun.which("node");

function create(runtime: string, args: string[], agent?: string) {
  const cwd = temporaryDirectory("octet-create-");
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: cwd };
  if (agent !== undefined) env.npm_config_user_agent = agent;
  const result = Bun.spawnSync([runtime, INIT, ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  return { cwd, exitCode: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() };
}

const packageOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

describe("create-octet-extension", () => {
  test("under bun create: the kit from the registry, tools and type checking as dev dependencies, no Bun dependency", () => {
    const run = create(process.execPath, ["weather"], "bun/1.4.4 npm/? node/v24.3.0 linux x64");
    expect(run.exitCode).toBe(0);
    expect(run.out).toContain("bun install");
    const pkg = packageOf(join(run.cwd, "weather"));
    expect(pkg.dependencies).toEqual({ "octet-extension": "^0.1.0" });
    expect(pkg.devDependencies).toEqual({ "@types/bun": "1.4.4", "octet-extension-tools": "^0.1.0", typescript: "^5.9.3" });
    expect(pkg.scripts).toMatchObject({ gen: "octet-extension gen", typecheck: "tsc --noEmit -p .", test: "octet-extension check && bun test", build: "octet-extension build", postinstall: "octet-extension gen" });
    expect(readFileSync(join(run.cwd, "weather/manifest.toml"), "utf8")).toContain('name = "weather"');
    // The codegen tests type-check projects with exactly the scaffold's settings.
    expect(readFileSync(join(run.cwd, "weather/tsconfig.json"), "utf8")).toBe(TSCONFIG);
  });

  test("under npm create (Node only): Bun comes as a dev dependency and the steps use npm", () => {
    expect(NODE).not.toBeNull();
    const run = create(NODE!, ["weather"], "npm/11.6.2 node/v20.20.2 linux x64 workspaces/false");
    expect(run.exitCode).toBe(0);
    expect(run.out).toContain("npm install");
    expect(packageOf(join(run.cwd, "weather")).devDependencies.bun).toBe("1.4.4");
  });

  test("--link takes both packages from bun link", () => {
    const run = create(process.execPath, ["weather", "--link"], "bun/1.4.4");
    const pkg = packageOf(join(run.cwd, "weather"));
    expect(pkg.dependencies["octet-extension"]).toBe("link:octet-extension");
    expect(pkg.devDependencies["octet-extension-tools"]).toBe("link:octet-extension-tools");
  });

  test("a bad name, a non-empty directory, an unknown option and no name are refused with a clear error; nothing is created", () => {
    const bad = create(process.execPath, ["Bad_Name"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.err).toContain('"Bad_Name" cannot name an octet extension');
    expect(existsSync(join(bad.cwd, "Bad_Name"))).toBe(false);
    const unknown = create(process.execPath, ["weather", "--frobnicate"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.err).toContain("unknown option --frobnicate");
    expect(existsSync(join(unknown.cwd, "weather"))).toBe(false);
    const none = create(process.execPath, []);
    expect(none.exitCode).toBe(2);
    expect(none.err).toContain("name the extension to create");
    const first = create(process.execPath, ["weather"]);
    const again = Bun.spawnSync([process.execPath, INIT, "weather"], { cwd: first.cwd, stdout: "pipe", stderr: "pipe" });
    expect(again.exitCode).toBe(1);
    expect(again.stderr.toString()).toContain("exists and is not empty");
  });
});
