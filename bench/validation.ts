/**
 * Argument-validation figures for `bun run bench`: the cost per call of the
 * validators `gen` compiles (Ajv standalone code), in process and end to end
 * (the SDK echo extension with and without a validator, same run).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileStandalone } from "../codegen/build.ts";
import type { AuthorManifest } from "../codegen/manifest.ts";
import { renderValidators } from "../codegen/validators.ts";
import type { ArgumentValidator } from "../src/index.ts";
import { BenchClient, median } from "./client.ts";

const REPO = new URL("../", import.meta.url).pathname;

const SCHEMAS: Record<string, Record<string, unknown>> = {
  echo: { type: "object", properties: { text: { type: "string" } } },
  forecast: {
    type: "object",
    properties: { city: { type: "string", minLength: 2 }, days: { type: "integer", minimum: 1, maximum: 14 }, units: { enum: ["metric", "imperial"] }, tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
    required: ["city"],
    additionalProperties: false,
  },
};

/** The validators module as gen writes it, importing the runtime by absolute path (it lives outside the repo). */
function validatorsModule(): string {
  const manifest = { path: "bench/manifest.toml", tools: Object.entries(SCHEMAS).map(([name, parameters]) => ({ name, description: name, parameters, validate: true })) } as unknown as AuthorManifest;
  return renderValidators(manifest).replace('"octet-extension/validation"', JSON.stringify(join(REPO, "src/validation.ts"))).replace('"octet-extension"', JSON.stringify(join(REPO, "src/index.ts")));
}

function nsPerCall(validate: ArgumentValidator, args: unknown): number {
  for (let i = 0; i < 100_000; i++) validate(args);
  const n = 1_000_000;
  const t0 = Bun.nanoseconds();
  for (let i = 0; i < n; i++) validate(args);
  return (Bun.nanoseconds() - t0) / n;
}

async function seqP50(argv: string[]): Promise<number> {
  const c = new BenchClient(argv, "0.2");
  await c.initialize(["echo"]);
  for (let i = 0; i < 300; i++) await c.request("tool/call", { name: "echo", arguments: { text: "warm" } });
  const rtts: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now();
    await c.request("tool/call", { name: "echo", arguments: { text: "ping" } });
    rtts.push(performance.now() - t0);
  }
  await c.shutdown();
  return median(rtts) * 1000;
}

export async function validationBench(out: string, pinned: (argv: string[]) => string[]): Promise<string[]> {
  const dir = join(out, "validation");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "validators.gen.ts"), validatorsModule());
  const { validators } = (await import(join(dir, "validators.gen.ts"))) as { validators: Record<string, ArgumentValidator> };
  const rows = ["", "### argument validation (generated validators)", "", "| figure | value |", "|---|---:|"];
  rows.push(`| echo schema, valid arguments, in process | ${nsPerCall(validators.echo!, { text: "ping" }).toFixed(0)} ns/call |`);
  rows.push(`| 4-property schema, valid arguments, in process | ${nsPerCall(validators.forecast!, { city: "Oslo", days: 3, units: "metric", tags: ["a", "b"] }).toFixed(0)} ns/call |`);
  rows.push(`| 4-property schema, 3 violations, in process | ${nsPerCall(validators.forecast!, { city: "O", days: 0, extra: 1 }).toFixed(0)} ns/call |`);
  const source = (validated: boolean) =>
    [
      `import { Extension } from ${JSON.stringify(join(REPO, "src/index.ts"))};`,
      validated ? 'import { validators } from "./validators.gen.ts";' : "",
      "const ext = new Extension({ maxConcurrentRequests: 4 });",
      `ext.tool({ name: "echo", description: "Echo text" }, (args: { text?: string }) => ({ content: args.text ?? "" })${validated ? ", { validate: validators.echo }" : ""});`,
      "await ext.run();",
      "",
    ].join("\n");
  const subjects: Record<string, string[]> = {};
  for (const validated of [false, true]) {
    const name = validated ? "validated" : "plain";
    writeFileSync(join(dir, `${name}.ts`), source(validated));
    const built = compileStandalone(join(dir, `${name}.ts`), join(dir, name), { bytecode: true });
    if (built.exitCode !== 0) throw new Error(`compiling the ${name} echo failed: ${built.stderr.toString()}`);
    subjects[name] = pinned([join(dir, name)]);
  }
  const plain: number[] = [];
  const validated: number[] = [];
  for (let round = 0; round < 5; round++) {
    plain.push(await seqP50(subjects.plain!));
    validated.push(await seqP50(subjects.validated!));
  }
  const p = median(plain);
  const v = median(validated);
  rows.push(`| sequential p50 (API 0.2, pinned), without / with validator, median of 5 | ${p.toFixed(2)} / ${v.toFixed(2)} µs (${(v / p).toFixed(3)}×, ${(v - p).toFixed(2)} µs/call) |`);
  return rows;
}
