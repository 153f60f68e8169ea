/**
 * `octet-extension call` as an author uses it from a shell (issue 25 item 6):
 * state kept in a scratch directory across calls (`--scratch DIR`), the
 * result's text alone (`--quiet`), and the frames only on request
 * (`--frames`) or when something went wrong. Against
 * test/fixtures/call-state, which keeps its items in OCTET_EXTENSION_SCRATCH.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";

const CLI = new URL("../../codegen/cli.ts", import.meta.url).pathname;
const FIXTURE = new URL("../fixtures/call-state/call-state", import.meta.url).pathname;
const INITIALIZE = '→ {"jsonrpc":"2.0","id":1,"method":"initialize"';

function call(args: string[], cwd = temporaryDirectory("call-cwd-")): { code: number; out: string; err: string; cwd: string } {
  const run = Bun.spawnSync([process.execPath, CLI, "call", "--dir", FIXTURE, ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode ?? -1, out: run.stdout.toString(), err: run.stderr.toString(), cwd };
}

describe("octet-extension call", () => {
  test("--scratch DIR: created if missing (0700) and kept, so add, add, then list sees both items", () => {
    const scratch = join(temporaryDirectory("call-scratch-"), "state", "here");
    expect(existsSync(scratch)).toBe(false);
    expect(call(["add", '{"item":"milk"}', "--scratch", scratch])).toMatchObject({ code: 0, out: "added milk\n" });
    expect(statSync(scratch).mode & 0o777).toBe(0o700);
    expect(call(["add", '{"item":"eggs"}', "--scratch", scratch]).code).toBe(0);
    expect(call(["list", "--scratch", scratch])).toMatchObject({ code: 0, out: "milk\neggs\n" });
    // Without it, every call gets a fresh scratch directory, as before.
    expect(call(["list"])).toMatchObject({ code: 0, out: "(none)\n" });
  }, 60_000);

  test("--scratch naming a file is refused in one line, before the extension starts", () => {
    const file = join(temporaryDirectory("call-scratch-"), "file");
    writeFileSync(file, "");
    const run = call(["list", "--scratch", file]);
    expect(run.code).toBe(2);
    expect(run.out.trimEnd()).toBe(`error: --scratch ${file} is not a directory: name a directory (it is created when missing)`);
  });

  test("the handler's ctx.workspace and ctx.scratch: the workspace call runs in and the --scratch directory, in a tool call and at shutdown", () => {
    const scratch = temporaryDirectory("call-scratch-");
    const run = call(["where", "--scratch", scratch, "--quiet"]);
    expect(run).toMatchObject({ code: 0, out: `workspace=${realpathSync(run.cwd)} scratch=${scratch}\n`, err: "" });
    // shutdown carries no context: the workspace is initialize's.
    expect(readFileSync(join(scratch, "shutdown.txt"), "utf8")).toBe(realpathSync(run.cwd));
  });

  test("default output: the result's text and the extension's log lines, no frames", () => {
    const run = call(["chatty", "{}"]);
    expect(run.code).toBe(0);
    expect(run.out).toBe('done\n  log info: working {"step":1}\n');
    expect(run.out).not.toContain(INITIALIZE);
  });

  test("--frames shows the conversation as well", () => {
    const run = call(["chatty", "{}", "--frames"]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(INITIALIZE);
    expect(run.out).toContain('← {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]');
    expect(run.out).toContain('← {"jsonrpc":"2.0","id":3,"result":{}}');
    expect(run.out).toContain('  stderr {"level":"info","message":"working","step":1}');
    expect(run.out.trimEnd().split("\n").at(-1)).toBe("done");
  });

  test("--quiet: only the result's text on stdout, the rest on stderr; a failing call keeps exit status 1 and says why on stderr", () => {
    // The extension's log lines go to stderr.
    expect(call(["chatty", "{}", "--quiet"])).toMatchObject({ code: 0, out: "done\n", err: '  log info: working {"step":1}\n' });
    const failed = call(["fail", "{}", "--quiet"]);
    expect(failed.code).toBe(1);
    expect(failed.out).toBe("it failed\n");
    expect(failed.err).toContain("! the tool answered is_error: true");
    const unknown = call(["nope", "--quiet"]);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toBe("");
    expect(unknown.err).toContain("! unknown tool: nope");
  });

  test("a call that went wrong shows the frames without --frames: an is_error result, an error reply", () => {
    for (const args of [["fail", "{}"], ["nope"]]) {
      const run = call(args);
      expect({ args, code: run.code }).toEqual({ args, code: 1 });
      expect(run.out).toContain(INITIALIZE);
    }
    const failed = call(["fail", "{}"]);
    expect(failed.out).toContain('"text":"it failed"');
    expect(failed.out.trimEnd().split("\n").slice(-2)).toEqual(["it failed", "! the tool answered is_error: true"]);
    expect(call(["nope"]).out).toContain("! unknown tool: nope");
  });

  test("--record still saves the session, and says so", () => {
    const file = join(temporaryDirectory("call-record-"), "session.json");
    const run = call(["chatty", "{}", "--record", file]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(`recorded 6 frames to ${file}`);
    expect(existsSync(file)).toBe(true);
  });
});
