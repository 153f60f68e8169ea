/**
 * Cross-platform bundles (`octet-extension build --target …`; docs/tools.md
 * "Every platform's bundle"). Each target's Bun runtime comes from the
 * `@oven/bun-<os>-<arch>` npm package of exactly the build's Bun version:
 * installed in `node_modules`, or as the tarball `npm pack` writes, in a
 * folder given with `--bun-packages` (`OCTET_BUN_PACKAGES`), or else from the
 * per-user cache, which `npm pack` fills once (not with `--offline`).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ToolError } from "./errors.ts";
import { cachedRuntime } from "./target-cache.ts";

/** The targets octet runs on, and what each needs. */
export const TARGETS = {
  "linux-x64": { bunTarget: "bun-linux-x64", pkg: "bun-linux-x64", binary: "bin/bun", format: "elf-x86_64" },
  "linux-arm64": { bunTarget: "bun-linux-arm64", pkg: "bun-linux-aarch64", binary: "bin/bun", format: "elf-aarch64" },
  "darwin-x64": { bunTarget: "bun-darwin-x64", pkg: "bun-darwin-x64", binary: "bin/bun", format: "macho-x86_64" },
  "darwin-arm64": { bunTarget: "bun-darwin-arm64", pkg: "bun-darwin-aarch64", binary: "bin/bun", format: "macho-arm64" },
  "windows-x64": { bunTarget: "bun-windows-x64", pkg: "bun-windows-x64", binary: "bin/bun.exe", format: "pe-x86_64" },
} as const;
export type Target = keyof typeof TARGETS;

/** Parse `--target a,b,…`. */
export function parseTargets(list: string): Target[] {
  const targets = list.split(",").map((t) => t.trim()).filter(Boolean);
  for (const target of targets) if (!(target in TARGETS)) throw new ToolError(`unknown target ${JSON.stringify(target)}: use ${Object.keys(TARGETS).join(", ")}`);
  if (targets.length === 0) throw new ToolError(`--target needs at least one of ${Object.keys(TARGETS).join(", ")}`);
  return [...new Set(targets)] as Target[];
}

/**
 * The Bun runtime for `target` at `version`: from `@oven/<pkg>` in a
 * `node_modules` above `from`, else extracted from `oven-<pkg>-<version>.tgz`
 * in `packages` into `scratch` (nothing else when `packages` is given), else
 * from the per-user cache, fetched into it first unless `offline`.
 */
export function targetRuntime(
  target: Target,
  version: string,
  from: string,
  packages: string | undefined,
  scratch: string,
  cache: { offline?: boolean; log?: (message: string) => void } = {},
): string {
  const { pkg, binary } = TARGETS[target];
  // The project's node_modules, then this package's (where npm put the build's own Bun).
  for (const start of [from, import.meta.dir]) {
    for (let dir = start; ; dir = dirname(dir)) {
      const installed = join(dir, "node_modules", "@oven", pkg);
      if (existsSync(join(installed, binary))) {
        const found = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version;
        if (found !== version) throw new ToolError(`${installed} is Bun ${found}, the build's Bun is ${version}: install @oven/${pkg}@${version}`);
        return join(installed, binary);
      }
      if (dirname(dir) === dir) break;
    }
  }
  // The running Bun is this platform's runtime (npm's bun package moves it out of @oven/…).
  const host = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  if (host === target && Bun.version === version) return process.execPath;
  const missing = (looked: string, hint = "") =>
    new ToolError(`no Bun ${version} runtime for ${target}: not in node_modules/@oven/${pkg}${looked} — fetch it once with \`npm pack @oven/${pkg}@${version}\` into a folder and pass --bun-packages FOLDER${hint}`);
  if (!packages) {
    const runtime = { pkg, version, binary, target };
    return cachedRuntime(runtime, { cwd: from, offline: cache.offline ?? false, log: cache.log ?? (() => {}), missing: (dir) => missing(`, nor in ${join(dir, `${pkg}-${version}`)}`, ", or build without --offline to fetch it into that cache") });
  }
  const tarball = join(packages, `oven-${pkg}-${version}.tgz`);
  if (!existsSync(tarball)) throw missing(`, nor ${tarball}`);
  const out = join(scratch, pkg);
  mkdirSync(out, { recursive: true });
  const unpacked = Bun.spawnSync(["tar", "-xzf", tarball, "-C", out, `package/${binary}`], { stdout: "pipe", stderr: "pipe" });
  if (unpacked.exitCode !== 0) throw new ToolError(`cannot unpack ${tarball}: ${unpacked.stderr.toString().trim().split("\n")[0]}`);
  return join(out, "package", binary);
}

/** The executable format of the file at `path` (`elf-x86_64`, `macho-arm64`, `pe-x86_64`, …), from its headers. */
export function binaryFormat(path: string): string {
  const head = readFileSync(path).subarray(0, 4096);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) {
    const machine = view.getUint16(18, true);
    return machine === 0x3e ? "elf-x86_64" : machine === 0xb7 ? "elf-aarch64" : `elf-${machine}`;
  }
  if (view.getUint32(0, true) === 0xfeedfacf) {
    const cpu = view.getUint32(4, true);
    return cpu === 0x01000007 ? "macho-x86_64" : cpu === 0x0100000c ? "macho-arm64" : `macho-${cpu}`;
  }
  if (head[0] === 0x4d && head[1] === 0x5a) {
    const pe = view.getUint32(0x3c, true);
    if (pe + 6 <= head.length && view.getUint32(pe, true) === 0x00004550) {
      const machine = view.getUint16(pe + 4, true);
      return machine === 0x8664 ? "pe-x86_64" : machine === 0xaa64 ? "pe-arm64" : `pe-${machine}`;
    }
  }
  return "unknown";
}
