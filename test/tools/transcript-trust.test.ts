/**
 * Transcripts are untrusted input and never hold secrets (docs/security.md):
 * a recording may set only what the host offered, replay always runs the
 * project's own entry point, and secret answers are recorded as a
 * placeholder in a file only its owner can read.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SECRET_PLACEHOLDER, TestHost, temporaryDirectory } from "octet-extension/testing";

const REPO = new URL("../../", import.meta.url).pathname;
const HELLO_WORLD = `${REPO}examples/hello-world`;
const SECRETS = `${REPO}test/fixtures/secrets/secrets-v02`;

function cli(args: string[]): { code: number; out: string } {
  const run = Bun.spawnSync([process.execPath, `${REPO}codegen/cli.ts`, ...args], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode ?? -1, out: run.stdout.toString() + run.stderr.toString() };
}

/** A real recording of hello-world (`call --record`), as JSON. */
function helloRecording(dir: string): Record<string, unknown> {
  const file = join(dir, "hello.json");
  const recorded = cli(["call", "--dir", HELLO_WORLD, "hello_world", '{"name":"Ada"}', "--record", file]);
  expect(recorded.code).toBe(0);
  return JSON.parse(readFileSync(file, "utf8"));
}

describe("replay trusts nothing in a transcript that selects what runs", () => {
  test("options.entrypoint naming /bin/sh: nothing runs, replay fails with one line naming the key", () => {
    const dir = temporaryDirectory("replay-trust-");
    const marker = join(dir, "PWNED");
    const recording = helloRecording(dir);
    recording.options = { entrypoint: { command: "/bin/sh", args: ["-c", `id > ${marker}`] } };
    const file = join(dir, "evil.json");
    writeFileSync(file, JSON.stringify(recording));
    const run = cli(["replay", file, "--dir", HELLO_WORLD]);
    console.log(`replay of a transcript naming /bin/sh: exit ${run.code}, marker ${existsSync(marker) ? `CREATED: ${readFileSync(marker, "utf8").trim()}` : "absent"}\n${run.out.trim()}`);
    expect(existsSync(marker)).toBe(false);
    expect(run.code).toBe(1);
    expect(run.out.trim().split("\n")).toEqual([`error: ${file}: options.entrypoint is not allowed in a transcript: a recording may set only offer, flags, octetVersion (replay always runs the project's own entry point)`]);
  }, 60_000);

  test("workspace, env, scratch, bulk and unknown keys are refused; every allowed key is checked by type", async () => {
    const dir = temporaryDirectory("replay-keys-");
    const recording = helloRecording(dir);
    const refused: [unknown, string][] = [
      [{ workspace: "/" }, "options.workspace is not allowed in a transcript"],
      [{ env: { LD_PRELOAD: "/tmp/x.so" } }, "options.env is not allowed in a transcript"],
      [{ scratch: "/etc" }, "options.scratch is not allowed in a transcript"],
      [{ bulk: true }, "options.bulk is not allowed in a transcript"],
      [{ addBunToPath: false }, "options.addBunToPath is not allowed in a transcript"],
      [{ offer: { optional: ["secrets"], extra: 1 } }, "options.offer.extra is not allowed in a transcript"],
      [{ offer: { optional: "secrets" } }, "options.offer.optional must be an array of strings"],
      [{ offer: { maxConcurrentRequests: -1 } }, "options.offer.maxConcurrentRequests must be a positive integer"],
      [{ flags: { depth: { command: "sh" } } }, "options.flags.depth must be a boolean, string or number"],
      [{ flags: [] }, "options.flags must be an object"],
      [{ octetVersion: 8 }, "options.octetVersion must be a string"],
      [[], "options must be an object"],
    ];
    for (const [options, message] of refused) {
      const file = join(dir, "bad.json");
      writeFileSync(file, JSON.stringify({ ...recording, options }));
      const error = await TestHost.replay(file, HELLO_WORLD).then(() => undefined, (e: Error) => e);
      expect(error?.message).toStartWith(`${file}: ${message}`);
      expect(error?.message).not.toContain("\n");
    }
    const extra = join(dir, "extra.json");
    writeFileSync(extra, JSON.stringify({ ...recording, run: "sh" }));
    expect(TestHost.replay(extra, HELLO_WORLD)).rejects.toThrow(`${extra}: run is not allowed in a transcript`);
    const frames = join(dir, "frames.json");
    writeFileSync(frames, JSON.stringify({ ...recording, frames: [{ from: "host", text: 1 }] }));
    expect(TestHost.replay(frames, HELLO_WORLD)).rejects.toThrow(`${frames}: frames[0] must be {from: "host" | "extension", text: string}`);
    // The allowed keys still replay.
    const good = join(dir, "good.json");
    writeFileSync(good, JSON.stringify({ ...recording, options: { octetVersion: "0.8.0" } }));
    expect((await TestHost.replay(good, HELLO_WORLD)).differences).toEqual([]);
  }, 60_000);
});

describe("transcripts never hold secrets", () => {
  const TOKEN = "tok-1b7e5c0a9d-brokered";
  const TYPED = "typed-pa55w0rd-9f3c";

  test("secret/get and input/request {secret: true} answers are recorded as a placeholder, mode 0600, and the recording replays", async () => {
    const host = await TestHost.start(SECRETS, { offer: { optional: ["secrets"] } });
    host.onRequest("secret/get", () => ({ value: TOKEN }));
    host.onRequest("input/request", (params) => ({ value: params.secret ? TYPED : "ada" }));
    await host.initialize();
    expect(await host.callTool("login")).toEqual({ content: [{ type: "text", text: "token:set password:set user:ada" }], is_error: false, metadata: {} });
    expect(await host.shutdown()).toBe(0);
    const file = join(temporaryDirectory("transcript-secrets-"), "session.json");
    host.saveTranscript(file);
    const text = readFileSync(file, "utf8");
    const mode = (statSync(file).mode & 0o777).toString(8);
    console.log(`recording: mode ${mode}, token ${text.includes(TOKEN) ? "PRESENT" : "absent"}, typed secret ${text.includes(TYPED) ? "PRESENT" : "absent"}, placeholder ${text.includes(SECRET_PLACEHOLDER) ? "present" : "absent"}`);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(TYPED);
    expect(text.split(JSON.stringify(SECRET_PLACEHOLDER).slice(1, -1)).length - 1).toBe(2);
    expect(text).toContain('\\"value\\":\\"ada\\"'); // a plain answer is kept
    expect(mode).toBe("600");
    // The live transcript still holds what was sent; only the file is redacted.
    expect(host.transcript.some((e) => e.text.includes(TOKEN))).toBe(true);

    const replay = await TestHost.replay(file, SECRETS);
    expect(replay.violations).toEqual([]);
    expect(replay.differences).toEqual([]);
    expect(replay.frames).toBe(host.extensionFrames().length);
  }, 60_000);

  test("saveTranscript replaces a symlink at the path instead of writing through it; an existing 0644 file becomes 0600", async () => {
    const dir = temporaryDirectory("transcript-link-");
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "keep me\n");
    const linked = join(dir, "linked.json");
    symlinkSync(victim, linked);
    const plain = join(dir, "plain.json");
    writeFileSync(plain, "old\n", { mode: 0o644 });
    const host = await TestHost.start(HELLO_WORLD);
    await host.initialize();
    expect(await host.shutdown()).toBe(0);
    host.saveTranscript(linked);
    host.saveTranscript(plain);
    expect(readFileSync(victim, "utf8")).toBe("keep me\n");
    expect(lstatSync(linked).isSymbolicLink()).toBe(false);
    for (const file of [linked, plain]) {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, "utf8")).format).toBe("octet-transcript/1");
    }
  }, 60_000);

  test("call --record writes the transcript with mode 0600", () => {
    const dir = temporaryDirectory("transcript-mode-");
    helloRecording(dir);
    expect(statSync(join(dir, "hello.json")).mode & 0o777).toBe(0o600);
  }, 60_000);
});
