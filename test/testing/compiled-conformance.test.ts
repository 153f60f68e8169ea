import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileStandalone } from "../../codegen/build.ts";
import { unixLauncher } from "../../codegen/unix-launcher.ts";
import { TestHost } from "octet-extension/testing";

/**
 * docs/conformance-fixture.md §3: the harness also runs the fixture compiled with
 * the project's build. This compiles test/fixtures/conformance/fixture.ts once
 * with `octet-extension build`'s compile step (`compileStandalone`: `bun build
 * --compile --bytecode --minify`, no workspace .env/bunfig, plain compile as
 * the fallback) into the bundle layout `build` ships — a tiny `extension`
 * wrapper that octet stages plus `NAME.bin` beside the manifest — and runs a
 * few conformance checks on it under the test host with no Bun on PATH.
 */
const REPO = new URL("../../", import.meta.url).pathname;
const FIXTURE = join(REPO, "test/fixtures/conformance");
const NAME = "octet-conformance-fixture";
/** The wrapper text `octet-extension build` writes (codegen/unix-launcher.ts). */
const WRAPPER = unixLauncher(NAME).text;

let root = "";
const bundles: Record<"0.1" | "0.2", string> = { "0.1": "", "0.2": "" };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "octet-compiled-fixture-"));
  const binary = join(root, `${NAME}.bin`);
  let built = compileStandalone(join(FIXTURE, "fixture.ts"), binary, { bytecode: true, cwd: REPO });
  if (built.exitCode !== 0) built = compileStandalone(join(FIXTURE, "fixture.ts"), binary, { bytecode: false, cwd: REPO });
  if (built.exitCode !== 0) throw new Error(`compiling the conformance fixture failed:\n${built.stderr.toString()}`);
  for (const [api, source] of [["0.1", "v01"], ["0.2", "v02"]] as const) {
    const dir = join(root, source, NAME);
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(FIXTURE, source, NAME, "extension.toml"), join(dir, "extension.toml"));
    await Bun.write(join(dir, "extension"), WRAPPER);
    chmodSync(join(dir, "extension"), 0o755);
    linkSync(binary, join(dir, `${NAME}.bin`));
    bundles[api] = dir;
  }
}, 60_000);

const started: TestHost[] = [];
afterEach(() => {
  for (const host of started.splice(0)) host.kill();
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** As octet starts an installed bundle: cleared environment, and no Bun anywhere on PATH. */
async function start(api: "0.1" | "0.2"): Promise<TestHost> {
  const env = { PATH: "/usr/bin:/bin", HOME: process.env.HOME, LANG: "C.UTF-8" };
  expect(Bun.which("bun", { PATH: env.PATH })).toBeNull();
  const host = await TestHost.start(bundles[api], { env, addBunToPath: false, requestTimeoutMs: 10_000 });
  started.push(host);
  return host;
}

describe("conformance fixture, compiled with the project's build (docs/conformance-fixture.md §3)", () => {
  test("the bundle is a tiny staged wrapper plus a standalone executable that is not staged", () => {
    const dir = bundles["0.2"];
    expect(statSync(join(dir, "extension")).size).toBeLessThan(1024);
    expect(statSync(join(dir, `${NAME}.bin`)).size).toBeGreaterThan(1024 * 1024);
    expect(readFileSync(join(dir, "extension.toml"), "utf8")).toContain('command = "extension"');
  });

  test("API 0.1: initialize (exactly api_version, 9 tools, the command), echo, shutdown", async () => {
    const host = await start("0.1");
    const result = await host.initialize();
    expect(Object.keys(result).sort()).toEqual(["api_version", "commands", "tools"]);
    expect(result.api_version).toBe("0.1");
    expect((result.tools as unknown[]).length).toBe(9);
    expect(result.commands).toEqual(JSON.parse(readFileSync(join(FIXTURE, "spec/commands.json"), "utf8")));
    expect(await host.callTool("echo", { b: [1, "é"], a: { y: null, x: true } })).toEqual({ content: 'echo:{"a":{"x":true,"y":null},"b":[1,"é"]}', is_error: false, metadata: {} });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("API 0.2: initialize (protocol, 23 tools, limit 4), echo as content parts, shutdown", async () => {
    const host = await start("0.2");
    const result = await host.initialize();
    expect((result.tools as unknown[]).length).toBe(23);
    expect(result.protocol).toMatchObject({ version: "0.2", limits: { max_concurrent_requests: 4 } });
    expect(host.features).toEqual(new Set(["request_cancellation", "content_parts", "request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools"]));
    expect(await host.callTool("echo", { a: 1 })).toEqual({ content: [{ type: "text", text: 'echo:{"a":1}' }], is_error: false, metadata: {} });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });
});
