/**
 * Author-tooling figures for `bun run bench`: gen time for 1, 32 and 256
 * tools, build time and bundle size, and the built bundle's cold start against
 * `bun` running the TypeScript source directly (as the dev entry point does).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, gen } from "../codegen/index.ts";
import { BenchClient, benchPipes, median } from "./client.ts";

const REPO = new URL("../", import.meta.url).pathname;

function project(tools: number): string {
  const dir = join(mkdtempSync(join(tmpdir(), "octet-gen-bench-")), "bench-ext");
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(join(REPO, "src"), join(dir, "node_modules", "octet-extension"));
  // As scaffolded: build type-checks first, with @types/bun and the scaffold's tsconfig.
  mkdirSync(join(dir, "node_modules", "@types"));
  symlinkSync(join(REPO, "node_modules", "@types", "bun"), join(dir, "node_modules", "@types", "bun"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ESNext", module: "Preserve", moduleResolution: "bundler", lib: ["ESNext"], types: ["bun"], strict: true, noEmit: true, allowImportingTsExtensions: true, skipLibCheck: true }, include: ["src"] }));
  const lines = ['name = "bench-ext"', 'version = "0.1.0"', 'api_version = "0.2"', ""];
  for (let i = 0; i < tools; i++) {
    lines.push(
      `[tools.tool_${i}]`,
      `description = "Benchmark tool ${i}"`,
      `parameters = { type = "object", properties = { query = { type = "string" }, limit = { type = "integer", minimum = 1 }, tags = { type = "array", items = { type = "string" } } }, required = ["query"] }`,
      "",
    );
  }
  writeFileSync(join(dir, "manifest.toml"), lines.join("\n"));
  return dir;
}


async function coldStart(argv: string[], env: Record<string, string>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 15; i++) {
    const pipes = benchPipes();
    const t0 = performance.now();
    const client = new BenchClient(argv, "0.2", env, pipes);
    await client.initialize(["tool_0"]);
    samples.push(performance.now() - t0);
    await client.shutdown();
  }
  return median(samples);
}

/** Wall time (ms) of one `octet-extension gen` in `dir`, as an author runs it. */
function timeGen(dir: string): number {
  const t0 = performance.now();
  const run = Bun.spawnSync([process.execPath, join(REPO, "codegen/cli.ts"), "gen"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - t0;
  if (run.exitCode !== 0) throw new Error(`gen failed: ${run.stderr.toString()}`);
  return ms;
}

export async function codegenBench(): Promise<string[]> {
  const rows: string[] = ["", "### Author tooling", "", "| measurement | value | target |", "|---|---:|---|"];
  let missed = 0;
  for (const [tools, target] of [[1, 1_000], [32, undefined], [256, 5_000]] as const) {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const dir = project(tools);
      times.push(timeGen(dir));
      rmSync(join(dir, ".."), { recursive: true, force: true });
    }
    const ms = median(times);
    const ok = target === undefined || ms <= target;
    if (!ok) missed++;
    rows.push(`| \`octet-extension gen\`, ${tools} tool${tools === 1 ? "" : "s"} (CLI wall time, fresh project, median of 3) | ${ms.toFixed(0)} ms | ${target === undefined ? "—" : `≤ ${target} ms ${ok ? "met" : "MISSED"}`} |`);
  }
  // Again on a project that has its source file: gen then edits it with ts-morph, which a fresh project does not load.
  {
    const dir = project(1);
    timeGen(dir);
    const times = [timeGen(dir), timeGen(dir), timeGen(dir)];
    rmSync(join(dir, ".."), { recursive: true, force: true });
    rows.push(`| \`octet-extension gen\` again, 1 tool, source file present (CLI wall time, median of 3) | ${median(times).toFixed(0)} ms | — |`);
  }
  const dir = project(1);
  await gen(dir);
  writeFileSync(
    join(dir, "src/extension.ts"),
    'import { Extension } from "octet-extension";\nimport { type Handlers, register } from "./extension.gen.ts";\nexport const handlers = { tools: { tool_0: (args) => args.query }, commands: {} } satisfies Handlers;\nawait register(new Extension(), handlers).run();\n',
  );
  const t0 = performance.now();
  const built = await build(dir);
  rows.push(`| build (type check + compile + archive) | ${((performance.now() - t0) / 1000).toFixed(1)} s | — |`);
  rows.push(`| bundle: compiled executable | ${(built.executableBytes / 1048576).toFixed(1)} MiB | staged wrapper stays under 64 MiB |`);
  const env = { OCTET_EXTENSION_DIR: join(dir, "dist/bench-ext") };
  const compiled = await coldStart([join(dir, "dist/bench-ext/bench-ext.bin")], env);
  const source = await coldStart([process.execPath, "--no-env-file", join(dir, "src/extension.ts")], env);
  rows.push(`| cold start: compiled bundle vs \`bun\` on the source | ${compiled.toFixed(1)} ms vs ${source.toFixed(1)} ms (${(compiled / source).toFixed(2)}×) | — |`);
  rmSync(join(dir, ".."), { recursive: true, force: true });
  rows.push("", missed === 0 ? "author tooling targets met" : `${missed} author tooling target(s) missed`);
  return rows;
}
