/**
 * `octet-extension dev`, end to end: the loop builds and installs a project
 * into an extensions folder, reinstalls after an edit (the installed build
 * answers with the new code), and after an edit that does not type-check
 * shows the error and leaves the previous install working.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";
import { project, removeProjects } from "../codegen/helpers.ts";

afterAll(removeProjects);

const REPO = new URL("../../", import.meta.url).pathname;
const MANIFEST = `name = "greeter"\nversion = "0.1.0"\napi_version = "0.4"\n\n[tools.greet]\ndescription = "Greet"\nparameters = { type = "object", properties = { name = { type = "string" } } }\n`;

/** Lines the dev process prints, and a way to wait for one. */
function startDev(dir: string, into: string) {
  const proc = Bun.spawn([process.execPath, join(REPO, "codegen/cli.ts"), "dev", "--dir", dir, "--into", into, "--call", "greet", '{"name":"Ada"}'], { stdout: "pipe", stderr: "pipe" });
  const lines: string[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of proc.stdout) {
      const parts = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = parts.pop()!;
      lines.push(...parts);
    }
  })();
  const waitFor = async (pattern: RegExp, after = 0, timeoutMs = 60_000) => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = lines.slice(after).find((l) => pattern.test(l));
      if (found) return { line: found, index: lines.indexOf(found, after) };
      if (performance.now() > deadline) throw new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join("\n")}`);
      await Bun.sleep(50);
    }
  };
  return { proc, lines, waitFor };
}

async function callInstalled(dir: string): Promise<string> {
  const host = await TestHost.start(dir, { addBunToPath: false, env: { PATH: "/nonexistent" } });
  await host.initialize();
  const result = (await host.callTool("greet", { name: "Ada" })) as { content: { text: string }[] };
  await host.shutdown();
  return result.content[0]!.text;
}

test("dev: build and install, reinstall after an edit, keep the previous install when an edit does not type-check", async () => {
  const dir = project("greeter", MANIFEST);
  const gen = Bun.spawnSync([process.execPath, join(REPO, "codegen/cli.ts"), "gen", "--dir", dir]);
  expect(gen.exitCode).toBe(0);
  const source = join(dir, "src/extension.ts");
  const stub = readFileSync(source, "utf8");
  const write = (greeting: string) => writeFileSync(source, stub.replace(/greet: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, `greet: (args) => \`${greeting}, \${args.name ?? "you"}!\`,`));
  write("Hello");
  const into = temporaryDirectory("dev-extensions-");
  const dev = startDev(dir, into);
  try {
    const first = await dev.waitFor(/^\[dev\] installed /);
    expect(dev.lines.some((l) => l.startsWith("[dev] gen done in "))).toBe(true);
    expect(dev.lines.some((l) => l.startsWith("[dev] type check and build done in "))).toBe(true);
    await dev.waitFor(/^\[dev\] call greet: /, first.index);
    expect(dev.lines.find((l) => l.startsWith("[dev] call greet: "))).toContain("Hello, Ada!");
    const installed = join(into, "greeter");
    expect(existsSync(join(installed, "extension.toml"))).toBe(true);
    expect(await callInstalled(installed)).toBe("Hello, Ada!");
    await dev.waitFor(/^\[dev\] watching /);

    const edited = dev.lines.length;
    write("Welcome");
    const second = await dev.waitFor(/^\[dev\] installed /, edited);
    const ms = Number(/in (\d+) ms$/.exec(second.line)![1]);
    expect(ms).toBeGreaterThan(0);
    expect(await callInstalled(installed)).toBe("Welcome, Ada!");
    // Nothing but the installed bundle is left beside it.
    expect(readdirSync(into)).toEqual(["greeter"]);

    const broken = dev.lines.length;
    writeFileSync(source, readFileSync(source, "utf8").replace("greet: (args) =>", "greet: (args: { name: number }) =>"));
    await dev.waitFor(/^\[dev\] failed: /, broken);
    await dev.waitFor(/^\[dev\] the previous install is unchanged$/, broken);
    expect(await callInstalled(installed)).toBe("Welcome, Ada!");
  } finally {
    dev.proc.kill("SIGINT");
    await dev.proc.exited;
  }
}, 180_000);

test("dev refuses a dist/ that is a symbolic link out of the project: one line, exit 1, the victim survives, nothing is installed", () => {
  const dir = project("greeter", MANIFEST);
  const victim = temporaryDirectory("victim-");
  mkdirSync(join(victim, "greeter"));
  writeFileSync(join(victim, "greeter", "keep.txt"), "precious\n");
  symlinkSync(relative(dir, victim), join(dir, "dist"));
  const into = temporaryDirectory("dev-extensions-");
  const run = Bun.spawnSync([process.execPath, join(REPO, "codegen/cli.ts"), "dev", "--dir", dir, "--into", into, "--once"], { stdout: "pipe", stderr: "pipe" });
  const failed = run.stdout.toString().split("\n").filter((line) => line.startsWith("[dev] failed"));
  expect({ exitCode: run.exitCode, failed, victim: readdirSync(join(victim, "greeter")), installed: readdirSync(into) }).toEqual({
    exitCode: 1,
    failed: [`[dev] failed: ${join(dir, "dist")} is a symbolic link (to ${relative(dir, victim)}): build removes and writes only inside the project, never through a link — replace it with a real directory or delete it, then build again`],
    victim: ["keep.txt"],
    installed: [],
  });
  expect(readFileSync(join(victim, "greeter", "keep.txt"), "utf8")).toBe("precious\n");
}, 120_000);
