import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { build, gen } from "../../codegen/index.ts";
import { TestHost, temporaryDirectory } from "octet-extension/testing";
import { project, removeProjects, REPO, WEATHER } from "./helpers.ts";

afterAll(removeProjects);

const SOURCE = `import { Extension } from "octet-extension";
import { type Handlers, register } from "./extension.gen.ts";

export const handlers = {
  tools: {
    get_forecast: (args) => \`Sunny in \${args.city} for \${args.days ?? 1} day(s)\`,
  },
  commands: {
    weather: (args) => ({ text: \`Weather for \${args[0] ?? "here"}\` }),
  },
} satisfies Handlers;

await register(new Extension(), handlers).run();
`;

describe("octet-extension build (standalone bundle)", () => {
  test("dist/NAME holds a tiny staged wrapper, the compiled extension and the host manifest; the archive and checksums match", async () => {
    const dir = project("weather", WEATHER);
    await gen(dir);
    writeFileSync(join(dir, "src/extension.ts"), SOURCE);
    const result = await build(dir, { requiresOctet: "=0.8.0" });
    const bundle = join(dir, "dist/weather");
    expect(readdirSync(bundle).sort()).toEqual(["extension", "extension.toml", "weather.bin"]);
    expect(statSync(join(bundle, "extension")).size).toBeLessThan(1024);
    expect(result.executableBytes).toBeGreaterThan(1024 * 1024);
    const manifest = readFileSync(join(bundle, "extension.toml"), "utf8");
    expect(manifest).toContain('requires_octet = "=0.8.0"');
    expect(manifest).toContain('command = "extension"');
    const listing = Bun.spawnSync(["tar", "-tzf", result.archive]).stdout.toString().trim().split("\n").sort();
    expect(listing).toEqual(["weather/", "weather/extension", "weather/extension.toml", "weather/weather.bin"]);
    const verify = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: join(dir, "dist"), stdout: "pipe" });
    expect(verify.exitCode).toBe(0);
    expect(verify.stdout.toString()).toContain("weather-0.1.0.tar.gz: OK");
  }, 120_000);

  test("the installed bundle runs as octet starts it: staged wrapper, cleared env without Bun, hostile .env and bunfig.toml in the workspace", async () => {
    const dir = project("weather", WEATHER);
    await gen(dir);
    writeFileSync(join(dir, "src/extension.ts"), SOURCE);
    await build(dir);
    const extensions = join(temporaryDirectory("octet-home-"), ".octet", "extensions");
    mkdirSync(extensions, { recursive: true });
    cpSync(join(dir, "dist/weather"), join(extensions, "weather"), { recursive: true });
    const workspace = temporaryDirectory("hostile-ws-");
    writeFileSync(join(workspace, ".env"), "NODE_OPTIONS=--require ./evil.js\nBUN_CONFIG_VERBOSE_FETCH=1\n");
    writeFileSync(join(workspace, "bunfig.toml"), '[run]\npreload = ["./evil.ts"]\n');
    writeFileSync(join(workspace, "evil.ts"), 'console.log("EVIL"); process.stdout.write("EVIL\\n");');
    writeFileSync(join(workspace, "package.json"), '{"name":"hostile","type":"commonjs"}');
    const host = await TestHost.start(join(extensions, "weather"), {
      workspace,
      env: { PATH: "/usr/bin:/bin", HOME: process.env.HOME },
      addBunToPath: false,
    });
    expect(Bun.which("bun", { PATH: "/usr/bin:/bin" })).toBeNull();
    await host.initialize();
    expect(await host.callTool("get_forecast", { city: "Oslo", days: 2 })).toEqual({ content: [{ type: "text", text: "Sunny in Oslo for 2 day(s)" }], is_error: false, metadata: {} });
    expect(await host.executeCommand("weather", ["Bergen"])).toEqual({ text: "Weather for Bergen", notifications: [], context: [] });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
    expect(host.stderr.join("\n")).not.toContain("EVIL");
  }, 120_000);

  test("octet-extension call prints the result of one call, and with --frames its transcript", async () => {
    const dir = project("weather", WEATHER);
    await gen(dir);
    writeFileSync(join(dir, "src/extension.ts"), SOURCE);
    const cli = (...args: string[]) => Bun.spawnSync([process.execPath, join(REPO, "codegen/cli.ts"), "call", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    const answer = cli("get_forecast", '{"city":"Rome"}');
    expect({ code: answer.exitCode, out: answer.stdout.toString() }).toEqual({ code: 0, out: "Sunny in Rome for 1 day(s)\n" });
    const command = cli("/weather", "Bergen");
    expect({ code: command.exitCode, out: command.stdout.toString() }).toEqual({ code: 0, out: "Weather for Bergen\n" });
    const run = cli("get_forecast", '{"city":"Rome"}', "--frames");
    const out = run.stdout.toString();
    expect(run.exitCode).toBe(0);
    expect(out).toContain('→ {"jsonrpc":"2.0","id":1,"method":"initialize"');
    expect(out).toContain('"text":"Sunny in Rome for 1 day(s)"');
    expect(out).toContain('← {"jsonrpc":"2.0","id":3,"result":{}}');
    const bad = Bun.spawnSync([process.execPath, join(REPO, "codegen/cli.ts"), "call", "nope"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout.toString()).toContain("unknown tool: nope");
  }, 60_000);
});

/** Every file under `dir` with its contents: what a victim directory must still hold afterwards. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const size = entry.isFile() ? statSync(path).size : 0;
    out[relative(dir, path)] = !entry.isFile() ? "(dir)" : size > 4096 ? `(${size} bytes)` : readFileSync(path, "utf8");
  }
  return out;
}

describe("octet-extension build never removes or writes through a symbolic link in the project", () => {
  /** Plant a link (as a cloned repository can) at `link` to `to`; returns the link's text. */
  const plant = (dir: string, link: string, to: string) => {
    mkdirSync(join(dir, link, ".."), { recursive: true });
    symlinkSync(to, join(dir, link));
    return to;
  };
  const CASES: [string, string, string[], (dir: string, victim: string) => string][] = [
    ["dist -> a directory outside (committed by the repository)", "dist", [], (dir, victim) => plant(dir, "dist", relative(dir, victim))],
    ["dist/weather -> a directory outside", "dist/weather", ["--skip-typecheck"], (dir, victim) => plant(dir, "dist/weather", join(victim, "weather"))],
    ["dist/weather-0.1.0.tar.gz -> a file outside", "dist/weather-0.1.0.tar.gz", ["--skip-typecheck"], (dir, victim) => plant(dir, "dist/weather-0.1.0.tar.gz", join(victim, "weather/keep.txt"))],
    ["node_modules/.cache -> a directory outside (where tsc keeps its build info)", "node_modules/.cache", [], (dir, victim) => plant(dir, "node_modules/.cache", victim)],
  ];

  test.each(CASES)("%s: exit 1 with one line before anything is removed; the victim is untouched", async (_name, link, flags, setup) => {
    const dir = project("weather", WEATHER);
    await gen(dir);
    writeFileSync(join(dir, "src/extension.ts"), SOURCE);
    const victim = temporaryDirectory("victim-");
    mkdirSync(join(victim, "weather"));
    writeFileSync(join(victim, "weather/keep.txt"), "precious\n");
    const to = setup(dir, victim);
    const before = snapshot(victim);
    const run = Bun.spawnSync([process.execPath, join(REPO, "codegen/cli.ts"), "build", "--requires-octet", "=0.8.0", ...flags], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    expect({ exitCode: run.exitCode, stderr: run.stderr.toString().trimEnd().split("\n"), victim: snapshot(victim) }).toEqual({
      exitCode: 1,
      stderr: [`error: ${join(dir, link)} is a symbolic link (to ${to}): build removes and writes only inside the project, never through a link — replace it with a real directory or delete it, then build again`],
      victim: before,
    });
    expect(existsSync(join(dir, "dist/weather/weather.bin"))).toBe(false);
  }, 120_000);
});
