/**
 * The per-user cache of other platforms' Bun runtimes (docs/tools.md "Every
 * platform's bundle"): `${XDG_CACHE_HOME:-~/.cache}/octet-extension/bun-targets/
 * <pkg>-<version>/` holds the runtime and `runtime.json` (its sha256, checked
 * on every use). A missing entry is fetched once with `npm pack`, checked
 * against the registry's sha512 `dist.integrity`, unpacked in a temporary
 * directory inside the cache and renamed into place.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
import { ToolError } from "./errors.ts";

/** One runtime: `@oven/<pkg>@<version>`, whose executable is `package/<binary>` in the tarball. */
export interface RuntimePackage {
  pkg: string;
  version: string;
  binary: string;
  target: string;
}

export interface CacheOptions {
  /** Where npm runs (so the project's `.npmrc` applies). */
  cwd: string;
  /** Never fetch: a missing entry is refused with `missing()`. */
  offline: boolean;
  log: (message: string) => void;
  missing: (cache: string) => ToolError;
}

/** What `runtime.json` records. */
interface RuntimeRecord {
  package: string;
  version: string;
  integrity: string;
  binary: string;
  size: number;
  sha256: string;
}

/** `$XDG_CACHE_HOME/octet-extension/bun-targets` (an absolute XDG_CACHE_HOME only), else `~/.cache/…`. */
export function runtimeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "octet-extension", "bun-targets");
}

/** The cached runtime's path, fetched first if missing or damaged (unless offline). */
export function cachedRuntime(runtime: RuntimePackage, options: CacheOptions): string {
  const cache = runtimeCacheDir();
  privateDirectory(cache);
  const entry = join(cache, `${runtime.pkg}-${runtime.version}`);
  const problem = checkEntry(entry, runtime);
  if (problem === undefined) return join(entry, basename(runtime.binary));
  if (problem !== "missing") {
    if (options.offline) throw new ToolError(`${problem}: build without --offline to fetch it again, or delete ${entry}`);
    options.log(`warning: ${problem}: fetching it again`);
  } else if (options.offline) {
    throw options.missing(cache);
  }
  fetchInto(cache, entry, runtime, options);
  return join(entry, basename(runtime.binary));
}

/** Create `dir` (mode 0700) and refuse it, or `octet-extension` above it, when it is a symlink, someone else's, or writable by others. */
function privateDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ToolError(`cannot create the Bun runtime cache ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message} — set XDG_CACHE_HOME to a directory of yours, or pass --bun-packages FOLDER`);
  }
  for (const path of [dirname(dir), dir]) {
    const stat = lstatSync(path);
    const fix = `the Bun runtime cache must be private — chmod 700 ${path}, or delete it`;
    if (stat.isSymbolicLink() || !stat.isDirectory()) throw new ToolError(`${path} is not a directory (a symlink?): the Bun runtime cache must be a private directory — delete it, or set XDG_CACHE_HOME`);
    if (process.platform === "win32") continue;
    if (stat.uid !== process.getuid!()) throw new ToolError(`${path} belongs to uid ${stat.uid}, not you: the Bun runtime cache must be private — delete it, or set XDG_CACHE_HOME`);
    if ((stat.mode & 0o022) !== 0) throw new ToolError(`${path} is writable by others: ${fix}`);
  }
}

/** Why `entry` cannot be used: "missing", or one line naming what is wrong; undefined when it is good. Never follows a symlink. */
function checkEntry(entry: string, runtime: RuntimePackage): string | undefined {
  let stat;
  try {
    stat = lstatSync(entry);
  } catch {
    return "missing";
  }
  if (!stat.isDirectory()) return `${entry} is not a directory this cache wrote (${stat.isSymbolicLink() ? "a symlink" : "a file"})`;
  const binary = join(entry, basename(runtime.binary));
  let record: RuntimeRecord;
  try {
    if (!lstatSync(join(entry, "runtime.json")).isFile() || !lstatSync(binary).isFile()) throw new Error();
    record = JSON.parse(readFileSync(join(entry, "runtime.json"), "utf8"));
  } catch {
    return `${entry} is incomplete (no runtime.json or no ${basename(runtime.binary)})`;
  }
  if (record.package !== `@oven/${runtime.pkg}` || record.version !== runtime.version) return `${entry} records ${record.package}@${record.version}, not @oven/${runtime.pkg}@${runtime.version}`;
  if (lstatSync(binary).size !== record.size || sha256(binary) !== record.sha256) return `${binary} does not match the sha256 recorded in runtime.json beside it (corrupted or changed)`;
  return undefined;
}

/** `npm view` for the registry's integrity, `npm pack` (which checks it too), our own sha512 check, unpack, record, rename into `entry`. */
function fetchInto(cache: string, entry: string, runtime: RuntimePackage, options: CacheOptions): void {
  const spec = `@oven/${runtime.pkg}@${runtime.version}`;
  options.log(`fetching the Bun ${runtime.version} runtime for ${runtime.target}: npm pack ${spec} into ${cache}`);
  const npm = Bun.which("npm");
  if (!npm) throw new ToolError(`npm is not on PATH: build --target fetches a missing runtime with \`npm pack ${spec}\` — install npm, or fetch it elsewhere and pass --bun-packages FOLDER`);
  const temporary = mkdtempSync(join(cache, `.incoming-${runtime.pkg}-`));
  try {
    const dist = npmJson(npm, ["view", spec, "dist"], options.cwd, spec, "npm view") as { integrity?: unknown } | null;
    if (!dist) throw new ToolError(`the registry has no ${spec} (npm view ${spec}): check the registry (npm config get registry), or fetch it elsewhere and pass --bun-packages FOLDER`);
    const integrity = typeof dist.integrity === "string" ? dist.integrity : "";
    if (!integrity.startsWith("sha512-")) {
      throw new ToolError(`the registry gives no sha512 integrity for ${spec} (npm view ${spec} dist.integrity): nothing to check the download against — fetch it another way and pass --bun-packages FOLDER`);
    }
    const packed = npmJson(npm, ["pack", spec, "--pack-destination", temporary, "--ignore-scripts"], options.cwd, spec, "npm pack") as { filename?: string }[];
    const tarball = join(temporary, packed?.[0]?.filename ?? "");
    const got = `sha512-${new Bun.CryptoHasher("sha512").update(readFileSync(tarball)).digest("base64")}`;
    if (got !== integrity) throw new ToolError(`${spec} from npm pack is ${got}, the registry says ${integrity}: refusing it — check the registry (npm config get registry)`);
    const unpacked = join(temporary, "unpacked");
    mkdirSync(unpacked);
    const untar = Bun.spawnSync(["tar", "-xzf", tarball, "-C", unpacked, `package/${runtime.binary}`], { stdout: "pipe", stderr: "pipe" });
    if (untar.exitCode !== 0) throw new ToolError(`cannot unpack ${spec}: ${untar.stderr.toString().trim().split("\n")[0]}`);
    const staged = join(temporary, "entry");
    mkdirSync(staged, { mode: 0o700 });
    const binary = join(staged, basename(runtime.binary));
    renameSync(join(unpacked, "package", runtime.binary), binary);
    const record: RuntimeRecord = { package: `@oven/${runtime.pkg}`, version: runtime.version, integrity, binary: basename(runtime.binary), size: lstatSync(binary).size, sha256: sha256(binary) };
    writeFileSync(join(staged, "runtime.json"), `${JSON.stringify(record, null, 2)}\n`);
    // Another build may have put a good entry there meanwhile; else whatever is there (damaged, a symlink) is moved aside, never followed.
    if (checkEntry(entry, runtime) === undefined) return;
    try {
      renameSync(entry, join(temporary, "replaced"));
    } catch {
      // nothing there
    }
    try {
      renameSync(staged, entry);
    } catch (error) {
      if (checkEntry(entry, runtime) !== undefined) throw new ToolError(`cannot move the fetched runtime into ${entry}: ${(error as Error).message}`);
    }
  } finally {
    rmSync(temporary, { recursive: true, force: true });
    removeAbandoned(cache);
  }
}

/** `npm ARGS --json` in `cwd`: its parsed output, or one line with npm's error code and summary. */
function npmJson(npm: string, args: string[], cwd: string, spec: string, what: string): unknown {
  const env = { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
  const run = Bun.spawnSync([npm, ...args, "--json"], { cwd, env, stdout: "pipe", stderr: "pipe" });
  let parsed: unknown;
  try {
    parsed = JSON.parse(run.stdout.toString() || "null");
  } catch {
    parsed = undefined;
  }
  const error = (parsed as { error?: { code?: string; summary?: string } } | null)?.error;
  if (run.exitCode !== 0 || error) {
    const why = error ? `${error.code ?? "error"} ${(error.summary ?? "").split("\n")[0]}` : run.stderr.toString().trim().split("\n")[0];
    throw new ToolError(`could not fetch ${spec} with ${what}: ${why} — check the registry (npm config get registry), or fetch it elsewhere and pass --bun-packages FOLDER`);
  }
  return parsed;
}

/** Temporary directories of fetches killed more than a day ago. */
function removeAbandoned(cache: string): void {
  for (const name of readdirSync(cache)) {
    if (!name.startsWith(".incoming-")) continue;
    const path = join(cache, name);
    if (Date.now() - lstatSync(path).mtimeMs > 86_400_000) rmSync(path, { recursive: true, force: true });
  }
}

function sha256(path: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}
