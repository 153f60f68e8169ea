/**
 * `octet-extension build --target` with a runtime that is not at hand: the
 * real CLI fetches `@oven/bun-darwin-aarch64` of the running Bun's version
 * once, with `npm pack`, from a registry on 127.0.0.1 serving the real
 * tarball (.cache/bun-targets, fetched by the repository's postinstall), into
 * the per-user cache under $XDG_CACHE_HOME; nothing else is reachable.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";
import { binaryFormat } from "../../codegen/targets.ts";
import { serveStaticRegistry, type StaticRegistry } from "../registry/static-registry.ts";
import { REPO, removeProjects, weatherProject04 } from "./helpers.ts";

const VERSION = Bun.version;
const PKG = "@oven/bun-darwin-aarch64";
const TARBALL = join(REPO, `.cache/bun-targets/oven-bun-darwin-aarch64-${VERSION}.tgz`);
const ENTRY = `bun-darwin-aarch64-${VERSION}`;
const PACK_COMMAND = `npm pack ${PKG}@${VERSION}`;

let registry: StaticRegistry;
let project: string;
/** A cache the first test filled, for the later ones to copy. */
let filled: string | undefined;

beforeAll(async () => {
  if (!existsSync(TARBALL)) throw new Error(`${TARBALL} is missing: run npm install (its postinstall fetches it)`);
  registry = await serveStaticRegistry([{ name: PKG, version: VERSION, tarball: TARBALL }]);
  project = await weatherProject04();
});

afterAll(() => {
  registry?.stop();
  removeProjects();
});

/** `octet-extension build --target darwin-arm64 …` with a private HOME, the cache under `xdg`, npm pointed at `registryUrl` and every other host behind a dead proxy. */
async function build(xdg: string, extra: string[] = [], registryUrl = registry.url) {
  const home = temporaryDirectory("target-cache-home-");
  const deadProxy = "http://127.0.0.1:9";
  const proc = Bun.spawn([process.execPath, join(REPO, "codegen/cli.ts"), "build", "--dir", project, "--target", "darwin-arm64", "--skip-typecheck", ...extra], {
    env: { PATH: process.env.PATH!, HOME: home, XDG_CACHE_HOME: xdg, npm_config_registry: registryUrl, HTTP_PROXY: deadProxy, HTTPS_PROXY: deadProxy, http_proxy: deadProxy, https_proxy: deadProxy, NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return { code, stderr, lines: stderr.trimEnd().split("\n") };
}

const cacheOf = (xdg: string) => join(xdg, "octet-extension", "bun-targets");
const tarballRequests = () => registry.requests.filter((r) => r.endsWith(".tgz")).length;
const fetchLines = (lines: string[]) => lines.filter((line) => line.startsWith("fetching "));
const builtFormat = () => binaryFormat(join(project, "dist/darwin-arm64/weather/weather.bin"));
const sha256 = (path: string) => new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");

/** A copy of the cache the first test filled. */
function filledCache(): string {
  if (!filled) throw new Error("the first test did not fill a cache");
  const xdg = temporaryDirectory("target-cache-xdg-");
  cpSync(join(filled, "octet-extension"), join(xdg, "octet-extension"), { recursive: true });
  return xdg;
}

describe("build --target fetches a missing runtime into the per-user cache", () => {
  test("an empty cache: fetched once with npm pack (one progress line), built; the next build uses the cache", async () => {
    const xdg = temporaryDirectory("target-cache-xdg-");
    const first = await build(xdg);
    expect(first.stderr).not.toContain("error:");
    expect(first.code).toBe(0);
    expect(fetchLines(first.lines)).toEqual([`fetching the Bun ${VERSION} runtime for darwin-arm64: ${PACK_COMMAND} into ${cacheOf(xdg)}`]);
    expect(builtFormat()).toBe("macho-arm64");
    expect(tarballRequests()).toBe(1);
    // A private directory, one entry: the runtime and its record; no temporary directory left.
    expect(statSync(cacheOf(xdg)).mode & 0o777).toBe(0o700);
    expect(readdirSync(cacheOf(xdg))).toEqual([ENTRY]);
    const entry = join(cacheOf(xdg), ENTRY);
    expect(readdirSync(entry).sort()).toEqual(["bun", "runtime.json"]);
    const record = JSON.parse(readFileSync(join(entry, "runtime.json"), "utf8"));
    expect(record).toMatchObject({ package: PKG, version: VERSION, binary: "bun", sha256: sha256(join(entry, "bun")) });
    expect(record.integrity).toBe(`sha512-${new Bun.CryptoHasher("sha512").update(readFileSync(TARBALL)).digest("base64")}`);
    filled = xdg;

    const requests = registry.requests.length;
    rmSync(join(project, "dist"), { recursive: true });
    const second = await build(xdg);
    expect(second.code).toBe(0);
    expect(fetchLines(second.lines)).toEqual([]);
    expect(registry.requests.length).toBe(requests);
    expect(builtFormat()).toBe("macho-arm64");
  }, 60_000);

  test("--offline with an empty cache refuses with the npm pack command and fetches nothing", async () => {
    const xdg = temporaryDirectory("target-cache-xdg-");
    const requests = registry.requests.length;
    const offline = await build(xdg, ["--offline"]);
    expect(offline.code).toBe(1);
    expect(offline.lines.at(-1)).toStartWith(`error: no Bun ${VERSION} runtime for darwin-arm64: not in node_modules/@oven/bun-darwin-aarch64`);
    expect(offline.lines.at(-1)).toContain(`fetch it once with \`${PACK_COMMAND}\` into a folder and pass --bun-packages FOLDER`);
    expect(fetchLines(offline.lines)).toEqual([]);
    expect(registry.requests.length).toBe(requests);
    expect(existsSync(join(cacheOf(xdg), ENTRY))).toBe(false);
  }, 30_000);

  test("--bun-packages wins over the cache", async () => {
    // A cache entry that passes its checksum but holds the darwin-x64 runtime: used, it makes an x86-64 executable.
    const xdg = filledCache();
    const entry = join(cacheOf(xdg), ENTRY);
    const other = join(REPO, `.cache/bun-targets/oven-bun-darwin-x64-${VERSION}.tgz`);
    expect(Bun.spawnSync(["tar", "-xzf", other, "-O", "package/bin/bun"], { stdout: Bun.file(join(entry, "bun")) }).exitCode).toBe(0);
    const record = JSON.parse(readFileSync(join(entry, "runtime.json"), "utf8"));
    writeFileSync(join(entry, "runtime.json"), JSON.stringify({ ...record, sha256: sha256(join(entry, "bun")), size: statSync(join(entry, "bun")).size }));
    const fromCache = await build(xdg, ["--offline"]);
    expect(fromCache.lines.at(-1)).toBe("error: the darwin-arm64 executable came out as macho-x86_64, not macho-arm64");

    const requests = registry.requests.length;
    const packages = await build(xdg, ["--bun-packages", join(REPO, ".cache/bun-targets")]);
    expect(packages.stderr).not.toContain("error:");
    expect(packages.code).toBe(0);
    expect(builtFormat()).toBe("macho-arm64");
    expect(fetchLines(packages.lines)).toEqual([]);
    expect(registry.requests.length).toBe(requests);
  }, 60_000);

  test("a tampered cache entry is detected: refused with --offline, fetched again without", async () => {
    const xdg = filledCache();
    const binary = join(cacheOf(xdg), ENTRY, "bun");
    const good = sha256(binary);
    const bytes = readFileSync(binary);
    bytes[bytes.length >> 1] = 0xff ^ bytes[bytes.length >> 1]!;
    writeFileSync(binary, bytes);

    const tarballs = tarballRequests();
    const offline = await build(xdg, ["--offline"]);
    expect(offline.code).toBe(1);
    expect(offline.lines.at(-1)).toBe(
      `error: ${binary} does not match the sha256 recorded in runtime.json beside it (corrupted or changed): build without --offline to fetch it again, or delete ${join(cacheOf(xdg), ENTRY)}`,
    );
    expect(tarballRequests()).toBe(tarballs);

    const online = await build(xdg);
    expect(online.stderr).not.toContain("error:");
    expect(online.code).toBe(0);
    expect(online.lines).toContain(`warning: ${binary} does not match the sha256 recorded in runtime.json beside it (corrupted or changed): fetching it again`);
    expect(fetchLines(online.lines)).toHaveLength(1);
    expect(tarballRequests()).toBe(tarballs + 1);
    expect(sha256(binary)).toBe(good);
    expect(builtFormat()).toBe("macho-arm64");
    expect(readdirSync(cacheOf(xdg))).toEqual([ENTRY]);
  }, 60_000);

  test("a symlink planted at the entry's name is never followed: refused with --offline, replaced by a fetched entry without", async () => {
    // The link points at a good entry, so following it would build without a fetch.
    const xdg = filledCache();
    const elsewhere = join(temporaryDirectory("target-cache-elsewhere-"), "entry");
    cpSync(join(cacheOf(xdg), ENTRY), elsewhere, { recursive: true });
    const entry = join(cacheOf(xdg), ENTRY);
    Bun.spawnSync(["rm", "-rf", entry]);
    symlinkSync(elsewhere, entry);

    const offline = await build(xdg, ["--offline"]);
    expect(offline.code).toBe(1);
    expect(offline.lines.at(-1)).toBe(`error: ${entry} is not a directory this cache wrote (a symlink): build without --offline to fetch it again, or delete ${entry}`);

    const tarballs = tarballRequests();
    const online = await build(xdg);
    expect(online.code).toBe(0);
    expect(fetchLines(online.lines)).toHaveLength(1);
    expect(tarballRequests()).toBe(tarballs + 1);
    expect(lstatSync(entry).isDirectory()).toBe(true);
    expect(readdirSync(elsewhere).sort()).toEqual(["bun", "runtime.json"]);
    expect(() => readlinkSync(entry)).toThrow();
  }, 60_000);

  test("a tarball that does not match the registry's sha512 integrity is refused and nothing is cached", async () => {
    const lying = await serveStaticRegistry([{ name: PKG, version: VERSION, tarball: TARBALL, integrity: `sha512-${new Bun.CryptoHasher("sha512").update("another tarball").digest("base64")}` }]);
    const silent = await serveStaticRegistry([{ name: PKG, version: VERSION, tarball: TARBALL, integrity: null }]);
    try {
      const xdg = temporaryDirectory("target-cache-xdg-");
      const refused = await build(xdg, [], lying.url);
      expect(refused.code).toBe(1);
      expect(refused.lines.at(-1)).toStartWith(`error: could not fetch ${PKG}@${VERSION} with npm pack: EINTEGRITY`);
      expect(readdirSync(cacheOf(xdg))).toEqual([]);

      const unchecked = await build(xdg, [], silent.url);
      expect(unchecked.code).toBe(1);
      expect(unchecked.lines.at(-1)).toBe(`error: the registry gives no sha512 integrity for ${PKG}@${VERSION} (npm view ${PKG}@${VERSION} dist.integrity): nothing to check the download against — fetch it another way and pass --bun-packages FOLDER`);
      expect(readdirSync(cacheOf(xdg))).toEqual([]);
    } finally {
      lying.stop();
      silent.stop();
    }
  }, 60_000);

  test("a cache directory others can write to is refused", async () => {
    const xdg = temporaryDirectory("target-cache-xdg-");
    mkdirSync(cacheOf(xdg), { recursive: true });
    chmodSync(cacheOf(xdg), 0o777);
    const requests = registry.requests.length;
    const refused = await build(xdg);
    expect(refused.code).toBe(1);
    expect(refused.lines.at(-1)).toBe(`error: ${cacheOf(xdg)} is writable by others: the Bun runtime cache must be private — chmod 700 ${cacheOf(xdg)}, or delete it`);
    expect(registry.requests.length).toBe(requests);
  }, 30_000);
});
