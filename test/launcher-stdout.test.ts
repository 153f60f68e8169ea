/**
 * stdout sealed from the first instruction (issue 24 item 3): the `#!/bin/sh`
 * launchers (gen's dev entry point, build's launcher) hand the real stdout to
 * the extension on fd 3 (named in OCTET_EXTENSION_PROTOCOL_FD) and point fd 1
 * at stderr before Bun starts, so writes to fd 1 while the module graph loads
 * land on stderr, never on the wire. Started without those redirections, the
 * same extension behaves as before. Fixture: test/fixtures/launcher-stdout/.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TestHost, temporaryDirectory } from "octet-extension/testing";
import { compileStandalone } from "../codegen/build.ts";
import { devWrapper } from "../codegen/gen.ts";
import { protocolExec, unixLauncher } from "../codegen/unix-launcher.ts";
import { expectCleanStreams, FIXTURE as WIRE_FIXTURE, ready, startHost } from "./helpers.ts";

const FIXTURE = new URL("./fixtures/launcher-stdout", import.meta.url).pathname;
const DEV = join(FIXTURE, "dev");
const DIRECT = join(FIXTURE, "direct");
const EXAMPLES = new URL("../examples", import.meta.url).pathname;
const EARLY_SEAL = new URL("./fixtures/early-seal/early-seal-v02", import.meta.url).pathname;
const JUNK = ["junk process.stdout.write", "junk fs.writeSync", "junk console.log"];

/** The extension's frames as the host read them: every one JSON-RPC 2.0, none carrying the junk. */
function expectIntactWire(host: TestHost): void {
  const frames = host.transcript.filter((e) => e.from === "extension").map((e) => e.text);
  expect(frames.length).toBeGreaterThan(0);
  for (const text of frames) expect(JSON.parse(text).jsonrpc).toBe("2.0");
  expect(frames.some((text) => JUNK.some((junk) => text.includes(junk)))).toBe(false);
}

/**
 * `shutdown` is acknowledged and the process exits 0. (`host.shutdown()` would throw: the strict
 * host counts the raw junk lines on stderr as violations, which {@link expectJunkOnStderr} lists.)
 */
async function shutdown(host: TestHost): Promise<void> {
  expect(await host.call("shutdown", {})).toEqual({});
  expect(await Promise.race([host.exited, Bun.sleep(2_000).then(() => "still running")])).toBe(0);
}

/** The junk written before the SDK loaded is on stderr, raw (the only unstructured lines); nothing else is out of place. */
function expectJunkOnStderr(host: TestHost): void {
  expect(host.stderr.filter((line) => JUNK.includes(line)).sort()).toEqual([...JUNK].sort());
  expect([...host.violations].sort()).toEqual(JUNK.map((junk) => `unstructured stderr line: ${junk}`).sort());
}

type Descriptor = { fd: number; target: string; cloexec: boolean };

async function descriptors(host: TestHost): Promise<{ variable: string | null; descriptors: Descriptor[] }> {
  const reply = (await host.callTool("descriptors")) as { content: { text: string }[] };
  return JSON.parse(reply.content[0]!.text);
}

/** After the seal: fds 1 and 2 are the stray files, and nothing a child could inherit reaches the host's streams. */
function expectSealed(state: { variable: string | null; descriptors: Descriptor[] }): void {
  expect(state.variable).toBeNull();
  const byFd = new Map(state.descriptors.map((d) => [d.fd, d]));
  expect(byFd.get(1)?.target).toMatch(/octet-stdout-.* \(deleted\)$/);
  expect(byFd.get(2)?.target).toMatch(/octet-stderr-.* \(deleted\)$/);
  const inheritable = state.descriptors.filter((d) => d.fd >= 3 && !d.cloexec && /^(pipe|socket):/.test(d.target));
  expect(inheritable).toEqual([]);
}

describe("a launcher moves stdout before Bun starts (issue 24 item 3)", () => {
  test("the dev fixture's entry point is exactly the one gen writes; every example's entry point execs Bun the same way", () => {
    expect(readFileSync(join(DEV, "extension"), "utf8")).toBe(devWrapper("../fixture.ts"));
    const examples = [...new Bun.Glob("*/extension").scanSync(EXAMPLES)];
    expect(examples.length).toBeGreaterThan(5);
    for (const file of examples) {
      const exec = readFileSync(join(EXAMPLES, file), "utf8").trimEnd().split("\n").at(-1);
      expect(exec).toBe(protocolExec(`bun --no-env-file --config="$OCTET_EXTENSION_DIR/bunfig.toml" "$OCTET_EXTENSION_DIR/extension.ts" "$@"`));
    }
  });

  test("through gen's dev entry point, writes to fd 1 at import land on stderr; the wire is intact and sealed after the first frame", async () => {
    const host = await ready(DEV);
    expect(await host.callTool("echo", { text: "fine" })).toMatchObject({ content: [{ type: "text", text: "fine" }], is_error: false });
    expectSealed(await descriptors(host));
    await shutdown(host);
    expectIntactWire(host);
    expectJunkOnStderr(host);
  });

  test("over pipes, as octet starts it: the protocol pipe is reopened close-on-exec and the launcher's fd 3 closed", async () => {
    // The extension's stdout and stderr are pipes (to two `cat`s), as under octet; the test host's are sockets.
    const pipes = `{ "$OCTET_EXTENSION_DIR"/extension 2>&1 1>&3 3>&- | cat >&2; } 3>&1 | cat`;
    const host = await ready(DEV, { entrypoint: { command: "sh", args: ["-c", pipes] } });
    expect(await host.callTool("echo", { text: "piped" })).toMatchObject({ content: [{ type: "text", text: "piped" }] });
    const state = await descriptors(host);
    expectSealed(state);
    // The streams are pipes here (only stdin is the test host's socket), so this is the reopen path.
    expect(state.descriptors.filter((d) => d.fd > 0 && /^socket:/.test(d.target))).toEqual([]);
    expect(state.descriptors.some((d) => /^pipe:/.test(d.target))).toBe(true);
    await shutdown(host);
    expectIntactWire(host);
    expectJunkOnStderr(host);
  });

  test("a built bundle's launcher does the same for the compiled executable (no Bun on PATH)", async () => {
    const bundle = join(temporaryDirectory("launcher-bundle-"), "launcher-stdout-dev");
    const compiled = compileStandalone(join(FIXTURE, "fixture.ts"), join(bundle, "launcher-stdout-dev.bin"), { bytecode: false, cwd: FIXTURE });
    expect(compiled.exitCode).toBe(0);
    const launcher = unixLauncher("launcher-stdout-dev");
    writeFileSync(join(bundle, launcher.file), launcher.text, { mode: 0o755 });
    copyFileSync(join(DEV, "extension.toml"), join(bundle, "extension.toml"));
    const host = await ready(bundle, { env: { PATH: "/usr/bin:/bin" }, addBunToPath: false });
    expect(await host.callTool("echo", { text: "built" })).toMatchObject({ content: [{ type: "text", text: "built" }] });
    expectSealed(await descriptors(host));
    await shutdown(host);
    expectIntactWire(host);
    expectJunkOnStderr(host);
  }, 60_000);

  test("started without the redirections (the source run directly), the junk reaches stdout as before: a fatal violation", async () => {
    const host = await startHost(DIRECT);
    await expect(host.initialize()).rejects.toThrow("octet would kill the extension: non-JSON on stdout: junk process.stdout.write");
    await host.exited;
    expect(host.violations).toEqual(["non-JSON on stdout: junk process.stdout.write"]);
  });
});

describe("OCTET_EXTENSION_PROTOCOL_FD (read once, then removed from the environment)", () => {
  /** Start the wire fixture (which writes nothing early) through `sh -c SCRIPT`; it must answer over the real stdout. */
  async function through(script: string): Promise<TestHost> {
    const host = await ready(WIRE_FIXTURE, { entrypoint: { command: "sh", args: ["-c", script] }, requestTimeoutMs: 5_000 });
    expect(await host.callTool("echo", { text: "ok" })).toMatchObject({ content: "ok" });
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
    return host;
  }
  const mentions = (host: TestHost) => host.logs().filter((r) => JSON.stringify(r).includes("OCTET_EXTENSION_PROTOCOL_FD"));

  test("a value that is not FD or FD:PID with FD ≥ 3 is one warning, and frames go to fd 1", async () => {
    const host = await through(`OCTET_EXTENSION_PROTOCOL_FD=2 exec "$OCTET_EXTENSION_DIR"/extension`);
    expect(mentions(host)).toEqual([
      { level: "warning", message: "OCTET_EXTENSION_PROTOCOL_FD is not FD or FD:PID with FD 3 or more: frames go to stdout", value: "2" },
    ]);
  });

  test("set for another process and without the redirections (a variable passed down), it is ignored", async () => {
    const host = await through(`OCTET_EXTENSION_PROTOCOL_FD=3:1 exec "$OCTET_EXTENSION_DIR"/extension`);
    expect(mentions(host)).toEqual([]);
  });

  test("set for another process with the redirections in place (a program in between that did not exec), it is used", async () => {
    await through(`OCTET_EXTENSION_PROTOCOL_FD=3:1 exec "$OCTET_EXTENSION_DIR"/extension 3>&1 1>&2`);
  });

  test("with octet-extension/seal under a launcher, the seal at import takes the launcher's descriptor: every early write is a log line", async () => {
    const host = await ready(EARLY_SEAL, { entrypoint: { command: "sh", args: ["-c", `OCTET_EXTENSION_PROTOCOL_FD="3:$$" exec "$OCTET_EXTENSION_DIR"/extension 3>&1 1>&2`] } });
    expect(await host.callTool("echo", { text: "fine" })).toMatchObject({ content: [{ text: "fine" }] });
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
    const early = host.logs().filter((r) => typeof r.message === "string" && (r.message as string).startsWith("early "));
    expect(early.map((r) => r.message).sort()).toEqual(["early Bun.write", "early child", "early console.log", "early fs.writeSync", "early process.stdout.write", "early raw stderr"]);
  });
});
