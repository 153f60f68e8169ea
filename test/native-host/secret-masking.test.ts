/**
 * Secrets in the host's stderr (issue 23 item 7), against the double: every
 * credential the client put into the host's environment is masked in the
 * lines given to `onStderrLine`, the stderr tail and error messages, and a
 * secret cut by the piece boundary of a long line is masked too.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HostExited, minimalEnv } from "octet-native-host";
import { DOUBLE, doubleEnv, eventually, launchDouble, rejectionOf, tempDir } from "./client-helpers.ts";

const OPENAI = "sk-proj-OPENAI-0123456789abcdef";
const ANTHROPIC = "sk-ant-api03-ANTHROPIC-ffeeddcc";
const SESSION_TOKEN = "IQoJb3JpZ2luX2VjEXAMPLETOKEN";

/** A fake octet-host: logs its credentials to stderr as a careless host would, then becomes the double. */
function chattyHost(): string {
  const path = join(tempDir("octet-chatty-"), "octet-host");
  writeFileSync(path, `#!/bin/sh\nprintf 'auth: openai=%s anthropic=%s aws=%s\\n' "$OPENAI_API_KEY" "$ANTHROPIC_API_KEY" "$AWS_SESSION_TOKEN" >&2\nexec '${DOUBLE}' "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("credentials in the host's environment", () => {
  test("provider keys passed by minimalEnv({providerCredentials}) (and a credential passed by name) never appear in lines, tail or errors", async () => {
    const credentials = minimalEnv({ OPENAI_API_KEY: OPENAI, ANTHROPIC_API_KEY: ANTHROPIC, AWS_SESSION_TOKEN: SESSION_TOKEN }, { providerCredentials: true, pass: ["AWS_SESSION_TOKEN"] });
    const scenario = { runs: [[{ stderr: `retrying with key ${OPENAI.slice(0, 12)}` }, { stderr: `${OPENAI.slice(12)} failed\n` }, { exit: 1 }]] };
    const lines: string[] = [];
    const { host, workspace } = await launchDouble(scenario, { path: chattyHost(), env: { ...doubleEnv(scenario), ...credentials }, onStderrLine: (line) => void lines.push(line) });
    const error = await rejectionOf(host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result);
    expect(error).toBeInstanceOf(HostExited);
    await eventually(() => lines.length >= 2);
    const exposed = { lines, tail: host.stderrTail, error: error.message };
    expect(exposed).toEqual({
      lines: ["auth: openai=[redacted] anthropic=[redacted] aws=[redacted]", "retrying with key [redacted] failed"],
      tail: "auth: openai=[redacted] anthropic=[redacted] aws=[redacted]\nretrying with key [redacted] failed\n",
      error: expect.stringContaining("host stderr (tail):\nauth: openai=[redacted]"),
    });
    for (const secret of [OPENAI, ANTHROPIC, SESSION_TOKEN]) expect(JSON.stringify(exposed)).not.toContain(secret.slice(-8));
  });
});

describe("long lines cut into pieces", () => {
  test("a registered secret straddling a piece boundary is masked, at every cut position; pieces stay within stderrTailBytes", async () => {
    const secret = "sk-live-ABCDEFGHIJKLMNOP";
    const limit = 1000;
    // Line k puts the piece boundary k characters into the secret.
    const cuts = Array.from({ length: secret.length - 1 }, (_, i) => i + 1);
    const stderr = cuts.map((k) => `${"x".repeat(limit - k)}${secret}tail\n`).join("");
    const pieces: string[] = [];
    const { host, workspace } = await launchDouble({ runs: [[{ stderr }, { defaultRun: true }]] }, { stderrTailBytes: limit, secrets: [secret], onStderrLine: (line) => void pieces.push(line) });
    await host.run({ workspace, model: "gpt-5.6", prompt: "x" }).result;
    await eventually(() => pieces.filter((piece) => piece.endsWith("tail")).length >= cuts.length);
    // Each line arrives as its run of x (shown "x…") then the rest: the secret never split between two pieces.
    expect(pieces.map((piece) => piece.replace(/^x+/, "x…"))).toEqual(cuts.flatMap(() => ["x…", "[redacted]tail"]));
    expect(pieces.map((piece, i) => (i % 2 === 0 ? piece.length : 0))).toEqual(cuts.flatMap((k) => [limit - k, 0]));
    expect(pieces.filter((piece) => Buffer.byteLength(piece) > limit)).toEqual([]);
    await host.shutdown();
  });
});

describe("StderrLines (unit)", () => {
  test("random lines, secrets (multi-byte, longer than a piece) and chunkings: the joined pieces are the masked line", async () => {
    const { StderrLines } = await import("../../native-host/client/stderr-lines.ts");
    const { maskSecrets } = await import("../../native-host/client/stderr-tail.ts");
    const secrets = ["sk-AAAA1111BBBB", "tok_ééééxyz", "K€Y9"];
    const filler = ["x", "ü", "€", " ", "😀"];
    let seed = 23;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 300; round++) {
      const maxBytes = 4 + random(40);
      let line = "";
      while (line.length < 200) line += random(6) === 0 ? secrets[random(secrets.length)] : filler[random(filler.length)];
      const pieces: string[] = [];
      const lines = new StderrLines(maxBytes, (piece) => void pieces.push(piece), () => secrets);
      const bytes = Buffer.from(`${line}\n`);
      for (let at = 0; at < bytes.length; ) {
        const n = 1 + random(60);
        lines.push(bytes.subarray(at, at + n));
        at += n;
      }
      expect({ maxBytes, joined: pieces.join("") }).toEqual({ maxBytes, joined: maskSecrets(line, secrets) });
    }
  });
});
