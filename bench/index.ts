/**
 * `npm run bench`: the SDK runtime against a raw hand-written Bun responder
 * (the floor), measured in the same run. Figures and ratios; not a test.
 */
import { BenchClient } from "./client.ts";

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

const here = new URL(".", import.meta.url).pathname;
const taskset = Bun.which("taskset");
const bun = process.execPath;
// Both subjects are measured as shipped: standalone executables from
// `bun build --compile --bytecode --minify` (see docs/performance.md).
const out = mkdtempSync(`${tmpdir()}/octet-bench-`);
for (const name of ["floor-extension", "sdk-extension"]) {
  const build = Bun.spawnSync(
    [bun, "build", "--compile", "--bytecode", "--format=esm", "--minify", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", `${here}${name}.ts`, "--outfile", `${out}/${name}`],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (build.exitCode !== 0) throw new Error(`compiling ${name} failed: ${build.stderr.toString()}`);
}
const subjects = {
  floor: [`${out}/floor-extension`],
  sdk: [`${out}/sdk-extension`],
};
const pinned = (argv: string[]) => (taskset ? [taskset, "-c", "0", ...argv] : argv);

type Figures = Record<string, number>;

async function measure(argv: string[]): Promise<Figures> {
  const f: Figures = {};
  // Sequential round trips, pinned to one CPU when taskset exists.
  const seq = new BenchClient(pinned(argv));
  await seq.initialize();
  for (let i = 0; i < 200; i++) await seq.request("tool/call", { name: "echo", arguments: { text: "warm" } });
  const rtts: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now();
    await seq.request("tool/call", { name: "echo", arguments: { text: "ping" } });
    rtts.push(performance.now() - t0);
  }
  rtts.sort((a, b) => a - b);
  f.seqP50Us = rtts[Math.floor(rtts.length * 0.5)]! * 1000;
  f.seqP99Us = rtts[Math.floor(rtts.length * 0.99)]! * 1000;
  await seq.shutdown();

  const c = new BenchClient(argv);
  await c.initialize();
  // Every workload below runs once untimed first (steady state, for both subjects).
  // Pipelined: keep 64 in flight.
  const pipelined = async (total: number) => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (sent < total) {
          sent++;
          await c.request("tool/call", { name: "echo", arguments: { text: "x" } });
        }
      }),
    );
  };
  await pipelined(1_000);
  const t0 = performance.now();
  await pipelined(10_000);
  f.pipelinedPerS = 10_000 / ((performance.now() - t0) / 1000);

  // 512 KiB echo.
  const big = "y".repeat(512 * 1024);
  const rounds = 60;
  for (let i = 0; i < 10; i++) await c.request("tool/call", { name: "echo", arguments: { text: big } });
  const t1 = performance.now();
  for (let i = 0; i < rounds; i++) {
    const reply = await c.request("tool/call", { name: "echo", arguments: { text: big } });
    if (reply.result?.content?.length !== big.length) throw new Error(`512 KiB echo came back wrong: ${JSON.stringify(reply.error)}`);
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

/** Cold start (spawn → initialize reply): median of 61, subjects interleaved so drift hits both alike. */
async function coldStarts(argvs: string[][]): Promise<number[]> {
  const samples: number[][] = argvs.map(() => []);
  for (let i = 0; i < 61; i++) {
    for (const [k, argv] of argvs.entries()) {
      const t0 = performance.now();
      const c = new BenchClient(argv);
      await c.initialize();
      samples[k]!.push(performance.now() - t0);
      await c.shutdown();
    }
  }
  return samples.map(median);
}

const ROUNDS = 3;

function medians(all: Figures[]): Figures {
  const out: Figures = {};
  for (const key of Object.keys(all[0]!)) out[key] = median(all.map((f) => f[key]!));
  return out;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const rows: [string, keyof Figures, "lower" | "higher", number | undefined][] = [
  ["cold start (spawn → initialize reply), ms", "coldStartMs", "lower", 1.3],
  ["sequential round trip p50, µs", "seqP50Us", "lower", 1.5],
  ["sequential round trip p99, µs", "seqP99Us", "lower", undefined],
  ["pipelined throughput (64 in flight), calls/s", "pipelinedPerS", "higher", undefined],
  ["512 KiB echo, MB/s (in + out)", "echo512MBps", "higher", 0.8],
  ["notifications/s (API 0.1 progress stream)", "notificationsPerS", "higher", 0.7],
  ["peak RSS, MiB", "peakRssMiB", "lower", 1.2],
];

console.log(`octet-extension bench — Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs${taskset ? ", sequential pinned with taskset -c 0" : ""}`);
const [floorCold, sdkCold] = await coldStarts([subjects.floor, subjects.sdk]);
// Three fresh processes per subject, interleaved; each figure is the median of the three
// (peak RSS in particular depends on when the collector happens to run).
const runs: { floor: Figures[]; sdk: Figures[] } = { floor: [], sdk: [] };
for (let i = 0; i < ROUNDS; i++) {
  runs.floor.push(await measure(subjects.floor));
  runs.sdk.push(await measure(subjects.sdk));
}
const floor: Figures = { coldStartMs: floorCold!, ...medians(runs.floor) };
const sdk: Figures = { coldStartMs: sdkCold!, ...medians(runs.sdk) };
rmSync(out, { recursive: true, force: true });
console.log("\n| metric | floor | sdk | sdk/floor | target |\n|---|---:|---:|---:|---|");
let missed = 0;
for (const [label, key, better, target] of rows) {
  const ratio = sdk[key]! / floor[key]!;
  let verdict = "—";
  if (target !== undefined) {
    const ok = better === "lower" ? ratio <= target : ratio >= target;
    if (!ok) missed++;
    verdict = `${better === "lower" ? "≤" : "≥"} ${target}× ${ok ? "met" : "MISSED"}`;
  }
  console.log(`| ${label} | ${fmt(floor[key]!)} | ${fmt(sdk[key]!)} | ${ratio.toFixed(2)}× | ${verdict} |`);
}
console.log(missed === 0 ? "\nall targets met" : `\n${missed} target(s) missed`);

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toString() : n.toFixed(2);
}
