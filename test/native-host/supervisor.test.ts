/**
 * The supervisor (`native-host/client/supervisor.ts`) against the double: it
 * queues work for the one-request-at-a-time host, relaunches the host after a
 * cancel or a crash (hello and models again), and keeps the conversation's
 * session id so the next run continues the same session file.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Cancelled, HostExited, HostSpawnError, HostUnavailable, InvalidRequest, Supervisor, type SupervisorOptions } from "octet-native-host";
import type { Scenario } from "octet-native-host/testing";
import { DOUBLE, doubleEnv, eventually, readRecord, rejectionOf, survivors, tempDir } from "./client-helpers.ts";

function supervised(scenario: Scenario = {}, options: Partial<SupervisorOptions> = {}) {
  const workspace = tempDir("octet-ws-");
  const record = join(tempDir("octet-rec-"), "received.jsonl");
  const supervisor = new Supervisor({ sessionId: "conv-1", ...options, launch: { path: DOUBLE, cwd: workspace, env: doubleEnv(scenario, record), graceMs: 500, ...options.launch } });
  const prompt = (text: string) => ({ workspace, model: "gpt-5.6", prompt: text, allow_file_mutation: false });
  return { supervisor, workspace, prompt, received: () => readRecord(record) };
}

/** The user messages of a session file written by the double. */
function userMessages(sessionFile: string): string[] {
  return readFileSync(sessionFile, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { type: string; message?: { role: string; text: string } })
    .filter((entry) => entry.type === "message" && entry.message?.role === "user")
    .map((entry) => entry.message!.text);
}

describe("queueing", () => {
  test("a second run and a models call wait for the run in flight instead of throwing; one request at a time reaches the host", async () => {
    const { supervisor, prompt, received } = supervised({ runs: [[{ sleepMs: 300 }, { defaultRun: true }]] });
    const marks: Record<string, number> = {};
    const first = supervisor.run(prompt("one"));
    const second = supervisor.run(prompt("two"));
    const catalog = supervisor.models();
    void first.then((run) => run.result.then(() => (marks.firstDone = performance.now())));
    void second.then(() => (marks.secondStarted = performance.now()));
    const [a, b] = await Promise.all([first, second]);
    expect((await a.result).output).toBe("You said: one");
    expect((await b.result).output).toBe("You said: two");
    expect(marks.firstDone).toBeLessThanOrEqual(marks.secondStarted!);
    expect((await catalog).map((m) => m.id)).toContain("gpt-5.6");
    const runs = received().filter((r) => r.command === "run");
    expect(received().map((r) => r.command)).toEqual(["hello", "models", "run", "run"]);
    expect(runs.map((r) => [r.prompt, r.session_id])).toEqual([["one", "conv-1"], ["two", "conv-1"]]);
    expect(new Set(runs.map((r) => r.run_id)).size).toBe(2);
    await supervisor.close();
  });

  test("a queued run whose signal aborts is never sent; the queue goes on", async () => {
    const { supervisor, prompt, received } = supervised({ runs: [[{ sleepMs: 300 }, { defaultRun: true }]] });
    const first = supervisor.run(prompt("one"));
    const controller = new AbortController();
    const second = supervisor.run(prompt("two"), { signal: controller.signal });
    const third = supervisor.run(prompt("three"));
    controller.abort();
    expect(await rejectionOf(second)).toBeInstanceOf(Cancelled);
    expect((await (await first).result).status).toBe("completed");
    expect((await (await third).result).output).toBe("You said: three");
    expect(received().map((r) => r.prompt ?? r.command)).toEqual(["hello", "models", "one", "three"]);
    expect(supervisor.launches).toBe(1);
    await supervisor.close();
  });
});

describe("relaunch and session continuity", () => {
  for (const [how, failing, expected] of [
    ["a cancel", [{ accepted: true }, { event: "started" }, { stall: true }], Cancelled],
    ["a crash", [{ accepted: true }, { event: "started" }, { stderr: "panicked\n" }, { exit: 101 }], HostExited],
  ] as const) {
    test(`after ${how} the next run gets a new host (hello and models again) and continues the same session`, async () => {
      const lines: string[] = [];
      const launched: number[] = [];
      const { supervisor, prompt, received } = supervised(
        { hello: [{ stderr: "host ready\n" }, { event: "hello" }], runs: [[{ defaultRun: true }], [...failing]] },
        { launch: { onStderrLine: (line) => void lines.push(line) }, onLaunch: (host, models) => void launched.push(host.pid, models.length) },
      );
      const one = await (await supervisor.run(prompt("one"))).result;
      const firstHost = supervisor.host!;
      const two = await supervisor.run(prompt("two"));
      if (expected === Cancelled) {
        await eventually(() => received().some((r) => r.prompt === "two"));
        await two.cancel();
      }
      expect(await rejectionOf(two.result)).toBeInstanceOf(expected);
      expect(supervisor.host).toBeUndefined();
      const three = await (await supervisor.run(prompt("three"))).result;

      expect(three.output).toBe("You said: three");
      expect(three.sessionFile).toBe(one.sessionFile);
      expect(userMessages(three.sessionFile)).toEqual(["one", "three"]);
      expect(received().map((r) => r.command)).toEqual(["hello", "models", "run", "run", "hello", "models", "run"]);
      const runs = received().filter((r) => r.command === "run");
      expect(runs.map((r) => r.session_id)).toEqual(["conv-1", "conv-1", "conv-1"]);
      expect(new Set(runs.map((r) => r.run_id)).size).toBe(3);
      expect(supervisor.launches).toBe(2);
      expect(launched.length).toBe(4);
      expect(launched[0]).toBe(firstHost.pid);
      expect(launched[2]).not.toBe(firstHost.pid);
      expect(launched[1]).toBeGreaterThan(0);
      expect(await survivors(firstHost.pid)).toEqual([]);
      await eventually(() => lines.filter((l) => l === "host ready").length >= 2);
      expect(lines.filter((l) => l === "host ready")).toHaveLength(2);
      if (expected === HostExited) expect(lines).toContain("panicked");
      await supervisor.close();
    });
  }

  test("a host that cannot start fails the request; the next request tries again", async () => {
    const supervisor = new Supervisor({ launch: { path: join(tempDir(), "missing-octet-host"), cwd: tempDir() } });
    expect(await rejectionOf(supervisor.run({ workspace: "/tmp", model: "gpt-5.6", prompt: "x" }))).toBeInstanceOf(HostSpawnError);
    expect(await rejectionOf(supervisor.models())).toBeInstanceOf(HostSpawnError);
    expect(supervisor.launches).toBe(0);
    await supervisor.close();
  });

  test("a run cannot pick its own session: session_id and resume_session are refused without a launch", async () => {
    const { supervisor, prompt, received } = supervised();
    for (const extra of [{ session_id: "other" }, { resume_session: "/tmp/x.jsonl" }]) {
      const error = await rejectionOf(supervisor.run({ ...prompt("x"), ...extra } as Parameters<Supervisor["run"]>[0]));
      expect(error).toBeInstanceOf(InvalidRequest);
      expect(error.message).toContain("conv-1");
    }
    expect(received()).toEqual([]);
    expect(supervisor.launches).toBe(0);
  });

  test("the session id is checked up front; a generated one is valid and kept", () => {
    expect(() => new Supervisor({ sessionId: "a:b", launch: {} })).toThrow(InvalidRequest);
    const supervisor = new Supervisor({ launch: {} });
    expect(supervisor.sessionId).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
    expect(new Supervisor({ launch: {} }).sessionId).not.toBe(supervisor.sessionId);
  });
});

describe("close", () => {
  test("queued work is refused, the run in flight finishes, then the host is shut down; later calls fail", async () => {
    const { supervisor, prompt } = supervised({ runs: [[{ sleepMs: 300 }, { defaultRun: true }]] });
    const first = await supervisor.run(prompt("one"));
    const second = supervisor.run(prompt("two"));
    const host = supervisor.host!;
    const closing = supervisor.close();
    expect(await rejectionOf(second)).toBeInstanceOf(HostUnavailable);
    expect((await first.result).status).toBe("completed");
    await closing;
    expect(await host.exited).toEqual({ code: 0, signal: null });
    expect(await rejectionOf(supervisor.run(prompt("three")))).toBeInstanceOf(HostUnavailable);
  });
});
