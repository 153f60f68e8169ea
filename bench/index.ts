/**
 * `npm run bench`: the SDK runtime against a raw hand-written Bun responder
 * (the floor), measured in the same run. Figures and ratios; not a test.
 */
import { compileStandalone } from "../codegen/build.ts";
import { type BenchApi, BenchClient, benchPipes, median } from "./client.ts";
import { codegenBench } from "./codegen.ts";
import { validationBench } from "./validation.ts";

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

const here = new URL(".", import.meta.url).pathname;
const taskset = Bun.which("taskset");
// Both subjects are standalone executables: the SDK's built as `octet-extension build` builds it,
// the floor as the shared kit builds its own (`bench_build_bun_floor` in
// ../shared/bench/lib/common.sh: no `--smol`, no `--splitting`), so that the ratios below are the
// kit's (docs/performance.md).
const out = mkdtempSync(`${tmpdir()}/octet-bench-`);
const KIT_FLOOR_FLAGS = ["--compile", "--minify", "--bytecode", "--format=esm", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"];
const builds = {
  sdk: compileStandalone(`${here}sdk-extension.ts`, `${out}/sdk-extension`, { bytecode: true }),
  floor: Bun.spawnSync([process.execPath, "build", ...KIT_FLOOR_FLAGS, `${here}floor-extension.ts`, "--outfile", `${out}/floor-extension`], { stdout: "pipe", stderr: "pipe" }),
};
for (const [name, build] of Object.entries(builds)) {
  if (build.exitCode !== 0) throw new Error(`compiling the ${name} failed: ${build.stderr.toString()}`);
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
    await client.request("tool/call", { name: "echo", arguments: { text: "hello from octet-bench" } });
    rtts.push((performance.now() - t0) * 1000);
  }
  return rtts.sort((a, b) => a - b);
}

type Figures = Record<string, number>;
type Api = BenchApi;

/** The value below which `p` percent of the sorted `values` lie. */
function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** One workload in a fresh process, as the kit runs them: initialize, then `work`; peak RSS after it. */
async function fresh(argv: string[], api: Api, f: Figures, work: (c: BenchClient) => Promise<void>): Promise<void> {
  const c = new BenchClient(argv, api);
  await c.initialize();
  await work(c);
  f.peakRssMiB = Math.max(f.peakRssMiB ?? 0, (await c.peakRssKiB()) / 1024);
  await c.shutdown();
}

/** The shared kit's workloads and sizes (../shared/bench/README.md, "Workloads"), each in a fresh process. */
async function measure(argv: string[], api: Api): Promise<Figures> {
  const f: Figures = {};
  const echo = { name: "echo", arguments: { text: "hello from octet-bench" } };
  // seq: 2000 echo calls one at a time after 200, free scheduling.
  await fresh(argv, api, f, async (c) => {
    for (let i = 0; i < 200; i++) await c.request("tool/call", echo);
    const rtts = await roundTrips(c, 2000);
    f.seqP50Us = pct(rtts, 50);
    f.seqP99Us = pct(rtts, 99);
  });
  // seq1: the same with this driver and the extension on one CPU: the round trip is the CPU cost of the path.
  await onCpu0(() =>
    fresh(pinned(argv), api, f, async (c) => {
      for (let i = 0; i < 200; i++) await c.request("tool/call", echo);
      const cpu0 = cpuNs(c.proc.pid);
      const rtts = await roundTrips(c, 2000);
      f.cpuPerCallUs = (cpuNs(c.proc.pid) - cpu0) / 2000 / 1000;
      f.seq1P50Us = pct(rtts, 50);
      f.seq1P99Us = pct(rtts, 99);
    }),
  );
  // pipe: 5000 echo calls with 64 in flight after 500; only successful calls count.
  await fresh(argv, api, f, async (c) => {
    let rejected = 0;
    const pipelined = async (total: number, latencies: number[]) => {
      let sent = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (sent < total) {
            sent++;
            const t0 = performance.now();
            const reply = await c.request("tool/call", echo);
            latencies.push((performance.now() - t0) * 1000);
            if (reply.error) rejected++;
          }
        }),
      );
    };
    await pipelined(500, []);
    rejected = 0;
    const latencies: number[] = [];
    const t0 = performance.now();
    await pipelined(5000, latencies);
    f.pipelinedPerS = (5000 - rejected) / ((performance.now() - t0) / 1000);
    latencies.sort((a, b) => a - b);
    f.pipeP99Us = pct(latencies, 99);
    f.rejected = rejected;
  });
  // large: 20 echo calls of 512 KiB after 2, one at a time; every reply must come back whole.
  await fresh(argv, api, f, async (c) => {
    const big = "y".repeat(512 * 1024);
    const call = async () => {
      const reply = await c.request("tool/call", { name: "echo", arguments: { text: big } });
      const content = reply.result?.content;
      const length = typeof content === "string" ? content.length : content?.[0]?.text?.length;
      if (length !== big.length) throw new Error(`512 KiB echo came back wrong: ${JSON.stringify(reply.error)}`);
    };
    for (let i = 0; i < 2; i++) await call();
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await call();
      times.push(performance.now() - t0);
    }
    f.echo512MBps = (20 * big.length) / 1e6 / (times.reduce((a, b) => a + b, 0) / 1000);
    f.largeP99Ms = pct(times.sort((a, b) => a - b), 99);
  });
  // progress: 5 calls of K=1000 after 1; every event must arrive before the result.
  await fresh(argv, api, f, async (c) => {
    const call = async () => {
      const seen = c.notifications;
      const t0 = performance.now();
      const reply = await c.request("tool/call", { name: "progress", arguments: { count: 1000 } });
      const ms = performance.now() - t0;
      // A figure for work that was not done is worse than none.
      if (reply.error || c.notifications - seen !== 1000) throw new Error(`progress sent ${c.notifications - seen} of 1000 events (${JSON.stringify(reply.error ?? reply.result)})`);
      return ms;
    };
    await call();
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push(await call());
    f.notificationsPerS = 5000 / (times.reduce((a, b) => a + b, 0) / 1000);
    f.progressP99Ms = pct(times.sort((a, b) => a - b), 99);
  });
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

/** Rounds per API (`BENCH_ROUNDS`, default 5). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function medians(all: Figures[]): Figures {
  const out: Figures = {};
  for (const key of Object.keys(all[0]!)) out[key] = median(all.map((f) => f[key]!));
  return out;
}

type Row = [string, keyof Figures, "lower" | "higher", number | undefined];

/** The kit's FLOOR goals (sdk/floor), and the p99 goal for the sequential round trip. */
const ROWS: Row[] = [
  ["cold start (spawn → initialize reply), ms", "coldStartMs", "lower", 1.3],
  ["seq: round trip p50, µs", "seqP50Us", "lower", 1.3],
  ["seq: round trip p99, µs", "seqP99Us", "lower", 2],
  ["seq1 (driver on the extension's CPU): round trip p50, µs", "seq1P50Us", "lower", 1.2],
  ["seq1: round trip p99, µs", "seq1P99Us", "lower", undefined],
  ["seq1: extension CPU per call, µs", "cpuPerCallUs", "lower", undefined],
  ["pipe: calls/s, 64 in flight (0.2/0.4: concurrency 4)", "pipelinedPerS", "higher", 0.8],
  ["pipe: in-flight latency p99, µs", "pipeP99Us", "lower", undefined],
  ["large: 512 KiB echo, payload MB/s", "echo512MBps", "higher", undefined],
  ["large: round trip p99, ms", "largeP99Ms", "lower", undefined],
  ["progress: events/s (0.1: notifications)", "notificationsPerS", "higher", undefined],
  ["progress: call p99 (K = 1000), ms", "progressP99Ms", "lower", undefined],
  ["peak RSS over the workloads, MiB", "peakRssMiB", "lower", 1.2],
];

console.log(
  `octet-extension bench — Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs, load average ${(await Bun.file("/proc/loadavg").text().catch(() => "n/a")).split(" ").slice(0, 3).join(" ")}; the shared kit's workloads, each in a fresh process; medians of ${ROUNDS} interleaved rounds`,
);
let missed = 0;
for (const api of ["0.1", "0.2", "0.4"] as const) {
  const [floorCold, sdkCold] = await coldStarts([subjects.floor, subjects.sdk], api);
  const runs: { floor: Figures[]; sdk: Figures[] } = { floor: [], sdk: [] };
  for (let i = 0; i < ROUNDS; i++) {
    runs.floor.push(await measure(subjects.floor, api));
    runs.sdk.push(await measure(subjects.sdk, api));
  }
  const floor: Figures = { coldStartMs: floorCold!, ...medians(runs.floor) };
  const sdk: Figures = { coldStartMs: sdkCold!, ...medians(runs.sdk) };
  console.log(`\n### API ${api}\n\n| metric | floor | sdk | sdk/floor | target |\n|---|---:|---:|---:|---|`);
  const verdict = (ok: boolean) => {
    if (!ok) missed++;
    return ok ? "met" : "MISSED";
  };
  for (const [label, key, better, target] of ROWS) {
    const ratio = sdk[key]! / floor[key]!;
    const goal = target === undefined ? "—" : `${better === "lower" ? "≤" : "≥"} ${target}× ${verdict(better === "lower" ? ratio <= target : ratio >= target)}`;
    console.log(`| ${label} | ${fmt(floor[key]!)} | ${fmt(sdk[key]!)} | ${ratio.toFixed(2)}× | ${goal} |`);
  }
  const rates = Math.cbrt((sdk.pipelinedPerS! / floor.pipelinedPerS!) * (sdk.echo512MBps! / floor.echo512MBps!) * (sdk.notificationsPerS! / floor.notificationsPerS!));
  console.log(`| rates geomean (pipe, large, progress) | — | — | ${rates.toFixed(2)}× | ≥ 0.85× ${verdict(rates >= 0.85)} |`);
  const rejected = Math.max(...runs.sdk.map((f) => f.rejected!));
  console.log(`| rejected calls at 64 in flight (sdk, worst round) | — | ${rejected} | — | 0 ${verdict(rejected === 0)} |`);
}
for (const line of await validationBench(out, pinned)) console.log(line);
rmSync(out, { recursive: true, force: true });
console.log(missed === 0 ? "\nall runtime targets met" : `\n${missed} runtime target(s) missed`);
for (const line of await codegenBench()) console.log(line);

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toString() : n.toFixed(2);
}
