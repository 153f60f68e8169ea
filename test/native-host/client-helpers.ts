/** Shared set-up of the native-host client tests: the double, its scenario and what it received. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { temporaryDirectory } from "octet-extension/testing";
import { dirname, join, resolve } from "node:path";
import { minimalEnv, NativeHost, type LaunchOptions } from "octet-native-host";
import { hostDoublePath, scenarioEnv, type Scenario, type Step } from "octet-native-host/testing";

export const DOUBLE = hostDoublePath;

export function tempDir(prefix = "octet-nh-"): string {
  return temporaryDirectory(prefix);
}

/** The environment the double runs with: minimal, bun on PATH, the scenario, and a record file. */
export function doubleEnv(scenario: Scenario = {}, record?: string): Record<string, string> {
  const base = minimalEnv();
  const env: Record<string, string> = { ...base, PATH: `${dirname(process.execPath)}:${base.PATH ?? "/usr/bin:/bin"}` };
  const json = JSON.stringify(scenario);
  // Linux caps one environment string at 128 KiB: larger scenarios go through a file.
  if (json.length <= 100_000) return { ...env, ...scenarioEnv(scenario, record || undefined) };
  const file = join(tempDir("octet-scenario-"), "scenario.json");
  writeFileSync(file, json);
  env.OCTET_HOST_DOUBLE_SCENARIO = file;
  if (record) env.OCTET_HOST_DOUBLE_RECORD = record;
  return env;
}

export interface Launched {
  host: NativeHost;
  workspace: string;
  record: string;
  /** Request lines the double read, parsed. */
  received(): Record<string, unknown>[];
}

export async function launchDouble(scenario: Scenario = {}, options: LaunchOptions = {}): Promise<Launched> {
  const workspace = tempDir("octet-ws-");
  const record = join(tempDir("octet-rec-"), "received.jsonl");
  const host = await NativeHost.launch({ path: DOUBLE, cwd: workspace, env: doubleEnv(scenario, record), graceMs: 500, handshakeTimeoutMs: 5_000, ...options });
  return { host, workspace, record, received: () => readRecord(record) };
}

export function readRecord(record: string): Record<string, unknown>[] {
  if (!existsSync(record)) return [];
  return readFileSync(record, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A run script of events for the current run (the double fills in the envelope). */
export function events(...steps: [string, Record<string, unknown>?][]): Step[] {
  return steps.map(([event, data]) => ({ event, data: data ?? {} }));
}

export const USAGE = { input_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, output_tokens: 5, reasoning_tokens: 0, total_tokens: 15 };

export const ACCEPTED = (workspace = "/tmp/ws") => ({
  model: "gpt-5.6",
  resolved_model: "gpt-5.6",
  session_file: `${workspace}/.octet/sessions/s.jsonl`,
  registered_tools: ["read"],
  extensions: [],
});

export const FINAL = (output: string, extra: Record<string, unknown> = {}) => ({
  status: "completed",
  output,
  error: "",
  filesChanged: [],
  toolCalls: 0,
  steps: 1,
  sessionFile: "/tmp/ws/.octet/sessions/s.jsonl",
  ...extra,
});

export const STEP = (step = 1) => ({ step, turn_usage: USAGE, run_usage: USAGE, session_cost_microdollars: 12, run_cost_microdollars: 12 });

/** Live (non-zombie) processes of group `pgid`; zombies are dead and only wait to be reaped. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(group) === pgid && state !== "Z") members.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return members;
}

/** Poll `condition` every 10 ms for up to `ms`; its last value (assert on it, or on what it watched). */
export async function eventually(condition: () => boolean, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await Bun.sleep(10);
  return condition();
}

/** Members of group `pgid` once signals sent to it took effect (waits up to 5 s for them to die). */
export async function survivors(pgid: number): Promise<number[]> {
  await eventually(() => groupMembers(pgid).length === 0);
  return groupMembers(pgid);
}

/** Whether any process of group `pgid` is still alive. */
export function groupAlive(pgid: number): boolean {
  return groupMembers(pgid).length > 0;
}

/** Settles `promise` and returns its error (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection, but the promise resolved");
}

/** Pids of live processes whose environment holds `entry` (e.g. a test's unique record path). */
export function processesWithEnv(entry: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, "latin1").split("\0").includes(entry)) continue;
      // Zombies are dead already (waiting to be reaped).
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${name}/status`, "latin1"))) continue;
      found.push(Number(name));
    } catch {
      /* gone meanwhile, or not ours */
    }
  }
  return found;
}
