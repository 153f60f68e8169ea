/**
 * `octet-extension/seal` (issue 11, item 3, opt-in): imported first, it moves
 * fds 1 and 2 at import, so writes by any path before `run()` become
 * structured stderr lines and stdout carries frames only.
 * Fixture: test/fixtures/early-seal/.
 */
import { expect, test } from "bun:test";
import { expectCleanStreams, ready } from "./helpers.ts";

const DIR = new URL("./fixtures/early-seal/early-seal-v02", import.meta.url).pathname;

test("with octet-extension/seal, writes between import and run() never reach stdout, by any path", async () => {
  const host = await ready(DIR);
  expect(await host.callTool("echo", { text: "fine" })).toMatchObject({ content: [{ text: "fine" }] });
  expect(await host.shutdown()).toBe(0);
  expectCleanStreams(host);
  const early = host.logs().filter((r) => typeof r.message === "string" && (r.message as string).startsWith("early "));
  expect(early.map((r) => [r.message, r.source]).sort()).toEqual([
    ["early Bun.write", "stdout"],
    ["early child", "stdout"],
    ["early console.log", "console"],
    ["early fs.writeSync", "stdout"],
    ["early process.stdout.write", "stdout"],
    ["early raw stderr", "stderr"],
  ]);
});
