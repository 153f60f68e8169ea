import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gen, ManifestError } from "../../codegen/index.ts";
import { project, removeProjects, typecheck } from "./helpers.ts";

afterAll(removeProjects);

/** Small deterministic PRNG (mulberry32) so a failure can be replayed from its seed. */
function prng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = ["string", "integer", "boolean", "number"];

function manifest(tools: Map<string, string>): string {
  const lines = ['name = "prop"', 'version = "0.1.0"', 'api_version = "0.2"', ""];
  for (const [name, type] of tools) {
    lines.push(`[tools.${name}]`, `description = "Tool ${name}"`, `parameters = { type = "object", properties = { value = { type = "${type}" } }, required = ["value"] }`, "");
  }
  return lines.join("\n");
}

test("property: random manifest edits keep every handler body byte for byte; tsc passes once each declared tool has a handler", async () => {
  const seed = Number(process.env.PROPERTY_SEED ?? 20261130);
  const random = prng(seed);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  let gens = 0;
  let bodyChecks = 0;
  let typechecks = 0;
  const SEQUENCES = 5;
  const STEPS = 6;
  for (let sequence = 0; sequence < SEQUENCES; sequence++) {
    const tools = new Map<string, string>([["t0", "string"]]);
    const dir = project("prop", manifest(tools));
    const source = join(dir, "src/extension.ts");
    /** Authored bodies by handler name (they stay in the file while the handler does). */
    const bodies = new Map<string, string>();
    let counter = 1;
    const regenerate = async () => {
      writeFileSync(join(dir, "manifest.toml"), manifest(tools));
      await gen(dir);
      gens++;
      let text = readFileSync(source, "utf8");
      for (const [name, body] of bodies) {
        expect(text.includes(body)).toBe(true);
        bodyChecks++;
      }
      // The author implements every new stub with a distinctive body.
      for (const name of tools.keys()) {
        if (bodies.has(name)) continue;
        const stub = `throw new Error("tool \`${name}\` is not implemented yet");`;
        expect(text.includes(stub)).toBe(true);
        const spaces = " ".repeat(Math.floor(random() * 4));
        const body = `/* seed ${seed} body ${name}-${counter++} */${spaces}return   String(Object.keys(args).length + ${Math.floor(random() * 1000)});`;
        text = text.replace(stub, body);
        bodies.set(name, body);
      }
      writeFileSync(source, text);
    };
    await regenerate();
    for (let step = 0; step < STEPS; step++) {
      const op = tools.size === 0 ? "add" : pick(["add", "rename", "retype", "remove"]);
      const victim = pick([...tools.keys()]);
      if (op === "add" || victim === undefined) tools.set(`t${counter++}`, pick(TYPES));
      else if (op === "retype") tools.set(victim, pick(TYPES.filter((t) => t !== tools.get(victim))));
      else {
        const type = tools.get(victim)!;
        tools.delete(victim);
        if (op === "rename") tools.set(`r${counter++}`, type);
      }
      await regenerate();
    }
    // The author deletes handlers whose declaration is gone (gen reports them); then everything type-checks.
    let text = readFileSync(source, "utf8");
    for (const name of [...bodies.keys()]) {
      if (tools.has(name)) continue;
      text = text.replace(new RegExp(`\\n\\s*${name}: async \\(args, ctx\\)[^=]* => \\{[\\s\\S]*?\\n\\s*\\},?`), "");
      bodies.delete(name);
    }
    writeFileSync(source, text);
    expect(await gen(dir, { check: true })).toMatchObject({ orphans: [] });
    expect(typecheck([source])).toEqual([]);
    typechecks++;
  }
  console.log(`property test (seed ${seed}): ${SEQUENCES} sequences, ${gens} gen runs, ${bodyChecks} body checks, ${typechecks} type checks`);
  expect(gens).toBe(SEQUENCES * (STEPS + 1));
}, 300_000);

/** Every file under `root` with its contents (to see that nothing outside the lane changed). */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.name === "node_modules") continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.set(path, readFileSync(path, "utf8"));
    }
  };
  walk(root);
  return out;
}

const PATHS = [
  undefined,
  undefined,
  undefined,
  "src/extension.ts",
  "src/main.ts",
  "generated/types.gen.ts",
  "src/extension.gen.ts",
  "src/other.gen.ts",
  "lib/handlers.ts",
  "manifest.toml",
  "extension.toml",
  "package.json",
  "../outside.gen.ts",
  "../../outside.ts",
  "src/../../escape.gen.ts",
  "/tmp/absolute.gen.ts",
  "node_modules/x.gen.ts",
  "dist/x.gen.ts",
  "src/extension.validators.gen.ts",
  "src/x.d.ts",
  ".gen.ts",
  "",
  "src/",
];

test("property: whatever [source] says, gen writes only inside the project, never over the manifest or the author's file, or refuses before writing", async () => {
  const seed = Number(process.env.PROPERTY_SEED ?? 20261201);
  const random = prng(seed);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  let refused = 0;
  let written = 0;
  for (let round = 0; round < 40; round++) {
    const file = pick(PATHS);
    const generated = pick(PATHS);
    const source = [file === undefined ? "" : `file = ${JSON.stringify(file)}`, generated === undefined ? "" : `generated = ${JSON.stringify(generated)}`].filter(Boolean);
    const dir = project("prop", `${manifest(new Map([["t0", "string"]]))}\n[source]\n${source.join("\n")}\n`);
    const root = join(dir, "..");
    const sentinel = join(dir, "src/keep.ts");
    mkdirSync(join(dir, "src"), { recursive: true });
    writeFileSync(sentinel, "// the author's\n");
    const before = snapshot(root);
    const absolute = existsSync("/tmp/absolute.gen.ts");
    try {
      const report = await gen(dir);
      written++;
      const after = snapshot(root);
      for (const [path, text] of before) expect(after.get(path)).toBe(text); // nothing the author had was changed
      for (const path of after.keys()) expect(path.startsWith(`${dir}/`)).toBe(true);
      for (const changed of report.changed) expect(["manifest.toml", "package.json"]).not.toContain(changed);
    } catch (error) {
      refused++;
      expect(error).toBeInstanceOf(ManifestError);
      expect((error as Error).message).toMatch(/manifest\.toml: source\.(file|generated): /);
      expect(snapshot(root)).toEqual(before);
    }
    expect(existsSync("/tmp/absolute.gen.ts")).toBe(absolute);
  }
  console.log(`path property (seed ${seed}): ${written} accepted, ${refused} refused`);
  expect(refused).toBeGreaterThan(0);
  expect(written).toBeGreaterThan(0);
}, 300_000);
