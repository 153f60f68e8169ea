import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";

const DIR = new URL("../../examples/caffeinate", import.meta.url).pathname;
const OFFER = { offer: { optional: ["request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools"] } };
let host: TestHost;
afterEach(() => host?.kill());

/** Install the example with a stand-in helper (a long sleep) instead of /usr/bin/caffeinate. */
function withStandIn(): string {
  const dir = join(temporaryDirectory("caffeinate-"), "caffeinate");
  mkdirSync(dir);
  writeFileSync(join(dir, "extension"), `#!/bin/sh\nexec bun --no-env-file --config="${DIR}/bunfig.toml" "${DIR}/extension.ts" "$@"\n`);
  chmodSync(join(dir, "extension"), 0o755);
  const manifest = readFileSync(join(DIR, "extension.toml"), "utf8").replace('command = "extension"', 'command = "extension"\nenv = { CAFFEINATE_HELPER = "sleep 600" }');
  writeFileSync(join(dir, "extension.toml"), manifest);
  return dir;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Probe every 20 ms until `ok` holds, for up to 5 s. */
async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = performance.now() + 5_000;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (performance.now() > deadline) break;
    await Bun.sleep(20);
  }
  throw new Error("condition not reached");
}

describe("examples/caffeinate (process level, API 0.2)", () => {
  test("negotiates only lifecycle events and subscribes to the three methods", async () => {
    host = await TestHost.start(DIR, OFFER);
    const result = await host.initialize();
    expect(result.protocol).toEqual({
      version: "0.2",
      features: ["request_cancellation", "content_parts", "lifecycle_events"],
      limits: { max_concurrent_requests: 8 },
      lifecycle_events: ["session/settled", "turn/settled", "turn/started"],
    });
    expect(result.commands).toEqual([{ name: "caffeinate", description: "Show the macOS sleep inhibitor state", usage: "/caffeinate" }]);
    expect(await host.executeCommand("caffeinate", ["x"])).toEqual({ text: "Usage: /caffeinate", notifications: [], context: [] });
    expect(await host.executeCommand("caffeinate")).toEqual({ text: "Caffeinate is idle; it runs while this extension observes active turns.", notifications: [], context: [] });
    expect(await host.shutdown()).toBe(0);
  });

  test("without a stand-in: macOS runs /usr/bin/caffeinate; elsewhere a warning, an explanation, no status", async () => {
    host = await TestHost.start(DIR, OFFER);
    await host.initialize();
    host.lifecycle("turn/started", { session_id: "s", run_id: "r", turn_id: "t" });
    if (process.platform === "darwin") {
      expect(await until(() => host.executeCommand("caffeinate"), (r) => (r as { text: string }).text.includes("active"))).toBeDefined();
      expect(await host.shutdown()).toBe(0);
      return;
    }
    const reply = await until(() => host.executeCommand("caffeinate"), (r) => (r as { text: string }).text.includes("unavailable"));
    expect(reply).toMatchObject({ text: "Caffeinate is unavailable: unsupported platform (macOS only)." });
    expect(await host.collectStatus("status")).toBeNull();
    expect(await host.shutdown()).toBe(0);
    expect(host.logs()).toContainEqual({ level: "warning", message: "caffeinate unavailable", error: "unsupported platform (macOS only)" });
  });

  test("with a helper: overlapping turns share one helper; it stops when the last turn settles; shutdown stops it", async () => {
    host = await TestHost.start(withStandIn(), OFFER);
    await host.initialize();
    host.lifecycle("turn/started", { session_id: "s", run_id: "r", turn_id: "one" });
    host.lifecycle("turn/started", { session_id: "s", run_id: "r", turn_id: "two" });
    const status = await until(() => host.collectStatus("status"), (s) => s !== null);
    expect(status).toEqual({ surface: "status", text: "awake", priority: 10, style_role: "extension.caffeinate.active" });
    const active = (await host.executeCommand("caffeinate")) as { text: string };
    const pid = Number(/pid (\d+)/.exec(active.text)![1]);
    expect(alive(pid)).toBe(true);
    host.lifecycle("turn/settled", { session_id: "s", run_id: "r", turn_id: "one", outcome: "completed", duration_ms: 1, reason: null });
    await Bun.sleep(100);
    expect(alive(pid)).toBe(true);
    expect((await host.executeCommand("caffeinate")) as { text: string }).toMatchObject({ text: `Caffeinate is active (pid ${pid}).` });
    host.lifecycle("turn/settled", { session_id: "s", run_id: "r", turn_id: "two", outcome: "completed", duration_ms: 1, reason: null });
    await until(async () => alive(pid), (a) => !a);
    expect(await host.collectStatus("status")).toBeNull();

    host.lifecycle("turn/started", { session_id: "s2", run_id: "r", turn_id: "t" });
    const again = (await until(() => host.executeCommand("caffeinate"), (r) => (r as { text: string }).text.includes("active"))) as { text: string };
    const second = Number(/pid (\d+)/.exec(again.text)![1]);
    host.lifecycle("session/settled", { session_id: "s2", run_id: null, outcome: "completed", duration_ms: 1, reason: null });
    await until(async () => alive(second), (a) => !a);

    host.lifecycle("turn/started", { session_id: "s3", run_id: "r", turn_id: "t" });
    const third = (await until(() => host.executeCommand("caffeinate"), (r) => (r as { text: string }).text.includes("active"))) as { text: string };
    const thirdPid = Number(/pid (\d+)/.exec(third.text)![1]);
    expect(await host.shutdown()).toBe(0);
    expect(alive(thirdPid)).toBe(false);
  });

  test("stdin EOF with an active turn still releases the helper", async () => {
    host = await TestHost.start(withStandIn(), OFFER);
    await host.initialize();
    host.lifecycle("turn/started", { session_id: "s", run_id: "r", turn_id: "t" });
    const active = (await until(() => host.executeCommand("caffeinate"), (r) => (r as { text: string }).text.includes("active"))) as { text: string };
    const pid = Number(/pid (\d+)/.exec(active.text)![1]);
    expect(await host.closeStdin()).toBe(0);
    await until(async () => alive(pid), (a) => !a);
  });
});
