/**
 * Record and replay: a session saved with `saveTranscript` (or `octet-extension
 * call --record`) replays identically against the same build, and a
 * deliberate change in the extension is reported at the first frame it
 * alters (docs/tools.md "Record and replay").
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";

const REPO = new URL("../../", import.meta.url).pathname;
const SESSIONS = `${REPO}test/fixtures/sessions/sessions-v04`;
const HELLO = `${REPO}examples/typescript-hello`;

/** A copy of the example with one output string changed. */
function changedHello(): string {
  const dir = join(temporaryDirectory("replay-changed-"), "typescript-hello");
  cpSync(HELLO, dir, { recursive: true });
  // Resolve octet-extension from this checkout, as the example does (no install, no network).
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(join(REPO, "src"), join(dir, "node_modules", "octet-extension"));
  const source = join(dir, "extension.ts");
  writeFileSync(source, readFileSync(source, "utf8").replace("`characters=${", "`chars=${"));
  return dir;
}

function cli(args: string[]): { code: number; out: string } {
  const run = Bun.spawnSync([process.execPath, `${REPO}codegen/cli.ts`, ...args], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode ?? -1, out: run.stdout.toString() + run.stderr.toString() };
}

describe("record and replay", () => {
  test("a session with reverse requests, recorded replies and a compaction after the reply replays identically", async () => {
    const host = await TestHost.start(SESSIONS, { offer: { optional: ["request_progress", "composer", "session_entries", "session_control_v1", "session_compaction_v1"] } });
    host.onRequest("composer/get", () => ({ text: "draft in the composer" }));
    await host.initialize();
    await host.callTool("compose");
    await host.callTool("journal");
    await host.callTool("compact");
    await host.waitForFrame((f) => f.method === "session/compact");
    await Bun.sleep(50);
    expect(await host.shutdown()).toBe(0);
    const file = join(temporaryDirectory("replay-"), "session.json");
    host.saveTranscript(file);
    const recorded = JSON.parse(readFileSync(file, "utf8"));
    expect(recorded).toMatchObject({ format: "octet-transcript/1", extension: { name: "sessions-v04", api_version: "0.4" } });

    const replay = await TestHost.replay(file, SESSIONS);
    expect(replay.violations).toEqual([]);
    expect(replay.differences).toEqual([]);
    expect(replay.frames).toBe(host.extensionFrames().length);
  });

  test("octet-extension call --record, then replay: identical against the same build, the first changed frame against a changed one", () => {
    const file = join(temporaryDirectory("replay-cli-"), "hello.json");
    const recorded = cli(["call", "--dir", HELLO, "text_stats", '{"text":"hello world"}', "--record", file]);
    expect(recorded.out).toContain(`to ${file}`);
    expect(recorded.code).toBe(0);
    const same = cli(["replay", file, "--dir", HELLO]);
    expect(same.out.trim()).toBe("replayed 4 extension frames: identical");
    expect(same.code).toBe(0);
    const changed = cli(["replay", file, "--dir", changedHello()]);
    expect(changed.out).toContain("frame 3 of the extension differs:");
    expect(changed.out).toContain('"text":"characters=11 words=2 lines=1 utf8_bytes=11"');
    expect(changed.out).toContain('"text":"chars=11 words=2 lines=1 utf8_bytes=11"');
    expect(changed.code).toBe(1);
  }, 60_000);
});
