/**
 * The scaffold's package.json scripts, run as an author runs them (issue 25
 * item 6): `octet-extension` is on no PATH but node_modules/.bin, so `call`,
 * `inspect`, `dev` and `conformance` are scripts; `bun run call hello '{…}'`
 * passes its arguments through; the test script fails on stale generated
 * files. The project's packages are links to this checkout (the registry
 * route is test/registry/journey.test.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTemporaryDirectory, temporaryDirectory } from "octet-extension/testing";
import { scaffold } from "../../templates/create-octet-extension/scaffold.js";

const REPO = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) removeTemporaryDirectory(root);
});

/** A scaffolded project `notes` whose node_modules link this checkout's packages and toolchain. */
function linkedProject(): string {
  const root = temporaryDirectory("octet-scripts-");
  roots.push(root);
  const dir = scaffold(join(root, "notes"));
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, ".bin"), { recursive: true });
  mkdirSync(join(modules, "@types"));
  symlinkSync(join(REPO, "src"), join(modules, "octet-extension"));
  symlinkSync(join(REPO, "codegen"), join(modules, "octet-extension-tools"));
  symlinkSync(join(REPO, "node_modules/typescript"), join(modules, "typescript"));
  symlinkSync(join(REPO, "node_modules/@types/bun"), join(modules, "@types/bun"));
  symlinkSync("../octet-extension-tools/cli.ts", join(modules, ".bin/octet-extension"));
  symlinkSync("../typescript/bin/tsc", join(modules, ".bin/tsc"));
  return dir;
}

/** A PATH with Bun (as `bun`) and the system's tools, nothing of this checkout. */
const BIN = (() => {
  const bin = temporaryDirectory("octet-scripts-bin-");
  symlinkSync(realpathSync(process.execPath), join(bin, "bun"));
  return bin;
})();

function sh(command: string, cwd: string): { code: number; out: string; err: string } {
  const run = Bun.spawnSync(["/bin/sh", "-c", command], { cwd, env: { PATH: `${BIN}:/usr/local/bin:/usr/bin:/bin`, HOME: cwd }, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode ?? -1, out: run.stdout.toString(), err: run.stderr.toString() };
}

describe("the scaffold's scripts", () => {
  test("package.json runs the author's loop through node_modules/.bin: call, inspect, dev, conformance; test checks first", () => {
    const pkg = JSON.parse(readFileSync(join(linkedProject(), "package.json"), "utf8"));
    expect(pkg.scripts).toMatchObject({
      call: "octet-extension call",
      inspect: "octet-extension inspect",
      dev: "octet-extension dev",
      conformance: "octet-extension conformance",
      test: "octet-extension check && bun test",
    });
  });

  test("bun run call hello '{\"name\":\"Ada\"}' passes the arguments through and prints the answer; conformance runs; the test script passes, then fails on a manifest changed without gen", () => {
    const dir = linkedProject();
    expect(sh("bun run gen", dir).code).toBe(0);
    const called = sh(`bun run call hello '{"name":"Ada"}'`, dir);
    expect({ code: called.code, out: called.out }).toEqual({ code: 0, out: "Hello, Ada!\n" });
    // The README's form: `--` keeps npm from reading call's options; Bun drops it too.
    const quiet = sh(`bun run call -- hello '{"name":"Ada"}' --quiet`, dir);
    expect({ code: quiet.code, out: quiet.out }).toEqual({ code: 0, out: "Hello, Ada!\n" });
    const conformance = sh("bun run conformance", dir);
    expect(conformance.code).toBe(0);
    expect(conformance.out).toContain("PASS  initialize");
    const tested = sh("bun run test", dir);
    expect(tested.code).toBe(0);
    expect(tested.err).toMatch(/\b2 pass\b/);
    const manifest = join(dir, "manifest.toml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace("Greet someone by name", "Greet someone warmly"));
    const stale = sh("bun run test", dir);
    expect(stale.code).not.toBe(0);
    expect(stale.err).toContain("stale: src/extension.gen.ts");
    expect(stale.err).not.toMatch(/\bpass\b/);
  }, 120_000);

  test("a handler reads ctx.workspace and ctx.scratch, typed: the project type-checks and call --scratch shows both", () => {
    const dir = linkedProject();
    expect(sh("bun run gen", dir).code).toBe(0);
    const source = join(dir, "src/extension.ts");
    writeFileSync(source, readFileSync(source, "utf8").replace("hello: (args) => `Hello, ${args.name}!`", "hello: (args, ctx) => `${args.name} in ${ctx.workspace.length > 0 ? ctx.workspace : \"?\"}, scratch ${ctx.scratch.toString()}`"));
    const typecheck = sh("bun run typecheck", dir);
    expect({ code: typecheck.code, out: typecheck.out }).toMatchObject({ code: 0 });
    const scratch = join(temporaryDirectory("octet-scripts-scratch-"), "kept");
    const called = sh(`bun run call hello '{"name":"Ada"}' --quiet --scratch ${scratch}`, dir);
    expect({ code: called.code, out: called.out }).toEqual({ code: 0, out: `Ada in ${realpathSync(dir)}, scratch ${scratch}\n` });
  }, 120_000);
});
