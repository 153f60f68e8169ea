/**
 * From zero to a shipped extension, as a stranger does it (issue 10): the
 * four packages are packed as `npm publish` would upload them and published
 * to a private Verdaccio on loopback together with every third-party package
 * they need (from npm's cache: nothing leaves the machine). Then, in an empty
 * directory with a HOME of its own and nothing from this checkout on PATH,
 * the README's commands run as printed — once with only Bun, once with only
 * Node and npm — and the built bundle is started as octet starts it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";
import { pack } from "../../scripts/pack.ts";
import { kindsLoop } from "./kinds-journey.ts";
import { clientEnv, lockfileClosure, packFromNpmCache, publishTarballs, type Registry, run, startRegistry, writeClientConfig } from "./registry.ts";

const REPO = join(import.meta.dir, "../..");
/** What a shell session needs besides the package managers (no node, no bun). */
const TOOLS = ["sh", "dash", "bash", "env", "tar", "gzip", "cat", "ls", "mkdir", "rm", "cp", "mv", "chmod", "uname", "sha256sum", "dirname", "basename", "readlink", "sed", "grep", "head", "tail", "tr", "wc", "sort", "mktemp", "id"];

let registry: Registry;
const published: string[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  const scratch = temporaryDirectory("journey-packages-");
  const ours = pack(join(scratch, "ours"));
  // Everything the scaffold installs on either route, at the versions this checkout's lockfile pins.
  const theirs = await packFromNpmCache(lockfileClosure(join(REPO, "package-lock.json"), ["codegen", "@types/bun", "bun"]), join(scratch, "theirs"));
  const missing = theirs.skipped.filter((s) => !s.name.startsWith("@oven/bun-") || s.name === "@oven/bun-linux-x64");
  if (missing.length > 0) throw new Error(`npm's cache lacks ${missing.map((s) => `${s.name}@${s.version}`).join(", ")}: run npm ci first`);
  for (const spec of await publishTarballs(registry.url, [...ours, ...theirs])) published.push(`${spec.name}@${spec.version}`);
}, 240_000);

afterAll(async () => {
  await registry?.stop();
});

/** A private PATH directory holding `programs` (name → path) and the shell tools; nothing of this checkout. */
function pathDir(programs: Record<string, string>): string {
  const bin = temporaryDirectory("journey-bin-");
  for (const [name, path] of Object.entries(programs)) copyOrLink(path, join(bin, name));
  for (const tool of TOOLS) {
    const found = Bun.which(tool, { PATH: "/usr/bin:/bin" });
    if (found) symlinkSync(found, join(bin, tool));
  }
  return bin;
}

function copyOrLink(path: string, to: string): void {
  if (path.startsWith(REPO)) copyFileSync(path, to); // a copy: nothing on PATH points into the checkout
  else symlinkSync(path, to);
  Bun.spawnSync(["chmod", "+x", to]);
}

interface Session {
  step(command: string, cwd?: string): Promise<string>;
  fails(command: string, cwd?: string): Promise<string>;
  timings: Record<string, number>;
}

function session(bin: string, home: string, work: string): Session {
  const env = { ...clientEnv(home, bin), TMPDIR: temporaryDirectory("journey-tmp-") };
  const timings: Record<string, number> = {};
  const exec = async (command: string, cwd: string) => {
    const started = performance.now();
    const result = await run([join(bin, "sh"), "-c", command], { cwd, env, timeoutMs: 300_000 });
    timings[command] = (performance.now() - started) / 1000;
    return { ...result, output: `${result.stdout}${result.stderr}` };
  };
  return {
    timings,
    async step(command, cwd = work) {
      const result = await exec(command, cwd);
      if (result.code !== 0) throw new Error(`\`${command}\` exited ${result.code}:\n${result.output}`);
      return result.output;
    },
    async fails(command, cwd = work) {
      const result = await exec(command, cwd);
      if (result.code === 0) throw new Error(`\`${command}\` should have failed:\n${result.output}`);
      return result.output;
    },
  };
}

const FORECAST = `
[tools.get_forecast]
description = "Get the forecast for a city"
parameters = { type = "object", properties = { city = { type = "string" }, days = { type = "integer", minimum = 1 } }, required = ["city"] }
`;

/** The README's loop after install: declare a tool, gen, implement, type-check (and be refused), test, build, run. */
async function authorLoop(s: Session, dir: string, runScript: (name: string) => string, testCommand: string): Promise<void> {
  writeFileSync(join(dir, "manifest.toml"), readFileSync(join(dir, "manifest.toml"), "utf8") + FORECAST);
  expect(await s.step(runScript("gen"), dir)).toContain("added stub for tools.get_forecast");
  const source = join(dir, "src/extension.ts");
  const withStub = readFileSync(source, "utf8");
  expect(withStub).toContain('    get_forecast: async (args, ctx): Promise<ToolReturn> => {\n      throw new Error("tool `get_forecast` is not implemented yet");\n    },\n');
  const implemented = withStub.replace(/get_forecast: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "get_forecast: (args) => `Sunny in ${args.city} for ${args.days ?? 1} day(s)`,");
  // A type error is caught by typecheck, and build refuses to ship it.
  writeFileSync(source, withStub.replace(/get_forecast: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "get_forecast: (args) => {\n      const oops: number = args.city;\n      return `${oops}`;\n    },"));
  expect(await s.fails(runScript("typecheck"), dir)).toContain("error TS");
  expect(await s.fails(runScript("build"), dir)).toContain("the project does not type-check");
  expect(existsSync(join(dir, "dist"))).toBe(false);
  writeFileSync(source, implemented);
  await s.step(runScript("typecheck"), dir);
  const tested = await s.step(testCommand, dir);
  expect(tested).toMatch(/\b2 pass\b/);
  expect(tested).toMatch(/\b0 fail\b/);
  // The README's call, through the scaffold's script: the answer alone, no initialize frames.
  const called = await s.step(`${runScript("call")} -- hello '{"name":"Ada"}'`, dir);
  expect(called).toContain("Hello, Ada!");
  expect(called).not.toContain('"method":"initialize"');
  // The test script checks generated files first: a manifest changed without gen fails it.
  const manifest = join(dir, "manifest.toml");
  const declared = readFileSync(manifest, "utf8");
  writeFileSync(manifest, declared.replace("Get the forecast for a city", "Get a forecast"));
  expect(await s.fails(testCommand, dir)).toContain("stale: src/extension.gen.ts");
  writeFileSync(manifest, declared);
  const built = await s.step(runScript("build"), dir);
  expect(built).toContain("warning: no requires_octet");
  expect(existsSync(join(dir, "dist/weather/weather.bin"))).toBe(true);
  // Started as octet starts an installed extension: staged wrapper, cleared environment without Bun or Node.
  const installed = join(temporaryDirectory("journey-octet-"), "extensions", "weather");
  mkdirSync(join(installed, ".."), { recursive: true });
  Bun.spawnSync(["cp", "-R", join(dir, "dist/weather"), installed]);
  const host = await TestHost.start(installed, { env: { PATH: "/nonexistent" }, addBunToPath: false });
  // The template declares octet's current API: the shipped bundle negotiates 0.4 under the strict host.
  expect(readFileSync(join(installed, "extension.toml"), "utf8")).toContain('api_version = "0.4"');
  expect(await host.initialize()).toMatchObject({ api_version: "0.4", protocol: { version: "0.4" } });
  expect(await host.callTool("get_forecast", { city: "Oslo", days: 2 })).toEqual({ content: [{ type: "text", text: "Sunny in Oslo for 2 day(s)" }], is_error: false, metadata: {} });
  const rejected = await host.callTool("get_forecast", { city: "Oslo", days: 0 });
  expect(JSON.stringify(rejected)).toContain("/days must be >= 1 (rule: minimum)");
  expect(await host.callTool("hello", { name: "Ada" })).toMatchObject({ content: [{ text: "Hello, Ada!" }] });
  expect(await host.shutdown()).toBe(0);
  expect(host.violations).toEqual([]);
}

const BUN_BINARY = realpathSync(join(REPO, "node_modules/.bin/bun"));

describe("the README's front door, against a registry", () => {
  test("the packages and their dependencies are served; anything unpublished is not", async () => {
    expect(published).toContain("octet-extension@0.1.0");
    expect(published).toContain("octet-extension-tools@0.1.0");
    expect(published).toContain("create-octet-extension@0.1.0");
    expect((await fetch(`${registry.url}left-pad`)).status).toBe(404);
    // The runtime package a bundle depends on has no dependencies at all.
    const runtime = (await (await fetch(`${registry.url}octet-extension`)).json()) as { versions: Record<string, Record<string, unknown>> };
    const manifest = runtime.versions["0.1.0"]!;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.optionalDependencies ?? {}).toEqual({});
  });

  test("with only Bun: bun create → bun install → gen → typecheck → bun run test → bun run call → bun run build → run the bundle", async () => {
    const bin = pathDir({ bun: BUN_BINARY });
    expect(Bun.which("node", { PATH: bin })).toBeNull();
    const home = temporaryDirectory("journey-home-");
    writeClientConfig(home, registry.url);
    const work = temporaryDirectory("journey-work-");
    const s = session(bin, home, work);
    expect(await s.step("bun create octet-extension weather")).toContain("bun install");
    const dir = join(work, "weather");
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg.devDependencies.bun).toBeUndefined();
    expect(await s.step("bun install", dir)).toContain("wrote extension.toml");
    expectNoNativeHost(dir);
    await authorLoop(s, dir, (name) => `bun run ${name}`, "bun run test");
    console.log(`journey (bun): ${Object.entries(s.timings).map(([c, t]) => `${c} ${t.toFixed(1)} s`).join("; ")}`);
  }, 300_000);

  test("with only Node and npm: npm create → npm install → gen → typecheck → npm test → npm run call → npm run build → run the bundle", async () => {
    const node = Bun.which("node", { PATH: "/usr/local/bin:/usr/bin:/bin" })!;
    const npm = realpathSync(Bun.which("npm", { PATH: "/usr/local/bin:/usr/bin:/bin" })!);
    const npx = realpathSync(Bun.which("npx", { PATH: "/usr/local/bin:/usr/bin:/bin" })!);
    const bin = pathDir({ node, npm, npx });
    expect(Bun.which("bun", { PATH: bin })).toBeNull();
    const home = temporaryDirectory("journey-home-");
    writeClientConfig(home, registry.url);
    const work = temporaryDirectory("journey-work-");
    const s = session(bin, home, work);
    expect(await s.step("npm create octet-extension weather")).toContain("npm install");
    const dir = join(work, "weather");
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).devDependencies.bun).toBe("1.4.4");
    expect(await s.step("npm install", dir)).toContain("wrote extension.toml");
    expectNoNativeHost(dir);
    await authorLoop(s, dir, (name) => `npm run ${name}`, "npm test");
    console.log(`journey (npm): ${Object.entries(s.timings).map(([c, t]) => `${c} ${t.toFixed(1)} s`).join("; ")}`);
  }, 300_000);

  test("a second extension, with only Bun: a status item, context, a hook, a renderer and a tool with required $ref arguments → gen → test → call each kind → conformance", async () => {
    const bin = pathDir({ bun: BUN_BINARY });
    const home = temporaryDirectory("journey-home-");
    writeClientConfig(home, registry.url);
    const work = temporaryDirectory("journey-work-");
    const s = session(bin, home, work);
    await s.step("bun create octet-extension todo");
    const dir = join(work, "todo");
    await s.step("bun install", dir);
    const summary = await kindsLoop(s, dir);
    console.log(`journey (kinds): ${Object.entries(s.timings).map(([c, t]) => `${c} ${t.toFixed(1)} s`).join("; ")}\nconformance on add_todo: ${summary}`);
  }, 300_000);
});

/** The scaffold's dependency tree holds no native-host code: no client, no double, no bin (issue 26). */
function expectNoNativeHost(dir: string): void {
  const modules = join(dir, "node_modules");
  expect(existsSync(join(modules, "octet-extension/package.json"))).toBe(true);
  expect(existsSync(join(modules, "octet-native-host"))).toBe(false);
  expect(existsSync(join(modules, ".bin/octet-host-double"))).toBe(false);
  expect(readdirSync(join(modules, "octet-extension")).filter((f) => /native-host|host-double|^bin$/.test(f))).toEqual([]);
}

/** The files of a published tarball, as the registry serves it (without npm's `package/` prefix). */
async function publishedFiles(name: string, version = "0.1.0"): Promise<string[]> {
  const document = (await (await fetch(`${registry.url}${name}`)).json()) as { versions: Record<string, { dist: { tarball: string } }> };
  const tarball = join(temporaryDirectory("journey-tarball-"), `${name}.tgz`);
  await Bun.write(tarball, await fetch(document.versions[version]!.dist.tarball));
  const listing = Bun.spawnSync(["tar", "-tzf", tarball], { stdout: "pipe", stderr: "pipe" });
  expect(listing.exitCode).toBe(0);
  return listing.stdout.toString().split("\n").filter((line) => line !== "").map((line) => line.replace(/^package\//, ""));
}

/** An application's first script: the client launches the package's own double, handshakes, lists models, runs a prompt. */
const NATIVE_HOST_APP = `import { join } from "node:path";
import { minimalEnv, NativeHost } from "octet-native-host";
import { hostDoublePath, scenarioEnv } from "octet-native-host/testing";

const host = await NativeHost.launch({
  path: join(process.cwd(), "node_modules/.bin/octet-host-double"),
  cwd: process.cwd(),
  env: { ...minimalEnv(), ...scenarioEnv({ runs: [[{ defaultRun: true, answer: "Hello from the double" }]] }) },
});
console.log(\`hello protocol \${host.hello.protocolVersion}, octet \${host.hello.sdkVersion}\`);
console.log(\`double at \${hostDoublePath.split("/").slice(-3).join("/")}\`);
const models = await host.models({ offline: true });
console.log(\`models \${models.map((m) => m.id).join(" ")}\`);
const run = host.run({ workspace: process.cwd(), model: "gpt-5.6", prompt: "hi" });
let streamed = "";
for await (const event of run) if (event.type === "model_delta" && event.data.channel === "text") streamed += event.data.text;
const result = await run.result;
console.log(\`run \${result.status}: \${streamed}\`);
console.log(\`exit \${JSON.stringify(await host.shutdown())}\`);
`;

describe("octet-native-host, its own package, against the registry", () => {
  test("published beside the others: octet-extension's tarball holds no native-host code; octet-native-host's holds the client, the double and its bin", async () => {
    expect(published).toContain("octet-native-host@0.1.0");
    const runtime = await publishedFiles("octet-extension");
    expect(runtime).toContain("index.ts");
    expect(runtime.filter((f) => /(^|\/)(native-host|host-double|bin)\//.test(f))).toEqual([]);
    const nativeHost = await publishedFiles("octet-native-host");
    for (const file of ["package.json", "client/index.ts", "host-double/index.ts", "host-double/main.ts", "bin/octet-host-double"]) expect(nativeHost).toContain(file);
    const manifest = ((await (await fetch(`${registry.url}octet-native-host`)).json()) as { versions: Record<string, Record<string, unknown>> }).versions["0.1.0"]!;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.bin).toEqual({ "octet-host-double": "./bin/octet-host-double" });
  });

  test("with only Bun: bun add octet-native-host in an empty directory → a script drives the package's own octet-host-double", async () => {
    const bin = pathDir({ bun: BUN_BINARY });
    const home = temporaryDirectory("journey-home-");
    writeClientConfig(home, registry.url);
    const work = temporaryDirectory("journey-work-");
    const s = session(bin, home, work);
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "embedding-app", private: true, type: "module" }));
    await s.step("bun add octet-native-host");
    expect(existsSync(join(work, "node_modules/.bin/octet-host-double"))).toBe(true);
    expect(existsSync(join(work, "node_modules/octet-extension"))).toBe(false);
    writeFileSync(join(work, "app.ts"), NATIVE_HOST_APP);
    const output = await s.step("bun app.ts");
    expect(output).toContain("hello protocol 1, octet 0.8.0");
    expect(output).toContain("double at octet-native-host/bin/octet-host-double");
    expect(output).toContain("models claude-sonnet-4.5 gpt-5.6 gpt-audio-1.5");
    expect(output).toContain("run completed: Hello from the double");
    expect(output).toContain('exit {"code":0,"signal":null}');
  }, 120_000);
});
