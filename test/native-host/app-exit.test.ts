/**
 * Issue 11.6: `octet-host` must not outlive the application that drives it,
 * whatever way the application ends. Each case runs a real application
 * process (test/fixtures/native-host-app.ts) whose host double stalls in a
 * run and ignores SIGTERM, ends it, and checks that the host's process group
 * is gone.
 */
import { describe, expect, test } from "bun:test";
import { temporaryDirectory } from "octet-extension/testing";
import { eventually } from "./client-helpers.ts";

const APP = new URL("../fixtures/native-host-app.ts", import.meta.url).pathname;

import { readdirSync, readFileSync } from "node:fs";

/** Whether any process of group `pgid` is alive (zombies, which nobody may reap here, do not count). */
const groupAlive = (pgid: number) =>
  readdirSync("/proc").some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      // Fields after the parenthesised command: state, ppid, pgrp, …
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").replace(/^.*\) /s, "").split(" ");
      return Number(fields[2]) === pgid && fields[0] !== "Z";
    } catch {
      return false; // gone while reading
    }
  });

async function startApp(mode: string) {
  // The app dies by signal, so its own exit hook never removes its temporary directories: they go
  // into one of ours, removed when this test process exits.
  const env = { ...process.env, TMPDIR: temporaryDirectory("octet-app-") };
  const app = Bun.spawn([process.execPath, APP, mode], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env });
  const reader = app.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  /** Read the app's stdout until it matches `pattern` (what it prints: `host <pid>`, then `host ignored SIGTERM`). */
  const stdoutShows = async (pattern: RegExp, what: string) => {
    while (!pattern.test(text)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the app ended before ${what}: ${await new Response(app.stderr).text()}`);
      text += decoder.decode(value, { stream: true });
    }
  };
  await stdoutShows(/host \d+\n/, "launching the host");
  const pgid = Number(/host (\d+)/.exec(text)![1]);
  expect(groupAlive(pgid)).toBe(true);
  return { app, pgid, stdoutShows };
}

const goneWithin = (pgid: number, ms: number) => eventually(() => !groupAlive(pgid), ms);

describe("the host's process group ends with the application", () => {
  const cases: [string, (app: Bun.Subprocess) => void, (code: number | null, signal: NodeJS.Signals | null) => void][] = [
    ["process.exit()", () => {}, (code) => expect(code).toBe(3)],
    ["an uncaught error", () => {}, (code) => expect(code).toBe(1)],
    ["SIGTERM", (app) => app.kill("SIGTERM"), (_code, signal) => expect(signal).toBe("SIGTERM")],
    ["SIGHUP (the terminal closed)", (app) => app.kill("SIGHUP"), (_code, signal) => expect(signal).toBe("SIGHUP")],
    ["SIGINT without a handler", (app) => app.kill("SIGINT"), (_code, signal) => expect(signal).toBe("SIGINT")],
  ];
  const modes: Record<string, string> = { "process.exit()": "exit", "an uncaught error": "throw" };
  test.each(cases)("%s", async (name, end, status) => {
    const { app, pgid } = await startApp(modes[name] ?? "wait");
    end(app);
    await app.exited;
    status(app.exitCode, app.signalCode as NodeJS.Signals | null);
    expect(await goneWithin(pgid, 5_000)).toBe(true);
  }, 20_000);

  test("a second Ctrl-C during the cancellation grace", async () => {
    const { app, pgid, stdoutShows } = await startApp("second-sigint");
    app.kill("SIGINT"); // the application's handler cancels the run: SIGTERM, which this host ignores, and a 10 s grace
    // The first Ctrl-C must have been handled before the second is sent (two pending SIGINTs are delivered as one).
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      stdoutShows(/host ignored SIGTERM\n/, "its host ignored the cancel's SIGTERM"),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("the host did not report the cancel's SIGTERM within 10 s")), 10_000))),
    ]).finally(() => clearTimeout(timer));
    await Bun.sleep(300);
    expect(groupAlive(pgid)).toBe(true);
    app.kill("SIGINT"); // no application handler any more: the process ends, and takes the host with it
    await app.exited;
    expect(app.signalCode).toBe("SIGINT");
    expect(await goneWithin(pgid, 5_000)).toBe(true);
  }, 20_000);
});
