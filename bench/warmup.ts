/**
 * `npm run bench:warmup -- [--base DIR] [--api 0.1|0.2] [--rounds N]`: the request path's cost in
 * the kit's pipelined window (calls 500–5,500 of a fresh process, which JSC runs mostly before its
 * optimising tiers have compiled them) and once compiled, for this checkout and, with `--base`,
 * another one (e.g. `git worktree add /tmp/base HEAD~1`). Each round runs one process per checkout
 * in random order, pinned to one CPU with `--smol` as shipped; medians and ranges are printed.
 * The kit's own pipe figure swings ±20% between identical binaries; this resolves ~10%
 * (docs/performance.md). Figures, not a test.
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { base: { type: "string" }, api: { type: "string", default: "0.1" }, rounds: { type: "string", default: "20" } } });
const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const trees = [{ name: "this checkout", root: here }, ...(values.base ? [{ name: values.base, root: values.base.replace(/\/$/, "") }] : [])];
const api = values.api === "0.2" ? "0.2" : "0.1";
const rounds = Math.max(1, Number(values.rounds) || 20);
const taskset = Bun.which("taskset");
const subject = `${here}/bench/warmup-subject.ts`;
/** 64-call chunks the subject times once everything is compiled (after its 86 warm-up and window chunks). */
const COMPILED_CHUNKS = 300;

const results = new Map<string, { windowMs: number[]; steadyUs: number[] }>(trees.map((t) => [t.name, { windowMs: [], steadyUs: [] }]));
for (let round = 0; round < rounds; round++) {
  for (const tree of [...trees].sort(() => Math.random() - 0.5)) {
    const argv = [process.execPath, "--smol", subject, tree.root, api, String(COMPILED_CHUNKS)];
    const run = Bun.spawnSync(taskset ? [taskset, "-c", "1", ...argv] : argv, { stdout: "pipe", stderr: "pipe" });
    if (run.exitCode !== 0) throw new Error(`${tree.name}: the subject failed: ${run.stderr.toString().trim()}`);
    const figures = JSON.parse(run.stdout.toString()) as { windowMs: number; steadyUs: number; answered: number };
    const expected = 1 + (86 + COMPILED_CHUNKS) * 64;
    if (figures.answered !== expected) throw new Error(`${tree.name}: ${figures.answered} replies, not ${expected}: the subject did not answer every call`);
    results.get(tree.name)!.windowMs.push(figures.windowMs);
    results.get(tree.name)!.steadyUs.push(figures.steadyUs);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const range = (xs: number[], digits: number) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
console.log(`API ${api}, ${rounds} rounds${taskset ? ", pinned to CPU 1" : " (taskset not found: not pinned)"}`);
for (const [name, r] of results) {
  console.log(`${name}: calls 500–5,500 ${median(r.windowMs).toFixed(1)} ms (${range(r.windowMs, 1)}); compiled ${median(r.steadyUs).toFixed(2)} µs a call (${range(r.steadyUs, 2)})`);
}
