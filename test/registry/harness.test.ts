/**
 * Self-test of the private-registry harness (registry.ts): the lockfile
 * closure on a synthetic lockfile, then one Verdaccio filled with real
 * tarballs from npm's cache and a scoped package made here, installed from
 * with npm and with bun in throwaway HOMEs that can reach nothing but
 * loopback.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  clientEnv,
  findNode,
  lockfileClosure,
  npmCommand,
  packFromNpmCache,
  publishTarball,
  type PackageSpec,
  type Registry,
  run,
  startRegistry,
  writeClientConfig,
} from "./registry.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const LOCKFILE = join(ROOT, "package-lock.json");
const BUN = realpathSync(join(ROOT, "node_modules/.bin/bun"));

const scratch: string[] = [];
function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const key = (spec: PackageSpec) => `${spec.name}@${spec.version}`;
const keys = (specs: PackageSpec[]) => specs.map(key).sort();

// ---------------------------------------------------------------------------
// lockfileClosure on a synthetic lockfile

const SYNTHETIC = {
  name: "proj",
  lockfileVersion: 3,
  packages: {
    "": { name: "proj", workspaces: ["ws/tool"], dependencies: { a: "^1" }, devDependencies: { "dev-only": "1" } },
    "node_modules/a": {
      version: "1.0.0",
      dependencies: { b: "^1", c: "^2", bundled: "1" },
      optionalDependencies: { opt: "1", "opt-missing": "1" },
      peerDependencies: { "peer-present": "*", "peer-missing": "*" },
    },
    "node_modules/a/node_modules/c": { version: "2.0.0", dependencies: { d: "1" } },
    "node_modules/a/node_modules/bundled": { version: "1.0.0", inBundle: true },
    "node_modules/b": { version: "1.0.0", dependencies: { c: "^1", d: "1" } },
    "node_modules/c": { version: "1.0.0" },
    "node_modules/d": { version: "1.0.0" },
    "node_modules/opt": { version: "1.0.0", optional: true },
    "node_modules/peer-present": { version: "1.0.0", peer: true },
    "node_modules/dev-only": { version: "1.0.0", dev: true },
    "node_modules/tool": { resolved: "ws/tool", link: true },
    "ws/tool": { name: "tool", version: "0.1.0", dependencies: { f: "1", "@s/x": "1", aliased: "npm:real-name@1" }, devDependencies: { "dev-only": "1" } },
    "ws/tool/node_modules/f": { version: "2.0.0" },
    "node_modules/f": { version: "1.0.0" },
    "node_modules/@s/x": { version: "1.0.0", dependencies: { e: "3", d: "1" } },
    "node_modules/@s/x/node_modules/e": { version: "3.0.0" },
    "node_modules/e": { version: "1.0.0" },
    "node_modules/aliased": { name: "real-name", version: "1.2.3" },
    "node_modules/broken": { version: "1.0.0", dependencies: { nowhere: "1" } },
    "node_modules/git-dep": { version: "1.0.0", resolved: "git+ssh://git@example.invalid/x.git#abc" },
    "node_modules/uses-git": { version: "1.0.0", dependencies: { "git-dep": "1" } },
  },
};

test("lockfileClosure resolves like Node, follows workspace links and skips what is not a registry package", () => {
  const dir = scratchDir("octet-lock-");
  const lockfile = join(dir, "package-lock.json");
  writeFileSync(lockfile, JSON.stringify(SYNTHETIC));

  // a's c is its nested 2.0.0 (which finds d at the top); b's c is the top-level 1.0.0.
  // Present optional and peer dependencies are followed, missing ones skipped, the bundled one not listed.
  expect(keys(lockfileClosure(lockfile, ["a"]))).toEqual(["a@1.0.0", "b@1.0.0", "c@1.0.0", "c@2.0.0", "d@1.0.0", "opt@1.0.0", "peer-present@1.0.0"]);
  expect(lockfileClosure(lockfile, ["a"]).map(key)[0]).toBe("a@1.0.0");

  // A workspace by package name (a link) or by folder: its dependencies from its own folder, itself not listed,
  // devDependencies not followed; an alias is listed under its real name.
  const tool = ["@s/x@1.0.0", "d@1.0.0", "e@3.0.0", "f@2.0.0", "real-name@1.2.3"];
  expect(keys(lockfileClosure(lockfile, ["tool"]))).toEqual(tool);
  expect(keys(lockfileClosure(lockfile, ["ws/tool"]))).toEqual(tool);

  // The root project, and deduplication across roots.
  expect(keys(lockfileClosure(lockfile, [""]))).toEqual(keys(lockfileClosure(lockfile, ["a"])));
  const both = lockfileClosure(lockfile, ["a", "tool", "b"]);
  expect(both.length).toBe(new Set(both.map(key)).size);
  expect(keys(both)).toEqual([...new Set([...keys(lockfileClosure(lockfile, ["a"])), ...tool])].sort());

  // Non-registry entries are followed but not listed.
  expect(keys(lockfileClosure(lockfile, ["uses-git"]))).toEqual(["uses-git@1.0.0"]);

  expect(() => lockfileClosure(lockfile, ["broken"])).toThrow(/nowhere/);
  expect(() => lockfileClosure(lockfile, ["no-such-root"])).toThrow(/no-such-root/);
});

test("lockfileClosure on the project lockfile", () => {
  const closure = lockfileClosure(LOCKFILE, ["json-schema-to-typescript"]);
  const names = keys(closure);
  expect(names).toContain("json-schema-to-typescript@16.0.0");
  // Two versions of one name: the nested one under json-schema-ref-parser and the top-level one.
  expect(names).toContain("js-yaml@4.3.2");
  expect(names).toContain("js-yaml@5.5.0");
  expect(names.length).toBe(new Set(names).size);
  // Every optional platform package of bun is reached.
  const bun = lockfileClosure(LOCKFILE, ["bun"]);
  expect(bun.filter((spec) => spec.name.startsWith("@oven/bun-")).length).toBe(12);
});

// ---------------------------------------------------------------------------
// A registry, filled and installed from

let registry: Registry;
beforeAll(async () => {
  registry = await startRegistry();
});
afterAll(async () => {
  await registry?.stop();
  expect(existsSync(registry.dir)).toBe(false);
});

/** A private bin dir with bun and node, and the PATH that puts it first. */
function privatePath(): string {
  const bin = scratchDir("octet-bin-");
  symlinkSync(BUN, join(bin, "bun"));
  symlinkSync(realpathSync(findNode()), join(bin, "node"));
  return [bin, dirname(findNode()), "/usr/bin", "/bin"].join(":");
}

/** An npm tarball of a scoped package made on the spot. */
async function makeScopedTarball(version: string, extra: Record<string, unknown>): Promise<string> {
  const dir = scratchDir("octet-pkg-");
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "index.js"), `module.exports = ${JSON.stringify(`hello ${version}`)};\n`);
  writeFileSync(join(dir, "bin/hello.js"), `#!/usr/bin/env node\nconsole.log(require("../index.js"));\n`);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "@octet-harness/hello", version, main: "index.js", bin: { "octet-hello": "bin/hello.js" }, ...extra }, null, 2));
  const packed = await run([...npmCommand(), "pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: dir });
  expect(packed.code).toBe(0);
  const [info] = JSON.parse(packed.stdout) as { filename: string }[];
  return join(dir, info!.filename);
}

function lockIntegrity(spec: PackageSpec): string | undefined {
  const lock = JSON.parse(readFileSync(LOCKFILE, "utf8")) as { packages: Record<string, { version?: string; integrity?: string; name?: string }> };
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (location.endsWith(`node_modules/${spec.name}`) && entry.version === spec.version) return entry.integrity;
  }
  return undefined;
}

test("packs from npm's cache, publishes, and npm and bun install from the registry alone", async () => {
  const url = registry.url;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

  // Original tarballs out of npm's cache: the closure of json-schema-ref-parser
  // (js-yaml 4 and argparse 2) plus the top-level js-yaml 5 and argparse 3.
  const wanted = [...lockfileClosure(LOCKFILE, ["@apidevtools/json-schema-ref-parser"]), { name: "js-yaml", version: "5.5.0" }, { name: "argparse", version: "3.0.4" }];
  expect(keys(wanted)).toEqual(["@apidevtools/json-schema-ref-parser@11.9.3", "@jsdevtools/ono@7.1.3", "@types/json-schema@7.0.15", "argparse@2.0.1", "argparse@3.0.4", "js-yaml@4.3.2", "js-yaml@5.5.0"]);
  const uncached = { name: "@octet-harness/never-in-any-cache", version: "0.0.1" };
  const tarballs = await packFromNpmCache([...wanted, uncached, wanted[0]!], scratchDir("octet-tarballs-"));
  expect(tarballs.skipped.map(key)).toEqual([key(uncached)]);
  expect(tarballs.length).toBe(wanted.length);
  for (const [index, tarball] of tarballs.entries()) {
    const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
    expect(integrity).toBe(lockIntegrity(wanted[index]!)!);
  }

  // Publish, newest js-yaml first: the older one is added and latest stays.
  const order = [...tarballs].sort((a, b) => (a.includes("js-yaml-5") ? -1 : b.includes("js-yaml-5") ? 1 : 0));
  for (const tarball of order) await publishTarball(url, tarball);
  const hello2 = await makeScopedTarball("2.0.0", { dependencies: { "js-yaml": "^5.0.0" } });
  const hello1 = await makeScopedTarball("1.0.0", {});
  expect(await publishTarball(url, hello2)).toEqual({ name: "@octet-harness/hello", version: "2.0.0" });
  expect(await publishTarball(url, hello1)).toEqual({ name: "@octet-harness/hello", version: "1.0.0" });
  expect(await publishTarball(url, hello1)).toEqual({ name: "@octet-harness/hello", version: "1.0.0" }); // again: a no-op

  const jsYaml = (await (await fetch(`${url}js-yaml`)).json()) as { "dist-tags": Record<string, string>; versions: Record<string, unknown> };
  expect(jsYaml["dist-tags"].latest).toBe("5.5.0");
  expect(Object.keys(jsYaml.versions).sort()).toEqual(["4.3.2", "5.5.0"]);
  const hello = (await (await fetch(`${url}@octet-harness%2fhello`)).json()) as { "dist-tags": Record<string, string>; versions: Record<string, { dist: { tarball: string } }> };
  expect(hello["dist-tags"].latest).toBe("2.0.0");
  expect(Object.keys(hello.versions).sort()).toEqual(["1.0.0", "2.0.0"]);
  const tarballResponse = await fetch(hello.versions["1.0.0"]!.dist.tarball);
  expect(tarballResponse.status).toBe(200);
  expect(Buffer.from(await tarballResponse.arrayBuffer()).equals(readFileSync(hello1))).toBe(true);

  // No uplink: what was not published here is not there.
  for (const missing of ["left-pad", "typescript", "@types%2fnode"]) {
    const response = await fetch(`${url}${missing}`);
    await response.arrayBuffer();
    expect(response.status).toBe(404);
  }
  expect((await fetch(`${url}left-pad/-/left-pad-1.3.0.tgz`)).status).toBe(404);

  const path = privatePath();

  // npm, configured only by $HOME/.npmrc; json-schema-ref-parser wants js-yaml ^4, so the older version.
  const npmHome = scratchDir("octet-npm-home-");
  writeClientConfig(npmHome, url);
  const npmProject = scratchDir("octet-npm-project-");
  writeFileSync(join(npmProject, "package.json"), JSON.stringify({ name: "npm-consumer", version: "1.0.0", private: true }));
  const npmInstall = await run([...npmCommand(), "install", "@apidevtools/json-schema-ref-parser@11.9.3", "@octet-harness/hello@1"], { cwd: npmProject, env: clientEnv(npmHome, path), timeoutMs: 60_000 });
  expect(npmInstall.stderr + npmInstall.stdout).not.toContain("ERR");
  expect(npmInstall.code).toBe(0);
  const npmModules = join(npmProject, "node_modules");
  const version = (dir: string) => (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
  expect(version(join(npmModules, "@apidevtools/json-schema-ref-parser"))).toBe("11.9.3");
  expect(version(join(npmModules, "js-yaml"))).toBe("4.3.2");
  expect(version(join(npmModules, "argparse"))).toBe("2.0.1");
  expect(version(join(npmModules, "@octet-harness/hello"))).toBe("1.0.0");
  expect(existsSync(join(npmModules, "@jsdevtools/ono/package.json"))).toBe(true);
  const npmUse = await run(["node", "-e", `console.log(JSON.stringify(require("js-yaml").load("a: 1")))`], { cwd: npmProject, env: clientEnv(npmHome, path) });
  expect(npmUse.stdout.trim()).toBe(`{"a":1}`);
  const hello1Run = await run([join(npmModules, ".bin/octet-hello")], { cwd: npmProject, env: clientEnv(npmHome, path) });
  expect(hello1Run.stdout.trim()).toBe("hello 1.0.0");
  const npmLock = readFileSync(join(npmProject, "package-lock.json"), "utf8");
  expect(npmLock).toContain(`${url}js-yaml/-/js-yaml-4.3.2.tgz`);

  // bun, configured only by $HOME/.npmrc as well (no bunfig, no NPM_CONFIG_REGISTRY).
  const bunHome = scratchDir("octet-bun-home-");
  writeClientConfig(bunHome, url);
  const bunProject = scratchDir("octet-bun-project-");
  writeFileSync(join(bunProject, "package.json"), JSON.stringify({ name: "bun-consumer", version: "1.0.0", private: true, dependencies: { "@octet-harness/hello": "^2.0.0" } }));
  const bunInstall = await run(["bun", "install"], { cwd: bunProject, env: clientEnv(bunHome, path), timeoutMs: 60_000 });
  if (bunInstall.code !== 0) throw new Error(`bun install failed:\n${bunInstall.stdout}\n${bunInstall.stderr}`);
  const bunModules = join(bunProject, "node_modules");
  expect(version(join(bunModules, "@octet-harness/hello"))).toBe("2.0.0");
  expect(version(join(bunModules, "js-yaml"))).toBe("5.5.0");
  expect(version(join(bunModules, "argparse"))).toBe("3.0.4");
  const bunUse = await run(["bun", "-e", `const yaml = require("js-yaml"); console.log(JSON.stringify(yaml.load("a: [1, 2]")), require("@octet-harness/hello"))`], { cwd: bunProject, env: clientEnv(bunHome, path) });
  expect(bunUse.stderr).toBe("");
  expect(bunUse.stdout.trim()).toBe(`{"a":[1,2]} hello 2.0.0`);
  const hello2Run = await run(["bun", join(bunModules, ".bin/octet-hello")], { cwd: bunProject, env: clientEnv(bunHome, path) });
  expect(hello2Run.stdout.trim()).toBe("hello 2.0.0");
  // bun fetched from this registry (its lockfile records the tarball URLs) into a cache under the private HOME.
  const bunLock = readFileSync(join(bunProject, "bun.lock"), "utf8");
  expect(bunLock).toContain(`${url}@octet-harness/hello/-/hello-2.0.0.tgz`);
  expect(bunLock).toContain(`${url}js-yaml/-/js-yaml-5.5.0.tgz`);
  expect(existsSync(join(bunHome, ".bun/install/cache"))).toBe(true);

  // Without the .npmrc bun goes for the public registry, which the dead proxy of clientEnv refuses.
  const bareHome = scratchDir("octet-bare-home-");
  const bareProject = scratchDir("octet-bare-project-");
  writeFileSync(join(bareProject, "package.json"), JSON.stringify({ name: "bare-consumer", version: "1.0.0", private: true, dependencies: { "js-yaml": "5.5.0" } }));
  const bareInstall = await run(["bun", "install"], { cwd: bareProject, env: clientEnv(bareHome, path), timeoutMs: 30_000 });
  expect(bareInstall.code).not.toBe(0);
  expect(bareInstall.stderr).toContain("ConnectionRefused");
  expect(existsSync(join(bareProject, "node_modules/js-yaml"))).toBe(false);
}, 60_000);
