import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterEveryTest } from "./setup.ts";
import { join } from "node:path";
import { compileStandalone } from "../codegen/build.ts";
import { loadManifest, TestHost, type TestHostOptions, temporaryDirectory } from "octet-extension/testing";
import { pathWithBun, planLaunch } from "../src/testing/launch.ts";

export const FIXTURE = new URL("./fixtures/wire-fixture", import.meta.url).pathname;
export const QUIET_FIXTURE = new URL("./fixtures/wire-fixture-quiet", import.meta.url).pathname;

const started: TestHost[] = [];
afterEveryTest(() => {
  for (const host of started.splice(0)) host.kill();
});

/** Start a fixture under the strict test host; killed after each test. */
export async function startHost(dir = FIXTURE, options: TestHostOptions = {}): Promise<TestHost> {
  const host = await TestHost.start(dir, options);
  started.push(host);
  return host;
}

/** Start and initialize. */
export async function ready(dir = FIXTURE, options: TestHostOptions = {}): Promise<TestHost> {
  const host = await startHost(dir, options);
  await host.initialize();
  return host;
}

/** Every stdout line is one JSON-RPC 2.0 object; every stderr line a structured log record. */
export function expectCleanStreams(host: TestHost): void {
  for (const entry of host.transcript.filter((e) => e.from === "extension")) {
    const frame = JSON.parse(entry.text);
    if (frame.jsonrpc !== "2.0") throw new Error(`not a JSON-RPC 2.0 frame: ${entry.text}`);
  }
  for (const line of host.stderr.filter((l) => l.trim() !== "")) {
    const record = JSON.parse(line);
    if (typeof record.level !== "string" || typeof record.message !== "string") throw new Error(`unstructured stderr: ${line}`);
  }
  if (host.violations.length > 0) throw new Error(`violations: ${host.violations.join("; ")}`);
}

/**
 * Launch a fixture as octet would, but with raw pipes and no host double, for
 * tests that need to misbehave as a reader (slow or stalled stdout).
 */
export function spawnRaw<E extends "ignore" | "pipe" = "ignore">(dir = FIXTURE, stderr: E = "ignore" as E) {
  const manifest = loadManifest(dir);
  const workspace = temporaryDirectory("octet-raw-");
  const plan = planLaunch(manifest, { workspace, hostEnv: { ...process.env, PATH: pathWithBun(process.env.PATH) } });
  const proc = Bun.spawn(plan.argv, { cwd: plan.cwd, env: plan.env, stdin: "pipe", stdout: "pipe", stderr });
  return { manifest, proc };
}

/**
 * For the tests of one file: a temporary directory and `extension.bin` compiled there from the
 * source `prepare(dir)` returns (it may write it), with `octet-extension build`'s compile step,
 * made before the first test and removed after the last. Read the paths inside the tests.
 */
export function compiledOnce(prefix: string, prepare: (dir: string) => string): { dir: string; source: string; binary: string } {
  const built = { dir: "", source: "", binary: "" };
  beforeAll(() => {
    built.dir = mkdtempSync(join(tmpdir(), prefix));
    built.source = prepare(built.dir);
    built.binary = join(built.dir, "extension.bin");
    const compiled = compileStandalone(built.source, built.binary, { bytecode: true, cwd: new URL("../", import.meta.url).pathname });
    if (compiled.exitCode !== 0) throw new Error(`compiling ${built.source} failed:\n${compiled.stderr.toString()}`);
  }, 120_000);
  afterAll(() => {
    if (built.dir) rmSync(built.dir, { recursive: true, force: true });
  });
  return built;
}
