import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ToolError } from "./errors.ts";
import { writeAtomic } from "./files.ts";
import { gen } from "./gen.ts";
import { DEV_ENTRYPOINT, renderHostManifest } from "./host-manifest.ts";
import { firstLink } from "./links.ts";
import { loadAuthorManifest } from "./manifest.ts";
import { binaryFormat, type Target, TARGETS, targetRuntime } from "./targets.ts";
import { unixLauncher } from "./unix-launcher.ts";
import { windowsLauncher } from "./windows-launcher.ts";

export interface BuildOptions {
  /** Sets `requires_octet` in the shipped extension.toml (octet installs bundles only with an exact one). */
  requiresOctet?: string;
  /** Type-check the project first (default true): a project that does not type-check is not built. */
  typecheck?: boolean;
  log?: (message: string) => void;
  bun?: string;
  /** Build for these platforms instead of this one: dist/TARGET/NAME/ and dist/NAME-VERSION-TARGET.tar.gz each. */
  targets?: Target[];
  /** Folder of `npm pack @oven/bun-…` tarballs for targets not installed in node_modules. */
  bunPackages?: string;
  /** Never fetch a missing target runtime into the per-user cache (codegen/target-cache.ts); refuse instead. */
  offline?: boolean;
  /** Pack the archive and SHA256SUMS (default true; the dev loop installs the folder and skips them). */
  archive?: boolean;
}

export interface BuildResult {
  bundleDir: string;
  archive: string;
  executableBytes: number;
  /** With `targets`: one entry per target. */
  targets: TargetBuild[];
}

export interface TargetBuild {
  target: Target;
  bundleDir: string;
  archive: string;
  executableBytes: number;
  format: string;
}

/**
 * `octet-extension build`: a bundle octet can load with no Bun or Node
 * installed. octet copies only `[entrypoint].command` into a private
 * directory (≤ 64 MiB) and runs it with the workspace as cwd, while a compiled
 * Bun executable is ~100 MiB. So the entry point is a tiny `sh` wrapper that
 * execs the compiled executable from `OCTET_EXTENSION_DIR`; the executable is
 * built never to read `.env` or `bunfig.toml` from the workspace. Of the
 * author's `[entrypoint]` only `env` is kept (command and args describe the
 * development entry point).
 *
 * dist/NAME/{extension.toml, extension, NAME.bin}, dist/NAME-VERSION.tar.gz
 * (one root folder NAME) and dist/SHA256SUMS.
 */
export async function build(dir: string, options: BuildOptions = {}): Promise<BuildResult> {
  const log = options.log ?? (() => {});
  const stale = await gen(dir, { check: true });
  if (stale.changed.length > 0) throw new ToolError(`${stale.changed.join(", ")} ${stale.changed.length === 1 ? "is" : "are"} stale: run \`bun run gen\`, then build again`);
  if (stale.orphans.length > 0) throw new ToolError(`handlers with no declaration in manifest.toml: ${stale.orphans.join(", ")} — declare them or delete them, then build again`);
  const manifest = loadAuthorManifest(dir);
  const dist = join(manifest.dir, "dist");
  refuseLinks(manifest.dir, touched(manifest, dist, options));
  if (options.requiresOctet !== undefined) manifest.requiresOctet = options.requiresOctet;
  warnRequiresOctet(manifest.requiresOctet, log);
  if (options.typecheck === false) log("warning: skipping the type check (--skip-typecheck)");
  else typecheck(manifest.dir, log, options.bun);
  if (!options.targets) {
    const bundle = compileBundle(manifest, join(dist, manifest.name), undefined, options, log);
    if (options.archive === false) return { bundleDir: bundle.dir, archive: "", executableBytes: bundle.bytes, targets: [] };
    const archive = pack(dist, manifest.name, `${manifest.name}-${manifest.version}.tar.gz`, log, manifest.dir);
    writeSums(dist, [archive], [bundle.dir]);
    return { bundleDir: bundle.dir, archive, executableBytes: bundle.bytes, targets: [] };
  }
  const bun = options.bun ?? process.execPath;
  const version = Bun.spawnSync([bun, "--version"], { stdout: "pipe" }).stdout.toString().trim();
  const scratch = join(dist, ".runtimes");
  const built: TargetBuild[] = [];
  try {
    for (const target of options.targets) {
      const runtime = targetRuntime(target, version, manifest.dir, options.bunPackages, scratch, { offline: options.offline ?? false, log });
      const root = join(dist, target);
      const bundle = compileBundle(manifest, join(root, manifest.name), { target, runtime }, options, log);
      const archive = pack(root, manifest.name, `../${manifest.name}-${manifest.version}-${target}.tar.gz`, log, manifest.dir);
      built.push({ target, bundleDir: bundle.dir, archive: resolve(root, archive), executableBytes: bundle.bytes, format: TARGETS[target].format });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  writeSums(dist, built.map((b) => b.archive), built.map((b) => b.bundleDir));
  const first = built[0]!;
  return { bundleDir: first.bundleDir, archive: first.archive, executableBytes: first.executableBytes, targets: built };
}

/** Every path build removes or writes, with these options (keep in step with `build`, `compileBundle` and `typecheck`). */
function touched(manifest: ReturnType<typeof loadAuthorManifest>, dist: string, options: BuildOptions): string[] {
  const paths = options.typecheck === false ? [] : [buildInfoFile(manifest.dir)];
  if (!options.targets) {
    paths.push(join(dist, manifest.name));
    if (options.archive !== false) paths.push(join(dist, `${manifest.name}-${manifest.version}.tar.gz`), join(dist, "SHA256SUMS"));
    return paths;
  }
  for (const target of options.targets) paths.push(join(dist, target, manifest.name), join(dist, `${manifest.name}-${manifest.version}-${target}.tar.gz`));
  return [...paths, join(dist, ".runtimes"), join(dist, "SHA256SUMS")];
}

/**
 * A cloned repository can commit `dist -> ../../somewhere`: refuse, in one
 * line and before anything is removed, any symbolic link between the project
 * and a path build touches.
 */
function refuseLinks(root: string, paths: string[]): void {
  for (const path of paths) {
    const link = firstLink(root, path);
    if (link === undefined) continue;
    throw new ToolError(`${link} is a symbolic link (to ${readlinkSync(link)}): build removes and writes only inside the project, never through a link — replace it with a real directory or delete it, then build again`);
  }
}

/** One target's bundle in `bundleDir`: the compiled executable, its launcher and extension.toml. */
function compileBundle(
  manifest: ReturnType<typeof loadAuthorManifest>,
  bundleDir: string,
  cross: { target: Target; runtime: string } | undefined,
  options: BuildOptions,
  log: (message: string) => void,
): { dir: string; bytes: number } {
  rmSync(bundleDir, { recursive: true, force: true });
  mkdirSync(bundleDir, { recursive: true });
  const windows = cross?.target.startsWith("windows") ?? false;
  const executable = join(bundleDir, `${manifest.name}${windows ? ".exe" : ".bin"}`);
  const compile = (bytecode: boolean) =>
    compileStandalone(manifest.sourceFile, executable, { bytecode, cwd: manifest.dir, bun: options.bun, ...(cross ? { target: TARGETS[cross.target].bunTarget, runtime: cross.runtime } : {}) });
  log(`compiling ${relative(manifest.dir, manifest.sourceFile)}${cross ? ` for ${cross.target}` : ""} (bytecode)`);
  let built = compile(true);
  if (built.exitCode !== 0) {
    log("bytecode compilation failed; compiling without bytecode");
    built = compile(false);
  }
  if (built.exitCode !== 0) {
    log(built.stderr.toString().trimEnd());
    throw new ToolError(`bun build --compile failed for ${relative(manifest.dir, manifest.sourceFile)} (its messages are above)`);
  }
  if (cross) {
    const format = binaryFormat(executable);
    if (format !== TARGETS[cross.target].format) throw new ToolError(`the ${cross.target} executable came out as ${format}, not ${TARGETS[cross.target].format}`);
  }
  const launcher = windows ? windowsLauncher(manifest.name) : unixLauncher(manifest.name);
  writeAtomic(join(bundleDir, launcher.file), launcher.text, 0o755);
  writeAtomic(join(bundleDir, "extension.toml"), renderHostManifest(manifest, { ...DEV_ENTRYPOINT, command: launcher.file, env: manifest.entrypoint?.env ?? {} }));
  return { dir: bundleDir, bytes: statSync(executable).size };
}

/** `tar -czf` of `folder` inside `dir` into `archive` (relative to `dir`). */
function pack(dir: string, folder: string, archive: string, log: (message: string) => void, base: string): string {
  const path = resolve(dir, archive);
  log(`packing ${relative(base, path)}`);
  const packed = Bun.spawnSync(["tar", "-czf", path, "-C", dir, folder], { stdout: "pipe", stderr: "pipe" });
  if (packed.exitCode !== 0) throw new ToolError(`tar failed: ${packed.stderr.toString().trim().split("\n")[0]}`);
  return path;
}

/** dist/SHA256SUMS: every archive and every file of every bundle. */
function writeSums(dist: string, archives: string[], bundles: string[]): void {
  const files = [...archives, ...bundles.flatMap((bundle) => readdirSync(bundle).sort().map((f) => join(bundle, f)))];
  const sums = files.map((file) => `${new Bun.CryptoHasher("sha256").update(readFileSync(file)).digest("hex")}  ${relative(dist, file)}`);
  writeAtomic(join(dist, "SHA256SUMS"), sums.join("\n") + "\n");
}

/**
 * `bun build --compile` as shipped: minified ESM that never reads the
 * workspace's `.env` or `bunfig.toml` at run time, and runs with `--smol`
 * (a smaller heap: peak RSS ~0.1× of the floor lower at the same rates; see
 * docs/performance.md). Also used by the benchmark.
 */
export function compileStandalone(entry: string, outfile: string, options: { bytecode: boolean; cwd?: string; bun?: string; target?: string; runtime?: string }) {
  const bytecode = options.bytecode ? ["--bytecode"] : [];
  const flags = ["--format=esm", "--minify", "--splitting", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", "--compile-exec-argv=--smol"];
  // Another platform's runtime comes from a file, never from the network.
  if (options.target) flags.push(`--target=${options.target}`, `--compile-executable-path=${options.runtime}`);
  return Bun.spawnSync([options.bun ?? process.execPath, "build", "--compile", ...bytecode, ...flags, entry, "--outfile", outfile], {
    cwd: options.cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** octet's bundle installer takes only an exact `requires_octet = "=X.Y.Z"` (docs/protocol-0.2.md §2.1); a copied folder loads without one. */
function warnRequiresOctet(requirement: string | undefined, log: (message: string) => void): void {
  if (requirement === undefined) {
    log('warning: no requires_octet: octet installs a bundle only with an exact one — add requires_octet = "=0.8.0" to manifest.toml or pass --requires-octet =0.8.0 (copying dist/NAME into ~/.octet/extensions/ works without)');
  } else if (!/^=\s*\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(requirement.trim())) {
    log(`warning: requires_octet = "${requirement}" is not exact: octet's bundle installer requires "=X.Y.Z" (e.g. "=0.8.0")`);
  }
}

/**
 * \`tsc --noEmit -p DIR\` with the project's own TypeScript (else the one this
 * package depends on). Its diagnostics are logged; failure stops the build.
 */
function typecheck(dir: string, log: (message: string) => void, bun?: string): void {
  if (!existsSync(join(dir, "tsconfig.json"))) {
    throw new ToolError(`${join(dir, "tsconfig.json")} is missing: build type-checks the project first — add one (see docs/manifest.md) or pass --skip-typecheck`);
  }
  let tsc: string;
  try {
    tsc = join(dirname(Bun.resolveSync("typescript/package.json", dir)), "bin/tsc");
  } catch {
    tsc = join(dirname(Bun.resolveSync("typescript/package.json", import.meta.dir)), "bin/tsc");
  }
  log("type-checking (tsc --noEmit)");
  // Incremental: the dev loop type-checks after every edit, and a warm check takes about half the time.
  const buildInfo = buildInfoFile(dir);
  mkdirSync(dirname(buildInfo), { recursive: true });
  const checked = Bun.spawnSync([bun ?? process.execPath, tsc, "--noEmit", "--incremental", "--tsBuildInfoFile", buildInfo, "-p", dir], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (checked.exitCode === 0) return;
  const output = (checked.stdout.toString() + checked.stderr.toString()).trimEnd();
  log(output);
  const errors = output.split("\n").filter((line) => /error TS\d+/.test(line)).length;
  throw new ToolError(`the project does not type-check (${errors || "some"} error${errors === 1 ? "" : "s"} above): fix them (\`bun run typecheck\`), then build again`);
}

/** Where the incremental type check keeps its state. */
function buildInfoFile(dir: string): string {
  return join(dir, "node_modules", ".cache", "octet-extension", "tsbuildinfo");
}
