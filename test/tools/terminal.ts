/**
 * `octet-extension inspect` in a real terminal for the tool tests: a detached
 * tmux session (keys in, screen out), the raw bytes the program wrote to the
 * terminal (tmux pipe-pane), and the pane's title.
 */
import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEveryTest } from "../setup.ts";
import { temporaryDirectory } from "octet-extension/testing";

const REPO = new URL("../../", import.meta.url).pathname;
const TMUX = Bun.which("tmux");
const sessions: string[] = [];
afterEveryTest(() => {
  for (const name of sessions.splice(0)) Bun.spawnSync([TMUX!, "kill-session", "-t", name]);
});

/** A tmux session running `octet-extension inspect --dir DIR`, its raw output recorded from the first byte. */
export async function inspectInTerminal(dir: string) {
  expect(TMUX).not.toBeNull(); // .ci/run installs tmux when the machine lacks it
  const name = `inspect-${process.pid}-${Date.now()}-${sessions.length}`;
  sessions.push(name);
  const log = join(temporaryDirectory("inspect-pane-"), "raw");
  // The inspector waits for a first Enter, so that pipe-pane records everything it writes.
  const command = `cd ${REPO} && read _ && ${process.execPath} codegen/cli.ts inspect --dir ${dir}; echo INSPECT-EXIT=$?; sleep 60`;
  // A server whose last session was just killed is still exiting: start another one.
  let started = Bun.spawnSync([TMUX!, "new-session", "-d", "-s", name, "-x", "220", "-y", "60", command]);
  for (let retry = 0; retry < 20 && started.exitCode !== 0 && started.stderr.toString().includes("server exited unexpectedly"); retry++) {
    await Bun.sleep(50);
    started = Bun.spawnSync([TMUX!, "new-session", "-d", "-s", name, "-x", "220", "-y", "60", command]);
  }
  expect({ exitCode: started.exitCode, stderr: started.stderr.toString() }).toEqual({ exitCode: 0, stderr: "" });
  expect(Bun.spawnSync([TMUX!, "pipe-pane", "-O", "-t", name, `cat >> ${log}`]).exitCode).toBe(0);
  const keys = (...k: string[]) => void Bun.spawnSync([TMUX!, "send-keys", "-t", name, ...k]);
  const screen = () => Bun.spawnSync([TMUX!, "capture-pane", "-t", name, "-p", "-J", "-S", "-200"]).stdout.toString();
  const waitFor = async (needle: string | RegExp, timeoutMs = 15_000) => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const text = screen();
      if (typeof needle === "string" ? text.includes(needle) : needle.test(text)) return text;
      if (performance.now() > deadline) throw new Error(`the terminal never showed ${needle}:\n${text}`);
      await Bun.sleep(50);
    }
  };
  /** Everything written to the terminal so far, as the terminal received it. */
  const raw = () => readFileSync(log, "latin1");
  /** The window title the program left (OSC 0 and OSC 2 set it). */
  const title = () => Bun.spawnSync([TMUX!, "display-message", "-p", "-t", name, "#{pane_title}"]).stdout.toString().trim();
  keys("Enter");
  return { keys, screen, waitFor, raw, title };
}
