/**
 * `bun run bench/launcher-cold.ts [ROUNDS] [API]`: does the launcher's move of
 * stdout (`3>&1 1>&2`, OCTET_EXTENSION_PROTOCOL_FD) cost start-up? One compiled
 * SDK extension (bench/sdk-extension.ts, built as shipped) started through
 * three `#!/bin/sh` launchers in a random order each round: `plain` (the
 * launcher before the move: `exec NAME.bin "$@"`), `plain-again` (the same
 * text, the noise control) and `moved` (build's launcher today). Each launch:
 * FIFOs as octet's pipes, spawn, `initialize`, reply, kill. Prints medians and
 * the median of per-round ratios against `plain`. Figures, not a test.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileStandalone } from "../codegen/build.ts";
import { inExtensionDir } from "../codegen/shell.ts";
import { unixLauncher } from "../codegen/unix-launcher.ts";
import { BenchClient, benchPipes, median } from "./client.ts";

const rounds = Number(process.argv[2] ?? 100);
const api = (process.argv[3] ?? "0.2") as "0.1" | "0.2";
const NAME = "bench";
const root = mkdtempSync(join(tmpdir(), "octet-launcher-cold-"));
const dir = join(root, NAME);
mkdirSync(dir);
const built = compileStandalone(new URL("./sdk-extension.ts", import.meta.url).pathname, join(dir, `${NAME}.bin`), { bytecode: true });
if (built.exitCode !== 0) throw new Error(`compiling the subject failed: ${built.stderr.toString()}`);

const plainText = ["#!/bin/sh", `exec ${inExtensionDir(`${NAME}.bin`)} "$@"`, ""].join("\n");
const launchers: Record<string, string> = { plain: plainText, "plain-again": plainText, moved: unixLauncher(NAME).text };
for (const [name, text] of Object.entries(launchers)) writeFileSync(join(dir, name), text, { mode: 0o755 });

/** Spawn → initialize reply, in ms; the process is then killed. */
async function launch(name: string): Promise<number> {
  const pipes = benchPipes();
  const t0 = performance.now();
  const client = new BenchClient([join(dir, name)], api, { OCTET_EXTENSION_DIR: dir }, pipes);
  const reply = await client.initialize();
  const ms = performance.now() - t0;
  if (reply.error) throw new Error(`${name}: initialize failed: ${JSON.stringify(reply.error)}`);
  client.proc.kill("SIGKILL");
  await client.proc.exited;
  client.close();
  return ms;
}

const names = Object.keys(launchers);
for (let i = 0; i < 5; i++) for (const name of names) await launch(name); // page cache, warm-up
const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < rounds; round++) {
  const order = [...names].sort(() => Math.random() - 0.5);
  for (const name of order) samples[name]!.push(await launch(name));
}
rmSync(root, { recursive: true, force: true });

const q = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * p)]!;
/** Geometric mean of `ratios` with a 95% interval (normal approximation on their logarithms). */
function geomean(ratios: number[]): string {
  const logs = ratios.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1));
  const half = (1.96 * sd) / Math.sqrt(logs.length);
  return `${Math.exp(mean).toFixed(3)} [${Math.exp(mean - half).toFixed(3)}, ${Math.exp(mean + half).toFixed(3)}]`;
}
console.log(`launcher cold start, API ${api}, ${rounds} rounds (spawn → initialize reply, ms; ratio = per-round launch / plain)`);
for (const name of names) {
  const ratios = samples[name]!.map((ms, i) => ms / samples.plain![i]!);
  console.log(
    `${name.padEnd(12)} median ${median(samples[name]!).toFixed(2)} (p25 ${q(samples[name]!, 0.25).toFixed(2)}, p75 ${q(samples[name]!, 0.75).toFixed(2)})` +
      `  ratio median ${median(ratios).toFixed(3)} (p25 ${q(ratios, 0.25).toFixed(3)}, p75 ${q(ratios, 0.75).toFixed(3)}), geomean ${geomean(ratios)}`,
  );
}
process.exit(0);
