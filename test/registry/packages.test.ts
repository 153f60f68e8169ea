/**
 * One product per package (issue 26): what `npm pack` would upload for each
 * workspace of scripts/pack.ts. The runtime package holds no native-host
 * code; `octet-native-host` holds the client, the double and its bin; no
 * shipped file imports a file its own tarball lacks.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import ts from "typescript";
import { WORKSPACES } from "../../scripts/pack.ts";

const REPO = join(import.meta.dir, "../..");

interface Packed {
  workspace: string;
  name: string;
  files: { path: string; mode: number }[];
  manifest: { exports?: Record<string, string>; bin?: Record<string, string>; dependencies?: Record<string, string> };
}

const packages = new Map<string, Packed>();

beforeAll(() => {
  const args = WORKSPACES.flatMap((w) => ["--workspace", w]);
  const run = Bun.spawnSync(["npm", "pack", "--dry-run", "--json", "--ignore-scripts", ...args], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`npm pack --dry-run failed: ${run.stderr.toString()}`);
  const listed = JSON.parse(run.stdout.toString()) as { name: string; files: { path: string; mode: number }[] }[];
  listed.forEach((p, i) => {
    const workspace = WORKSPACES[i]!;
    packages.set(p.name, { workspace, name: p.name, files: p.files, manifest: JSON.parse(readFileSync(join(REPO, workspace, "package.json"), "utf8")) });
  });
}, 60_000);

function get(name: string): Packed {
  const found = packages.get(name);
  if (!found) throw new Error(`no workspace packs ${name}; packed: ${[...packages.keys()].join(", ")}`);
  return found;
}

/** Module specifiers a source file imports, type-only ones included (TypeScript's own pre-pass: no strings, no comments). */
function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

describe("one product per package", () => {
  test("the four packages are packed", () => {
    expect([...packages.keys()].sort()).toEqual(["create-octet-extension", "octet-extension", "octet-extension-tools", "octet-native-host"]);
  });

  test("octet-extension ships no native-host client, no host double and no bin", () => {
    const runtime = get("octet-extension");
    const paths = runtime.files.map((f) => f.path);
    expect(paths.filter((p) => /(^|\/)(native-host|host-double|bin)\//.test(p))).toEqual([]);
    expect(runtime.manifest.bin).toBeUndefined();
    expect(Object.keys(runtime.manifest.exports ?? {})).not.toContain("./native-host");
    expect(paths).toContain("index.ts");
    expect(paths).toContain("testing/index.ts");
  });

  test("octet-native-host ships the client, the double as ./testing and the octet-host-double bin", () => {
    const nativeHost = get("octet-native-host");
    const paths = nativeHost.files.map((f) => f.path);
    expect(nativeHost.manifest.exports).toMatchObject({ ".": "./client/index.ts", "./testing": "./host-double/index.ts" });
    expect(nativeHost.manifest.bin).toEqual({ "octet-host-double": "./bin/octet-host-double" });
    expect(nativeHost.manifest.dependencies ?? {}).toEqual({});
    for (const file of ["client/index.ts", "client/client.ts", "host-double/index.ts", "host-double/main.ts", "README.md", "LICENSE", "package.json"]) expect(paths).toContain(file);
    expect(nativeHost.files.find((f) => f.path === "bin/octet-host-double")?.mode).toBe(0o755);
    expect(paths.filter((p) => !/^(client|host-double|bin)\//.test(p) && !["README.md", "LICENSE", "package.json"].includes(p))).toEqual([]);
  });

  test("every relative import of a shipped source file resolves inside its own tarball", () => {
    const escapes: string[] = [];
    for (const pkg of packages.values()) {
      const paths = new Set(pkg.files.map((f) => f.path));
      for (const path of paths) {
        if (!/\.(ts|js|mjs)$/.test(path)) continue;
        const text = readFileSync(join(REPO, pkg.workspace, path), "utf8");
        for (const specifier of specifiers(text).filter((s) => s.startsWith("."))) {
          const target = posix.normalize(posix.join(posix.dirname(path), specifier));
          if (!paths.has(target)) escapes.push(`${pkg.name}: ${path} imports ${specifier}`);
        }
      }
    }
    expect(escapes).toEqual([]);
  });

  test("the runtime and the native-host package import no package at all", () => {
    const imports: string[] = [];
    for (const name of ["octet-extension", "octet-native-host"]) {
      const pkg = get(name);
      for (const { path } of pkg.files) {
        if (!path.endsWith(".ts")) continue;
        const bare = specifiers(readFileSync(join(REPO, pkg.workspace, path), "utf8")).filter((s) => !s.startsWith(".") && !/^(node:|bun(:|$))/.test(s));
        for (const specifier of bare) imports.push(`${name}: ${path} imports ${specifier}`);
      }
    }
    expect(imports).toEqual([]);
  });
});
