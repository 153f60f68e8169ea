import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTemporaryDirectory, temporaryDirectory } from "octet-extension/testing";
import { pathWithBun } from "../../src/testing/launch.ts";

const HELLO = new URL("../../examples/hello-world", import.meta.url).pathname;

describe("temporary directories (src/testing/temp-dirs.ts)", () => {
  test("a directory is private, under the system temp dir, and removable early", () => {
    const dir = temporaryDirectory("octet-temp-test-");
    expect(existsSync(dir)).toBe(true);
    writeFileSync(join(dir, "file"), "x");
    removeTemporaryDirectory(dir);
    expect(existsSync(dir)).toBe(false);
    expect(() => removeTemporaryDirectory(dir)).not.toThrow();
  });

  test("the test host's workspace, scratch and the caller's directories are gone when the process exits", async () => {
    // A separate process uses the public API, reports the paths, and exits (here: without shutting the extension down).
    const script = `
      import { existsSync } from "node:fs";
      import { removeTemporaryDirectories, TestHost, temporaryDirectory } from "octet-extension/testing";
      const early = temporaryDirectory("octet-temp-test-");
      removeTemporaryDirectories(); // what a preloaded afterAll does under bun test
      if (existsSync(early)) throw new Error("removeTemporaryDirectories left " + early);
      const own = temporaryDirectory("octet-temp-test-");
      const host = await TestHost.start(${JSON.stringify(HELLO)});
      await host.initialize();
      console.log(JSON.stringify({ own, workspace: host.workspace, scratch: host.scratch }));
      process.exit(0);
    `;
    const proc = Bun.spawn([process.execPath, "--eval", script], { cwd: new URL("../..", import.meta.url).pathname, stdout: "pipe", stderr: "pipe" });
    const [out, err, status] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(status).toBe(0);
    const paths = JSON.parse(out) as Record<string, string>;
    expect(Object.keys(paths).sort()).toEqual(["own", "scratch", "workspace"]);
    for (const path of Object.values(paths)) expect(existsSync(path)).toBe(false);
  });

  test("a workspace passed in is the caller's and stays", async () => {
    const { TestHost } = await import("octet-extension/testing");
    const workspace = temporaryDirectory("octet-temp-test-");
    const host = await TestHost.start(HELLO, { workspace });
    await host.initialize();
    expect(await host.shutdown()).toBe(0);
    expect(existsSync(workspace)).toBe(true);
    expect(existsSync(host.scratch)).toBe(false); // the host's own scratch goes with the extension
    removeTemporaryDirectory(workspace);
  });

  test("the bun shim for a PATH without bun is made again after it was removed", () => {
    const shim = pathWithBun("/nonexistent");
    expect(shim.startsWith("/nonexistent:")).toBe(true);
    const dir = shim.slice("/nonexistent:".length);
    expect(existsSync(join(dir, "bun"))).toBe(true);
    removeTemporaryDirectory(dir);
    const again = pathWithBun("/nonexistent").slice("/nonexistent:".length);
    expect(existsSync(join(again, "bun"))).toBe(true);
  });
});
