/**
 * `npm run bench`: the SDK runtime against a raw hand-written Bun responder
 * (the floor), measured in the same run. Figures and ratios; not a test.
 */
import { compileStandalone } from "../codegen/build.ts";
import { BenchClient, benchPipes, median } from "./client.ts";
import { codegenBench } from "./codegen.ts";
import { validationBench } from "./validation.ts";

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

const here = new URL(".", import.meta.url).pathname;
const taskset = Bun.which("taskset");
// Both subjects are measured as shipped: standalone executables built the way
// `octet-extension build` builds them (see docs/performance.md).
const out = mkdtempSync(`${tmpdir()}/octet-bench-`);
for (const name of ["floor-extension", "sdk-extension"]) {
  const build = compileStandalone(`${here}${name}.ts`, `${out}/${name}`, { bytecode: true });
  if (build.exitCode !== 0) throw new Error(`compiling ${name} failed: ${build.stderr.toString()}`);
}
const subjects = {
  floor: [`${out}/floor-extension`],
  sdk: [`${out}/sdk-extension`],
};
const pinned = (argv: string[]) => (taskset ? [taskset, "-c", "0", ...argv] : argv);

/** CPU time (ns) every thread of `pid` has used so far (Linux schedstat; 0 elsewhere). */
function cpuNs(pid: number): number {
  let total = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    }
  } catch {
    /* thread or process gone */
  }
  return total;
}

/** Run `work` with every thread of this process on CPU 0 (so a pinned subject shares it), then restore. */
async function onCpu0<T>(work: () => Promise<T>): Promise<T> {
  if (!taskset) return work();
  const before = /list:\s*(\S+)/.exec(Bun.spawnSync([taskset, "-c", "-p", String(process.pid)]).stdout.toString())?.[1];
  Bun.spawnSync([taskset, "-a", "-c", "-p", "0", String(process.pid)]);
  try {
    return await work();
  } finally {
    if (before) Bun.spawnSync([taskset, "-a", "-c", "-p", before, String(process.pid)]);
  }
}

/** `count` sequential echo calls; round-trip times in µs, sorted. */
async function roundTrips(client: BenchClient, count: number): Promise<number[]> {
  const rtts: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await client.request("tool/call", { name: "echo", arguments: { text: "ping" } });
    rtts.push((performance.now() - t0) * 1000);
  }
  return rtts.sort((a, b) => a - b);
}

type Figures = Record<string, number>;
type Api = "0.1" | "0.2";

async function measure(argv: string[], api: Api): Promise<Figures> {
  const f: Figures = {};
  // Sequential round trips, pinned to one CPU when taskset exists.
  const seq = new BenchClient(pinned(argv), api);
  await seq.initialize();
  for (let i = 0; i < 200; i++) await seq.request("tool/call", { name: "echo", arguments: { text: "warm" } });
  const rtts = await roundTrips(seq, 2000);
  f.seqP50Us = rtts[Math.floor(rtts.length * 0.5)]!;
  f.seqP99Us = rtts[Math.floor(rtts.length * 0.99)]!;
  await seq.shutdown();

  // The same with this driver on the extension's CPU: no cross-CPU wake-ups, so the
  // round trip is mostly CPU work, and the extension's own CPU time per call is measured.
  await onCpu0(async () => {
    const one = new BenchClient(pinned(argv), api);
    await one.initialize();
    for (let i = 0; i < 200; i++) await one.request("tool/call", { name: "echo", arguments: { text: "warm" } });
    const cpu0 = cpuNs(one.proc.pid);
    const same = await roundTrips(one, 2000);
    f.cpuPerCallUs = (cpuNs(one.proc.pid) - cpu0) / 2000 / 1000;
    f.seq1P50Us = same[Math.floor(same.length * 0.5)]!;
    await one.shutdown();
  });

  const c = new BenchClient(argv, api);
  await c.initialize();
  // Every workload below runs a smaller untimed warm-up first (steady state, for both subjects).
  // Pipelined: keep 64 in flight.
  let rejected = 0;
  const pipelined = async (total: number) => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (sent < total) {
          sent++;
          const reply = await c.request("tool/call", { name: "echo", arguments: { text: "x" } });
          if (reply.error) rejected++;
        }
      }),
    );
  };
  await pipelined(1_000);
  const t0 = performance.now();
  await pipelined(10_000);
  f.pipelinedPerS = 10_000 / ((performance.now() - t0) / 1000);
  f.rejected = rejected;

  // 512 KiB echo.
  const big = "y".repeat(512 * 1024);
  const rounds = 60;
  for (let i = 0; i < 10; i++) await c.request("tool/call", { name: "echo", arguments: { text: big } });
  const t1 = performance.now();
  for (let i = 0; i < rounds; i++) {
    const reply = await c.request("tool/call", { name: "echo", arguments: { text: big } });
    const content = reply.result?.content;
    const length = typeof content === "string" ? content.length : content?.[0]?.text?.length;
    if (length !== big.length) throw new Error(`512 KiB echo came back wrong: ${JSON.stringify(reply.error)}`);
  }
  f.echo512MBps = (2 * rounds * big.length) / 1e6 / ((performance.now() - t1) / 1000);

  // Notification burst (API 0.1's progress-like stream).
  const count = 50_000;
  await c.request("tool/call", { name: "burst", arguments: { count: 5_000 } });
  const seen = c.notifications;
  const t2 = performance.now();
  const reply = await c.request("tool/call", { name: "burst", arguments: { count } });
  f.notificationsPerS = count / ((performance.now() - t2) / 1000);
  // A figure for work that was not done is worse than none.
  if (reply.error || c.notifications - seen !== count) {
    throw new Error(`burst sent ${c.notifications - seen} of ${count} notifications (${JSON.stringify(reply.error ?? reply.result)})`);
  }

  f.peakRssMiB = (await c.peakRssKiB()) / 1024;
  await c.shutdown();
  return f;
}

/** Cold start (spawn → initialize reply): median of 101, subjects interleaved so drift hits both alike. */
async function coldStarts(argvs: string[][], api: Api): Promise<number[]> {
  const samples: number[][] = argvs.map(() => []);
  for (let i = 0; i < 101; i++) {
    for (const [k, argv] of argvs.entries()) {
      const pipes = benchPipes();
      const t0 = performance.now();
      const c = new BenchClient(argv, api, {}, pipes);
      await c.initialize();
      samples[k]!.push(performance.now() - t0);
      await c.shutdown();
    }
  }
  return samples.map(median);
}

const ROUNDS = 5;

function medians(all: Figures[]): Figures {
  const out: Figures = {};
  for (const key of Object.keys(all[0]!)) out[key] = median(all.map((f) => f[key]!));
  return out;
}

type Row = [string, keyof Figures, "lower" | "higher", number | undefined];

/** The targets per API version (sdk/floor ratios). */
const ROWS: Record<Api, Row[]> = {
  "0.1": [
    ["cold start (spawn → initialize reply), ms", "coldStartMs", "lower", 1.3],
    ["sequential round trip p50, µs", "seqP50Us", "lower", 1.5],
    ["sequential round trip p99, µs", "seqP99Us", "lower", undefined],
    ["sequential round trip p50, driver on the same CPU, µs", "seq1P50Us", "lower", 1.3],
    ["extension CPU per sequential call, µs", "cpuPerCallUs", "lower", undefined],
    ["pipelined throughput (64 in flight), calls/s", "pipelinedPerS", "higher", undefined],
    ["512 KiB echo, MB/s (in + out)", "echo512MBps", "higher", 0.8],
    ["notifications/s (API 0.1 progress stream)", "notificationsPerS", "higher", 0.7],
    ["peak RSS, MiB", "peakRssMiB", "lower", 1.2],
  ],
  "0.2": [
    ["cold start (spawn → initialize reply), ms", "coldStartMs", "lower", undefined],
    ["sequential round trip p50, µs", "seqP50Us", "lower", 1.5],
    ["sequential round trip p99, µs", "seqP99Us", "lower", undefined],
    ["sequential round trip p50, driver on the same CPU, µs", "seq1P50Us", "lower", 1.3],
    ["extension CPU per sequential call, µs", "cpuPerCallUs", "lower", undefined],
    ["pipelined throughput (64 in flight, concurrency 4), calls/s", "pipelinedPerS", "higher", 0.5],
    ["512 KiB echo, MB/s (in + out)", "echo512MBps", "higher", undefined],
    ["$/progress events/s", "notificationsPerS", "higher", 0.7],
    ["peak RSS, MiB", "peakRssMiB", "lower", 1.2],
  ],
};

console.log(
  `octet-extension bench — Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs${taskset ? ", sequential pinned with taskset -c 0 (the same-CPU rows pin this driver there too)" : ""}`,
);
let missed = 0;
for (const api of ["0.1", "0.2"] as const) {
  const [floorCold, sdkCold] = await coldStarts([subjects.floor, subjects.sdk], api);
  // Five rounds of fresh processes per subject, interleaved; each figure is the median of the five
  // (peak RSS in particular depends on when the collector happens to run).
  const runs: { floor: Figures[]; sdk: Figures[] } = { floor: [], sdk: [] };
  for (let i = 0; i < ROUNDS; i++) {
    runs.floor.push(await measure(subjects.floor, api));
    runs.sdk.push(await measure(subjects.sdk, api));
  }
  const floor: Figures = { coldStartMs: floorCold!, ...medians(runs.floor) };
  const sdk: Figures = { coldStartMs: sdkCold!, ...medians(runs.sdk) };
  console.log(`\n### API ${api}\n\n| metric | floor | sdk | sdk/floor | target |\n|---|---:|---:|---:|---|`);
  for (const [label, key, better, target] of ROWS[api]) {
    const ratio = sdk[key]! / floor[key]!;
    let verdict = "—";
    if (target !== undefined) {
      const ok = better === "lower" ? ratio <= target : ratio >= target;
      if (!ok) missed++;
      verdict = `${better === "lower" ? "≤" : "≥"} ${target}× ${ok ? "met" : "MISSED"}`;
    }
    console.log(`| ${label} | ${fmt(floor[key]!)} | ${fmt(sdk[key]!)} | ${ratio.toFixed(2)}× | ${verdict} |`);
  }
  const rejected = Math.max(...runs.sdk.map((f) => f.rejected!));
  if (rejected > 0) missed++;
  console.log(`| rejected calls at 64 in flight (sdk, worst round) | — | ${rejected} | — | 0 ${rejected === 0 ? "met" : "MISSED"} |`);
}
for (const line of await validationBench(out, pinned)) console.log(line);
rmSync(out, { recursive: true, force: true });
console.log(missed === 0 ? "\nall runtime targets met" : `\n${missed} runtime target(s) missed`);
for (const line of await codegenBench()) console.log(line);

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toString() : n.toFixed(2);
}
