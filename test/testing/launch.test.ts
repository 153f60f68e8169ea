import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PASSTHROUGH_ENV, STAGING_LIMIT_BYTES } from "octet-extension/testing";
import { ENV_REPORT, rawExtension, rawWrapper, startHost, tempDir } from "../fixtures/testing/raw.ts";

interface Report {
  env: Record<string, string>;
  cwd: string;
  argv: string[];
  stage: { dir: string; dirMode: number; fileMode: number; entries: string[]; size: number; head: string };
}

async function report(dir: string, options: Parameters<typeof startHost>[1] = {}) {
  const host = await startHost(dir, options);
  await host.initialize();
  const result = (await host.callTool("report")) as { content: string };
  return { host, report: JSON.parse(result.content) as Report };
}

/** A host environment with variables octet must not pass, some it must, and a brokered one. */
const HOST_ENV = {
  PATH: process.env.PATH,
  HOME: "/home/octet-test",
  LANG: "C.UTF-8",
  TERM: "host-term",
  OCTET_PACKAGE_DIR: "/opt/octet-packages",
  SSH_AUTH_SOCK: "/tmp/agent.sock",
  OPENAI_API_KEY: "sk-must-not-leak",
  NODE_OPTIONS: "--require ./evil.js",
  BUN_CONFIG_VERBOSE_FETCH: "1",
  DISPLAY: ":0",
};

describe("test host launch (docs/protocol-0.2.md §1.5): environment", () => {
  test("the environment is cleared: passthrough names, [entrypoint].env, brokered names, then OCTET_* (which win)", async () => {
    const workspace = realpathSync(tempDir("octet-ws-"));
    const { host, report: r } = await report(ENV_REPORT, { env: HOST_ENV, workspace });
    const env = { ...r.env };
    // /bin/sh (the staged wrapper) exports PWD itself; it is the workspace.
    if ("PWD" in env) expect(env.PWD).toBe(workspace);
    delete env.PWD;
    expect(env).toEqual({
      PATH: expect.stringContaining(process.env.PATH ?? ""),
      HOME: "/home/octet-test",
      LANG: "C.UTF-8",
      OCTET_PACKAGE_DIR: "/opt/octet-packages",
      TERM: "manifest-term", // [entrypoint].env overrides the passthrough value
      FROM_MANIFEST: "manifest-value",
      SSH_AUTH_SOCK: "/tmp/agent.sock", // declared in [capabilities].environment (API 0.2)
      OCTET_EXTENSION_API_VERSION: "0.2",
      OCTET_EXTENSION_NAME: "env-report", // the protocol variable beats [entrypoint].env's "spoofed"
      OCTET_EXTENSION_DIR: ENV_REPORT,
      OCTET_EXTENSION_MANIFEST: join(ENV_REPORT, "extension.toml"),
      OCTET_WORKSPACE: workspace,
      OCTET_EXTENSION_SCRATCH: host.scratch,
    });
    expect(host.scratch).not.toBe(workspace);
    expect(await host.shutdown()).toBe(0);
  });

  test("a brokered name is copied only when non-empty; on API 0.1 there is no brokering and API_VERSION is 0.1", async () => {
    const { host, report: empty } = await report(ENV_REPORT, { env: { ...HOST_ENV, SSH_AUTH_SOCK: "" } });
    expect("SSH_AUTH_SOCK" in empty.env).toBe(false);
    expect(await host.shutdown()).toBe(0);

    const v01 = rawExtension({ api: "0.1" });
    const { host: host01, report: r01 } = await report(v01, { env: HOST_ENV });
    expect(r01.env.OCTET_EXTENSION_API_VERSION).toBe("0.1");
    expect(r01.env.OCTET_EXTENSION_NAME).toBe("raw-extension");
    expect(r01.env.OCTET_EXTENSION_DIR).toBe(v01);
    expect("SSH_AUTH_SOCK" in r01.env).toBe(false);
    expect("OPENAI_API_KEY" in r01.env).toBe(false);
    expect(await host01.shutdown()).toBe(0);
  });

  test("the default host environment is process.env, filtered: a test-process variable that is not passed through is absent", async () => {
    process.env.OCTET_TEST_HOST_LEAK = "leaked";
    try {
      const { host, report: r } = await report(ENV_REPORT);
      expect(r.env.OCTET_TEST_HOST_LEAK).toBeUndefined();
      const allowed = new Set([...PASSTHROUGH_ENV, "PWD", "FROM_MANIFEST", "SSH_AUTH_SOCK", "OCTET_EXTENSION_API_VERSION", "OCTET_EXTENSION_NAME", "OCTET_EXTENSION_DIR", "OCTET_EXTENSION_MANIFEST", "OCTET_WORKSPACE", "OCTET_EXTENSION_SCRATCH"]);
      expect(Object.keys(r.env).filter((name) => !allowed.has(name))).toEqual([]);
      expect(await host.shutdown()).toBe(0);
    } finally {
      delete process.env.OCTET_TEST_HOST_LEAK;
    }
  });
});

describe("test host launch (docs/protocol-0.2.md §1.5): staging, arguments, working directory", () => {
  test("only the entry file is staged, into a private 0700 directory, and run from there; removed after exit", async () => {
    const { host, report: r } = await report(ENV_REPORT);
    const staged = r.argv[0]!;
    expect(r.stage.dir).not.toBe(ENV_REPORT);
    expect(staged).toBe(join(r.stage.dir, "extension"));
    expect(r.stage.entries).toEqual(["extension"]); // no extension.toml, no sibling.txt
    expect(r.stage.dirMode).toBe(0o700);
    expect(r.stage.fileMode & 0o077).toBe(0);
    expect(r.stage.head).toBe(readFileSync(join(ENV_REPORT, "extension"), "utf8"));
    expect(existsSync(join(ENV_REPORT, "sibling.txt"))).toBe(true);
    expect(await host.shutdown()).toBe(0);
    expect(existsSync(r.stage.dir)).toBe(false);
  });

  test("[entrypoint].args are passed as-is without a shell; the working directory is the workspace", async () => {
    const workspace = realpathSync(tempDir("octet-ws-"));
    const { host, report: r } = await report(ENV_REPORT, { workspace });
    expect(r.argv.slice(1)).toEqual(["--flag", "two words", "$HOME"]);
    expect(r.cwd).toBe(workspace);
    expect(r.env.OCTET_WORKSPACE).toBe(workspace);
    expect(host.workspace).toBe(workspace);
    expect(await host.shutdown()).toBe(0);

    const { host: fresh, report: d } = await report(ENV_REPORT);
    expect(d.cwd).toBe(fresh.workspace);
    expect(d.cwd).not.toBe(ENV_REPORT);
    expect(await fresh.shutdown()).toBe(0);
  });

  test("an entry file of exactly 64 MiB is staged and runs; one byte more fails to start", async () => {
    expect(STAGING_LIMIT_BYTES).toBe(64 * 1024 * 1024);
    const dir = rawExtension();
    const entry = join(dir, "extension");
    // The wrapper execs before sh reads further, so zero padding never runs.
    writeFileSync(entry, rawWrapper());
    truncateSync(entry, STAGING_LIMIT_BYTES);
    chmodSync(entry, 0o755);
    const { host, report: r } = await report(dir);
    expect(r.stage.entries).toEqual(["extension"]);
    expect(r.stage.size).toBe(STAGING_LIMIT_BYTES);
    expect(await host.shutdown()).toBe(0);

    truncateSync(entry, STAGING_LIMIT_BYTES + 1);
    await expect(startHost(dir)).rejects.toThrow("extension entrypoint exceeds the 64 MiB staging limit");
  });

  test("a bare command is looked up beside the manifest first, then on PATH, and staged either way", async () => {
    const dir = rawExtension();
    const bin = tempDir("octet-path-");
    mkdirSync(join(bin, "sub"));
    writeFileSync(join(bin, "raw-on-path"), rawWrapper());
    chmodSync(join(bin, "raw-on-path"), 0o755);
    const manifest = join(dir, "extension.toml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace('command = "extension"', 'command = "raw-on-path"'));
    const { host, report: r } = await report(dir, { env: { ...HOST_ENV, PATH: `${bin}:${process.env.PATH}` } });
    expect(r.argv[0]).toBe(join(r.stage.dir, "raw-on-path"));
    expect(r.stage.dir).not.toBe(bin);
    expect(await host.shutdown()).toBe(0);
  });
});
