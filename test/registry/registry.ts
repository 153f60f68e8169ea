/**
 * A private npm registry for tests: Verdaccio on 127.0.0.1, with no uplinks,
 * filled from npm's local cache, so that `npm install` and `bun install` can
 * be exercised against real packages with no network at all.
 *
 * Typical use:
 *
 * ```ts
 * const registry = await startRegistry();
 * try {
 *   const specs = lockfileClosure("package-lock.json", ["json-schema-to-typescript"]);
 *   const tarballs = await packFromNpmCache(specs, join(registry.dir, "tarballs"));
 *   // tarballs.skipped: specs whose tarball npm's cache does not have
 *   await publishTarballs(registry.url, tarballs);
 *   // then install with HOME=<tmp> and <tmp>/.npmrc containing `registry=${registry.url}`
 * } finally {
 *   await registry.stop();
 * }
 * ```
 *
 * Pointing clients at the registry:
 *
 * - npm: `registry=<url>` in `$HOME/.npmrc` (or `npm_config_registry=<url>`).
 * - bun (checked with 1.4.4): reads `registry=` from `$HOME/.npmrc` too, and
 *   from a `.npmrc` in the project directory. Each of these works as well:
 *   `NPM_CONFIG_REGISTRY` / `npm_config_registry` / `BUN_CONFIG_REGISTRY` in
 *   the environment, `[install] registry = "<url>"` in the project's
 *   `bunfig.toml` or in `$HOME/.bunfig.toml`.
 *
 * {@link writeClientConfig} and {@link clientEnv} set up a private HOME (so
 * neither client sees the real user's configuration or caches) and a dead
 * proxy for everything but loopback (so nothing can be fetched from outside).
 *
 * Verdaccio must run under Node (not Bun); {@link findNode} looks the real
 * `node` up on PATH, since `process.execPath` is Bun under `bun test`.
 *
 * Notes (Verdaccio 6.8.0 on Node 20, npm 11, bun 1.4.4, 2 cores):
 * - Starting takes about 1 s. Verdaccio cannot listen on port 0 (it takes 0
 *   as "no port" and never says which port it got), so a free port is picked
 *   here and a start that loses the race (EADDRINUSE) is retried.
 * - It warns on stderr about running as root and about Node < 22; harmless.
 * - Anonymous publishing works with `publish: $all`; no token is needed.
 * - Verdaccio sets every dist-tag a publish document names, even backwards;
 *   {@link publishTarball} therefore reads the current `latest` first.
 * - Its log (pino, level `http`) is written asynchronously and the last lines
 *   may be missing when it is read right after a request or after `stop()`.
 * - Timings: publishing the 31 cached tarballs of the project's dev closure
 *   (66 MB) takes about 6 s, 4 s of it the 52 MB `@oven/bun-linux-x64`
 *   (base64 in a 70 MB JSON body); small packages take 20-50 ms each.
 *   `npm pack` out of the cache takes about 5 s for 40 packages, 35 s for 340.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, closeSync, constants as fsConstants, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, join, posix } from "node:path";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";

const gunzipAsync = promisify(gunzip);

/** A running registry. */
export interface Registry {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:40123/`. */
  url: string;
  /** The registry's directory: `config.yaml`, `storage/`, `verdaccio.log` (its log) and `verdaccio.out` (its stdout/stderr). */
  dir: string;
  /** Stop Verdaccio, wait for it to exit and remove {@link dir} if {@link startRegistry} made it. Idempotent. */
  stop(): Promise<void>;
}

export interface StartRegistryOptions {
  /**
   * Directory for config, storage and logs. It is created if missing and is
   * kept by `stop()`; packages stored there by an earlier run are served
   * again. Default: a fresh directory under `os.tmpdir()`, removed by `stop()`.
   */
  dir?: string;
  /** The Node binary to run Verdaccio with. Default: {@link findNode}. */
  node?: string;
  /** How long to wait for `GET /-/ping` to answer. Default 30 s. */
  startTimeoutMs?: number;
}

/** A package version. */
export interface PackageSpec {
  name: string;
  version: string;
}

/** Start Verdaccio on 127.0.0.1 and wait until it answers `GET /-/ping`. */
export async function startRegistry(options: StartRegistryOptions = {}): Promise<Registry> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "octet-registry-"));
  mkdirSync(dir, { recursive: true });
  try {
    const node = options.node ?? findNode();
    const bin = verdaccioBin();
    writeFileSync(join(dir, "config.yaml"), verdaccioConfig(dir));
    writeFileSync(join(dir, "watchdog.cjs"), WATCHDOG);
    // Port 0 cannot be used: Verdaccio treats it as "no port" and never says
    // which one it got. Take a free port instead, and retry if it was taken.
    let lastError: unknown;
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freePort();
      try {
        const server = await launch(node, bin, dir, port, options.startTimeoutMs ?? 30_000);
        let stopped: Promise<void> | undefined;
        return {
          url: `http://127.0.0.1:${port}/`,
          dir,
          stop() {
            stopped ??= (async () => {
              await killAndWait(server);
              if (ownDir) rmSync(dir, { recursive: true, force: true });
            })();
            return stopped;
          },
        };
      } catch (error) {
        lastError = error;
        if (!(error instanceof PortInUse)) throw error;
      }
    }
    throw lastError;
  } catch (error) {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

class PortInUse extends Error {}

function verdaccioConfig(dir: string): string {
  const q = (path: string) => JSON.stringify(path); // a JSON string is a valid YAML double-quoted scalar
  // No `uplinks` and no `proxy:` in any package rule: a package that was not
  // published here is a 404, and nothing ever leaves the machine.
  // `$all` includes anonymous users, so a publish needs no token.
  return `# written by test/registry/registry.ts
storage: ${q(join(dir, "storage"))}
plugins: ${q(join(dir, "plugins"))}
auth:
  htpasswd:
    file: ${q(join(dir, "htpasswd"))}
    max_users: 1000
uplinks: {}
packages:
  "@*/*":
    access: $all
    publish: $all
    unpublish: $all
  "**":
    access: $all
    publish: $all
    unpublish: $all
max_body_size: 300mb
web:
  enable: false
server:
  keepAliveTimeout: 60
log:
  type: file
  path: ${q(join(dir, "verdaccio.log"))}
  level: http
`;
}

/**
 * Loaded into Verdaccio with `node --require`: Verdaccio exits when the
 * process that started it goes away (bun test emits no `exit` event to clean
 * up in, and a killed test run must not leave a server behind).
 */
const WATCHDOG = `"use strict";
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 500).unref();
`;

function verdaccioBin(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve("verdaccio/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.verdaccio;
  if (!bin) throw new Error(`${manifestPath} names no verdaccio bin`);
  return join(dirname(manifestPath), bin);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("could not find a free port");
  return address.port;
}

async function launch(node: string, bin: string, dir: string, port: number, timeoutMs: number): Promise<ChildProcess> {
  const outPath = join(dir, "verdaccio.out");
  const out = openSync(outPath, "a");
  let child: ChildProcess;
  try {
    child = spawn(node, ["--require", join(dir, "watchdog.cjs"), bin, "--config", join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`], {
      cwd: dir,
      stdio: ["ignore", out, out],
      env: { ...process.env, NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" },
    });
  } finally {
    closeSync(out);
  }
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  child.on("exit", (code, signal) => (exited = { code, signal }));
  child.on("error", (error) => (spawnError = error));
  const url = `http://127.0.0.1:${port}/-/ping`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError) throw new Error(`could not start verdaccio with ${node}: ${spawnError.message}`);
    if (exited) {
      const log = logTail(dir);
      if (/EADDRINUSE/.test(log)) throw new PortInUse(`port ${port} is taken`);
      throw new Error(`verdaccio exited (code ${exited.code}, signal ${exited.signal}) before answering ${url}:\n${log}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await killAndWait(child);
      throw new Error(`verdaccio did not answer ${url} within ${timeoutMs} ms:\n${logTail(dir)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function logTail(dir: string): string {
  const parts: string[] = [];
  for (const file of ["verdaccio.out", "verdaccio.log"]) {
    try {
      const text = readFileSync(join(dir, file), "utf8");
      parts.push(`--- ${file}\n${text.slice(-4000)}`);
    } catch {
      // not written
    }
  }
  return parts.join("\n");
}

async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * The real Node binary: the first `node` on PATH that is not Bun's `node`
 * shim (`bun run` may put a symlink to bun named `node` first on PATH).
 */
export function findNode(): string {
  const found = findOnPath("node", (real) => !/^bun(\.exe)?$/.test(basename(real)));
  if (!found) throw new Error(`no node binary on PATH (${process.env.PATH}); verdaccio and npm need Node`);
  return found;
}

/**
 * argv prefix that runs npm under the real Node (`[node, npm-cli.js]`), so
 * that npm never runs under a Bun `node` shim; falls back to `["npm"]`.
 */
export function npmCommand(): string[] {
  const npm = findOnPath("npm");
  if (!npm) throw new Error(`no npm on PATH (${process.env.PATH})`);
  const real = realpathSync(npm);
  if (real.endsWith(".js") || real.endsWith(".cjs")) return [findNode(), real];
  return [npm];
}

function findOnPath(command: string, accept: (realPath: string) => boolean = () => true): string | undefined {
  for (const entry of (process.env.PATH ?? "").split(delimiter)) {
    if (!entry) continue;
    const candidate = join(entry, command);
    try {
      accessSync(candidate, fsConstants.X_OK);
      if (!statSync(candidate).isFile()) continue;
      if (accept(realpathSync(candidate))) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Publishing

/** Anonymous publishing is allowed by the config; a token is only fetched (once per registry) if a publish is refused. */
const tokens = new Map<string, Promise<string>>();

/**
 * Publish an npm tarball the way `npm publish` does: one PUT of the publish
 * document (manifest from the tarball's `package/package.json`, `dist` with
 * sha1 `shasum` and sha512 `integrity`, the tarball base64 in `_attachments`).
 *
 * - Another version of an existing name is added beside the others.
 * - dist-tag `latest` never moves backwards: it is set to this version only
 *   if it is higher than the current `latest` (a prerelease does not replace
 *   a release). So versions may be published in any order.
 * - Publishing a name@version that is already there with the same shasum is
 *   a no-op; with a different shasum it throws.
 */
export async function publishTarball(registryUrl: string, tarballPath: string): Promise<PackageSpec> {
  const base = registryUrl.endsWith("/") ? registryUrl : `${registryUrl}/`;
  const tarball = await readFile(tarballPath);
  const manifest = await readTarballManifest(tarball, tarballPath);
  const { name, version } = manifest;
  const shasum = createHash("sha1").update(tarball).digest("hex");
  const integrity = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
  const documentUrl = base + encodePackageName(name);

  const existing = await getPackument(documentUrl);
  const present = existing?.versions?.[version];
  if (present) {
    if (present.dist?.shasum === shasum) return { name, version };
    throw new Error(`${name}@${version} is already published in ${base} with another tarball (shasum ${present.dist?.shasum}, this one ${shasum})`);
  }
  const currentLatest = existing?.["dist-tags"]?.latest;
  const latest = currentLatest && existing?.versions?.[currentLatest] && !isNewerLatest(version, currentLatest) ? currentLatest : version;

  const fileName = `${unscopedName(name)}-${version}.tgz`;
  const versionManifest: Record<string, unknown> = {
    ...manifest,
    _id: `${name}@${version}`,
    dist: { shasum, integrity, tarball: `${base}${name}/-/${fileName}` },
  };
  if (typeof manifest.bin === "string") versionManifest.bin = { [unscopedName(name)]: manifest.bin };
  const document = {
    _id: name,
    name,
    description: typeof manifest.description === "string" ? manifest.description : "",
    "dist-tags": { latest },
    versions: { [version]: versionManifest },
    access: null,
    _attachments: {
      [`${name}-${version}.tgz`]: { content_type: "application/octet-stream", data: tarball.toString("base64"), length: tarball.length },
    },
  };
  const body = JSON.stringify(document);

  let response = await put(documentUrl, body, tokens.get(base) ? await tokens.get(base) : undefined);
  if (response.status === 401 || response.status === 403) {
    await response.arrayBuffer();
    response = await put(documentUrl, body, await registryToken(base));
  }
  const text = await response.text();
  if (!response.ok) throw new Error(`publishing ${name}@${version} to ${base} failed: HTTP ${response.status} ${text}`);
  return { name, version };
}

/**
 * Publish many tarballs: versions of one name one after another (in the order
 * given), different names `concurrency` at a time. Returns them in input order.
 * (On 2 cores concurrency gains nothing: the 31 tarballs of the project's
 * closure, 66 MB, take about 6 s either way, 4 s of it the 52 MB
 * `@oven/bun-linux-x64`.)
 */
export async function publishTarballs(registryUrl: string, tarballPaths: string[], concurrency = 2): Promise<PackageSpec[]> {
  const results: PackageSpec[] = new Array(tarballPaths.length);
  const manifests = await Promise.all(tarballPaths.map(async (path) => (await readTarballManifest(await readFile(path), path)).name));
  const byName = new Map<string, number[]>();
  manifests.forEach((name, index) => byName.set(name, [...(byName.get(name) ?? []), index]));
  const queues = [...byName.values()];
  const worker = async () => {
    for (let queue = queues.shift(); queue; queue = queues.shift()) {
      for (const index of queue) results[index] = await publishTarball(registryUrl, tarballPaths[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return results;
}

interface Packument {
  "dist-tags"?: Record<string, string>;
  versions?: Record<string, { dist?: { shasum?: string } }>;
}

async function getPackument(url: string): Promise<Packument | undefined> {
  const response = await fetch(url, { headers: { accept: "application/json" } });
  if (response.status === 404) {
    await response.arrayBuffer();
    return undefined;
  }
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as Packument;
}

function put(url: string, body: string, token: string | undefined): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch(url, { method: "PUT", headers, body });
}

/** Register (or log in) the harness user once per registry and return its token. Exported for tests that configure auth. */
export function registryToken(registryUrl: string): Promise<string> {
  const base = registryUrl.endsWith("/") ? registryUrl : `${registryUrl}/`;
  let token = tokens.get(base);
  if (!token) {
    token = (async () => {
      const user = "octet-harness";
      const password = "octet-harness-password";
      const body = JSON.stringify({ _id: `org.couchdb.user:${user}`, name: user, password, type: "user", roles: [], date: new Date().toISOString() });
      const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
      const url = `${base}-/user/org.couchdb.user:${user}`;
      // Registering answers a token; if the user exists (a reused storage dir: 409), the same PUT with Basic auth logs in.
      let response = await fetch(url, { method: "PUT", headers, body });
      if (response.status === 409) {
        await response.arrayBuffer();
        response = await fetch(url, { method: "PUT", headers: { ...headers, authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` }, body });
      }
      const answer = (await response.json().catch(() => ({}))) as { token?: string };
      if (!response.ok || !answer.token) throw new Error(`could not get a token from ${base}: HTTP ${response.status} ${JSON.stringify(answer)}`);
      return answer.token;
    })();
    token.catch(() => tokens.delete(base));
    tokens.set(base, token);
  }
  return token;
}

/** `@scope/name` → `@scope%2fname` (the form registries expect in a document URL). */
export function encodePackageName(name: string): string {
  return name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
}

function unscopedName(name: string): string {
  return name.startsWith("@") ? name.slice(name.indexOf("/") + 1) : name;
}

/** True if `candidate` should become `latest` over `current`: higher by semver, and not a prerelease replacing a release. */
function isNewerLatest(candidate: string, current: string): boolean {
  const a = parseSemver(candidate);
  const b = parseSemver(current);
  if (!a || !b) return false;
  if (a.pre.length > 0 && b.pre.length === 0) return false;
  return compareSemver(a, b) > 0;
}

interface Semver {
  core: [number, number, number];
  pre: string[];
}

function parseSemver(version: string): Semver | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(version.trim());
  if (!match) return undefined;
  return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] ? match[4].split(".") : [] };
}

function compareSemver(a: Semver, b: Semver): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i]! - b.core[i]!;
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length; // a release is above its prereleases
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** The tarball's top-level `package.json` (`package/package.json`, whatever the top folder is called). */
export async function readTarballManifest(tarball: Buffer, label = "tarball"): Promise<Record<string, unknown> & PackageSpec> {
  const tar = await gunzipAsync(tarball);
  const text = findTopPackageJson(tar);
  if (text === undefined) throw new Error(`${label}: no package/package.json in the tarball`);
  const manifest = JSON.parse(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
  if (typeof manifest.name !== "string" || typeof manifest.version !== "string") throw new Error(`${label}: package.json has no name or version`);
  return manifest as Record<string, unknown> & PackageSpec;
}

/** A minimal tar reader: ustar/GNU headers, GNU long names and pax `path` records. */
function findTopPackageJson(tar: Buffer): string | undefined {
  let offset = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  const cString = (bytes: Buffer) => {
    const end = bytes.indexOf(0);
    return bytes.subarray(0, end === -1 ? bytes.length : end).toString("utf8");
  };
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const sizeField = header.subarray(124, 136);
    let size: number;
    if (sizeField[0]! & 0x80) {
      size = 0;
      for (let i = 1; i < sizeField.length; i++) size = size * 256 + sizeField[i]!;
    } else {
      size = parseInt(cString(sizeField).trim() || "0", 8);
    }
    const type = String.fromCharCode(header[156]!);
    let name = cString(header.subarray(0, 100));
    if (header.subarray(257, 262).toString("latin1") === "ustar") {
      const prefix = cString(header.subarray(345, 500));
      if (prefix) name = `${prefix}/${name}`;
    }
    const data = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = cString(data);
      continue;
    }
    if (type === "x") {
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString("utf8"))?.[1];
      continue;
    }
    if (type === "g") continue;
    name = paxPath ?? longName ?? name;
    longName = paxPath = undefined;
    if ((type === "0" || type === "\0" || type === "7") && /^(?:\.\/)?[^/]+\/package\.json$/.test(name)) return data.toString("utf8");
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Lockfile

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  link?: boolean;
  inBundle?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * The registry packages (name@version, deduplicated, in the order first
 * reached) that the given roots need, from an npm lockfile v2/v3.
 *
 * A root is either a package name, resolved from the project root like
 * `require` would (`node_modules/<name>`), or the path of a workspace folder
 * as keyed in the lockfile (e.g. `codegen`, `templates/create-octet-extension`;
 * `""` is the root project). A root that names a workspace (a `link: true`
 * entry) is followed into its folder.
 *
 * From each package its `dependencies`, `optionalDependencies` and
 * `peerDependencies` are followed, each resolved the way Node does: the
 * nearest `node_modules/<dep>` going up from the dependent's folder. Optional
 * and peer dependencies that the lockfile does not have are skipped; a
 * missing regular dependency throws. `devDependencies` are never followed.
 * Workspace links are followed into their folders but are not listed; bundled
 * (`inBundle`) entries and non-registry (`file:`, git) entries are not listed.
 */
export function lockfileClosure(lockfilePath: string, roots: string[]): PackageSpec[] {
  const lock = JSON.parse(readFileSync(lockfilePath, "utf8")) as { lockfileVersion?: number; packages?: Record<string, LockEntry> };
  const packages = lock.packages;
  if (!packages) throw new Error(`${lockfilePath}: no "packages" map (needs lockfileVersion 2 or 3, has ${lock.lockfileVersion})`);

  const result: PackageSpec[] = [];
  const listed = new Set<string>();
  const visited = new Set<string>();

  /** Follow links to the folder entry they point at. */
  const realLocation = (location: string): string | undefined => {
    for (let hops = 0; hops < 32; hops++) {
      const entry = packages[location];
      if (!entry) return undefined;
      if (!entry.link) return location;
      if (entry.resolved === undefined) return undefined;
      location = entry.resolved;
    }
    throw new Error(`${lockfilePath}: link loop at ${location}`);
  };

  const resolveFrom = (from: string, dep: string): string | undefined => {
    for (let dir = from; ; dir = posix.dirname(dir)) {
      if (dir === ".") dir = "";
      if (posix.basename(dir) !== "node_modules") {
        const candidate = dir ? `${dir}/node_modules/${dep}` : `node_modules/${dep}`;
        if (packages[candidate]) return candidate;
      }
      if (dir === "") return undefined;
    }
  };

  const visit = (location: string, via: string) => {
    const real = realLocation(location);
    if (real === undefined) throw new Error(`${lockfilePath}: ${location} (needed by ${via}) is a link to nothing`);
    if (visited.has(real)) return;
    visited.add(real);
    const entry = packages[real]!;
    const isPackage = real.startsWith("node_modules/") || real.includes("/node_modules/");
    if (isPackage && !entry.inBundle && entry.version !== undefined && isRegistryEntry(entry)) {
      const name = entry.name ?? real.slice(real.lastIndexOf("node_modules/") + "node_modules/".length);
      const key = `${name}@${entry.version}`;
      if (!listed.has(key)) {
        listed.add(key);
        result.push({ name, version: entry.version });
      }
    }
    const follow = (deps: Record<string, string> | undefined, required: boolean) => {
      for (const dep of Object.keys(deps ?? {})) {
        const found = resolveFrom(real, dep);
        if (found) visit(found, real || "(root)");
        else if (required) throw new Error(`${lockfilePath}: ${dep}, a dependency of ${real || "(root)"}, is not in the lockfile`);
      }
    };
    follow(entry.dependencies, true);
    follow(entry.optionalDependencies, false);
    follow(entry.peerDependencies, false);
  };

  for (const root of roots) {
    const isFolder = packages[root] !== undefined && !root.startsWith("node_modules/") && !root.includes("/node_modules/");
    if (isFolder) {
      visit(root, "roots");
      continue;
    }
    const found = resolveFrom("", root);
    if (!found) throw new Error(`${lockfilePath}: root ${JSON.stringify(root)} is neither a package at node_modules/${root} nor a workspace folder`);
    visit(found, "roots");
  }
  return result;
}

function isRegistryEntry(entry: LockEntry): boolean {
  return entry.resolved === undefined || /^https?:\/\//.test(entry.resolved);
}

// ---------------------------------------------------------------------------
// npm cache

/** What {@link packFromNpmCache} returns: the tarball paths, and the specs it had to skip. */
export type PackResult = string[] & { skipped: (PackageSpec & { reason: string })[] };

/**
 * Copy each package's original registry tarball out of npm's cache, offline,
 * into `destDir` (created if missing), with one `npm pack --offline
 * --ignore-scripts` call. Packing a registry tarball copies the cached bytes
 * as they are (the integrity is the lockfile's), runs no lifecycle script and
 * never touches the network (`--offline`: cache mode only-if-cached).
 *
 * The tarballs are looked up by URL in the cache index (`npm cache ls`,
 * keys `make-fetch-happen:request-cache:<registry>/<name>/-/<file>.tgz`) and
 * packed by that URL, so a cache filled from a lockfile with `resolved` URLs
 * (where npm fetches tarballs without their packuments) works as well as one
 * filled from a lockfile without them.
 *
 * A spec whose tarball is not in the cache is skipped, not fatal: typically
 * the other-OS/CPU builds of optional platform packages such as `@oven/bun-*`,
 * which `npm ci` never downloads. Skipped specs are listed in the result's
 * `skipped`. (npm itself stops the whole `pack` at the first uncached spec; one
 * that is indexed but whose content is gone is dropped and the call retried.)
 *
 * The returned paths are in the order of `specs` (duplicates removed). The
 * cache is the one the ambient environment selects (`~/.npm/_cacache` unless
 * `npm_config_cache` says otherwise); `npm ci` in the project fills it.
 */
export async function packFromNpmCache(specs: PackageSpec[], destDir: string): Promise<PackResult> {
  mkdirSync(destDir, { recursive: true });
  const unique = new Map<string, PackageSpec>();
  for (const spec of specs) unique.set(specString(spec), { name: spec.name, version: spec.version });
  const skipped: PackResult["skipped"] = [];
  const npm = npmCommand();
  const env = { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
  if (unique.size === 0) return Object.assign([], { skipped });

  const listing = await run([...npm, "cache", "ls"], { cwd: destDir, env });
  if (listing.code !== 0) throw new Error(`npm cache ls failed (${listing.code}): ${listing.stderr}`);
  const cache = indexCache(listing.stdout);
  // `arg` is what npm pack is given: name@version where the packument is cached too (the faster path),
  // else the tarball's URL (a cache filled from a lockfile with `resolved` URLs has no packuments).
  let pending: { spec: PackageSpec; url: string; arg: string }[] = [];
  for (const spec of unique.values()) {
    const url = cachedTarballUrl(cache.tarballs, spec);
    if (url === undefined) skipped.push({ ...spec, reason: "not in the npm cache" });
    else pending.push({ spec, url, arg: cache.keys.has(packumentUrl(url, spec.name)) ? specString(spec) : url });
  }

  const packed = new Map<string, string>();
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 2 * unique.size) throw new Error("npm pack kept failing on tarballs that are not in the cache");
    const result = await run([...npm, "pack", "--offline", "--ignore-scripts", "--json", "--pack-destination", destDir, ...pending.map((p) => p.arg)], { cwd: destDir, env });
    const parsed = parseJson(result.stdout);
    if (result.code === 0 && Array.isArray(parsed)) {
      for (const item of parsed as { name: string; version: string; filename: string }[]) packed.set(specString(item), join(destDir, item.filename));
      break;
    }
    const error = (parsed as { error?: { code?: string; summary?: string } } | undefined)?.error;
    // ENOTCACHED "request to <url> failed: ...", or for an index entry whose content is gone
    // ENOENT "Invalid response body while trying to fetch <url>: ...".
    const url = /https?:\/\/\S+/.exec(error?.summary ?? "")?.[0]?.replace(/[:.,;]+$/, "");
    // A spec packed by name@version whose packument or tarball npm could not get from its cache is retried
    // by its cached tarball URL; one packed by URL that still fails is skipped.
    const concerned = url === undefined ? [] : pending.filter((p) => concerns(url, p.spec, p.url));
    if (concerned.length === 0) throw new Error(`npm pack failed (${result.code}): ${error?.summary ?? ""}\n${result.stderr}`);
    const culprits = concerned.filter((p) => p.arg === p.url);
    for (const p of concerned) p.arg = p.url;
    for (const culprit of culprits) skipped.push({ ...culprit.spec, reason: `${error?.code}: ${error?.summary}` });
    pending = pending.filter((p) => !culprits.includes(p));
  }

  const paths: string[] = [];
  for (const [key, spec] of unique) {
    const path = packed.get(key);
    if (path !== undefined) {
      if (!existsSync(path)) throw new Error(`npm pack reported ${path} for ${key} but did not write it`);
      paths.push(path);
    } else if (!skipped.some((s) => s.name === spec.name && s.version === spec.version)) {
      throw new Error(`npm pack did not pack ${key} (is its package.json name@version another?)`);
    }
  }
  return Object.assign(paths, { skipped });
}

function specString(spec: PackageSpec): string {
  return `${spec.name}@${spec.version}`;
}

interface CacheIndex {
  /** Every cached request URL. */
  keys: Set<string>;
  /** Cached tarball URLs by file name (`<unscoped name>-<version>.tgz`), with their decoded paths. */
  tarballs: Map<string, { url: string; path: string }[]>;
}

function indexCache(listing: string): CacheIndex {
  const keys = new Set<string>();
  const tarballs = new Map<string, { url: string; path: string }[]>();
  for (const line of listing.split("\n")) {
    const url = /^make-fetch-happen:request-cache:(https?:\/\/\S+)$/.exec(line.trim())?.[1];
    if (!url) continue;
    keys.add(url);
    if (!url.endsWith(".tgz")) continue;
    let path: string;
    try {
      path = decodeURIComponent(new URL(url).pathname);
    } catch {
      continue;
    }
    const file = path.slice(path.lastIndexOf("/") + 1);
    tarballs.set(file, [...(tarballs.get(file) ?? []), { url, path }]);
  }
  return { keys, tarballs };
}

/** The packument URL beside a tarball URL `<registry>/<name>/-/<file>`: `<registry>/<name with %2f>` (npm's cache key form). */
function packumentUrl(tarballUrl: string, name: string): string {
  const head = tarballUrl.slice(0, tarballUrl.lastIndexOf("/-/"));
  for (const form of [name, name.replace("/", "%2f"), name.replace("/", "%2F")]) {
    if (head.endsWith(`/${form}`)) return `${head.slice(0, head.length - form.length)}${name.replace("/", "%2f")}`;
  }
  return "";
}

/** The cached URL `.../<name>/-/<unscoped>-<version>.tgz` of a spec (any registry, any path prefix). */
function cachedTarballUrl(tarballs: CacheIndex["tarballs"], spec: PackageSpec): string | undefined {
  const tail = `/-/${unscopedName(spec.name)}-${spec.version}.tgz`;
  return (tarballs.get(tail.slice(3)) ?? []).find(({ path }) => path.endsWith(tail) && pathEndsWithName(path.slice(0, -tail.length), spec.name))?.url;
}

/** Whether a URL that npm could not get from its cache is about this spec: its cached tarball URL, its packument or its tarball at another registry. */
function concerns(url: string, spec: PackageSpec, cachedUrl: string): boolean {
  if (url === cachedUrl) return true;
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return false;
  }
  const tail = `/-/${unscopedName(spec.name)}-${spec.version}.tgz`;
  return pathEndsWithName(path, spec.name) || (path.endsWith(tail) && pathEndsWithName(path.slice(0, -tail.length), spec.name));
}

/** Whether a decoded URL path ends with the package name `name` (an unscoped name not being the tail of a scoped one). */
function pathEndsWithName(path: string, name: string): boolean {
  if (!path.endsWith(`/${name}`)) return false;
  if (name.startsWith("@")) return true;
  const rest = path.slice(0, -(name.length + 1));
  return !rest.slice(rest.lastIndexOf("/") + 1).startsWith("@");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Run a command to completion, collecting its output. */
export function run(argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));
    const timer = options.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), options.timeoutMs) : undefined;
    child.on("error", (error) => {
      if (timer) clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") });
    });
  });
}

// ---------------------------------------------------------------------------
// Clients

/**
 * Write the configuration that points npm and bun at `registryUrl` into a
 * private HOME: `$HOME/.npmrc` (`registry=`, no audit/fund/update checks;
 * bun reads its `registry=` too). Returns the `.npmrc` path.
 */
export function writeClientConfig(home: string, registryUrl: string): string {
  mkdirSync(home, { recursive: true });
  const npmrc = join(home, ".npmrc");
  writeFileSync(npmrc, [`registry=${registryUrl}`, "audit=false", "fund=false", "update-notifier=false", ""].join("\n"));
  return npmrc;
}

/**
 * A minimal environment for running npm or bun against the private registry:
 * only PATH (as given), HOME (private: npm's cache and bun's install cache go
 * under it), TMPDIR, and a dead proxy (`127.0.0.1:9`) for everything but
 * loopback, so a request that would leave the machine fails at once instead
 * of reaching a public registry. Nothing of the real user's configuration
 * leaks in.
 */
export function clientEnv(home: string, path: string): Record<string, string> {
  const deadProxy = "http://127.0.0.1:9";
  const loopback = "127.0.0.1,localhost,::1";
  return {
    PATH: path,
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    HTTP_PROXY: deadProxy,
    HTTPS_PROXY: deadProxy,
    http_proxy: deadProxy,
    https_proxy: deadProxy,
    NO_PROXY: loopback,
    no_proxy: loopback,
    CI: "true",
  };
}
