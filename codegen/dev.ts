/**
 * `octet-extension dev [--into DIR] [--call TOOL [JSON]] [--once]`: the edit
 * loop (docs/tools.md "Dev loop"). On start and after every change to
 * manifest.toml or a source file it runs gen, the type check and the build,
 * then installs the bundle into `DIR/NAME` (default `~/.octet/extensions`):
 * copied beside it first, then swapped in by renames, so a running octet
 * (which polls its extension roots and reloads at idle) sees either the old
 * build or the new one. A failing step is shown and the previous install is
 * left alone. With `--call` the installed build answers one call under the
 * strict test host after each install.
 */
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, watch } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { TestHost } from "octet-extension/testing";
import { build } from "./build.ts";
import { gen } from "./gen.ts";
import { loadAuthorManifest } from "./manifest.ts";

export interface DevOptions {
  /** Extensions folder to install into (default `~/.octet/extensions`). */
  into?: string;
  /** After each install: call this tool (or `/command`) with these JSON arguments. */
  call?: { target: string; args: string };
  /** Build and install once, then return (no watching). */
  once?: boolean;
  print: (line: string) => void;
}

/** Run the loop; resolves when `signal` aborts (or after one pass with `once`). Returns the last pass's status. */
export async function dev(dir: string, options: DevOptions, signal?: AbortSignal): Promise<number> {
  const root = resolve(dir);
  const into = resolve(options.into ?? join(homedir(), ".octet", "extensions"));
  const say = (message: string) => options.print(`[dev] ${message}`);
  let status = await pass(root, into, options, say);
  if (options.once) return status;
  say(`watching manifest.toml and the sources in ${root} (Ctrl-C to stop)`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const changed = (file: string | null) => {
    if (file && (/(^|\/)(dist|node_modules)(\/|$)/.test(file) || file.endsWith(".gen.ts") || file === "extension.toml" || file === "extension")) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(async () => {
        say(`change in ${file ?? "the project"}`);
        status = await pass(root, into, options, say);
      });
    }, 150);
  };
  // The directory, not the file: editors often replace manifest.toml rather than write into it.
  const watchers = [watch(root, (_event, file) => file === "manifest.toml" && changed("manifest.toml"))];
  const sources = join(root, "src");
  if (existsSync(sources)) watchers.push(watch(sources, { recursive: true }, (_event, file) => changed(file ? `src/${file}` : null)));
  await new Promise<void>((done) => {
    if (signal?.aborted) return done();
    signal?.addEventListener("abort", () => done(), { once: true });
  });
  for (const watcher of watchers) watcher.close();
  clearTimeout(timer);
  await running;
  return status;
}

/** gen → type check → build → install (→ call). 0 when installed. */
async function pass(root: string, into: string, options: DevOptions, say: (message: string) => void): Promise<number> {
  const started = performance.now();
  const step = (name: string) => {
    const t = performance.now();
    say(`${name}…`);
    return () => say(`${name} done in ${Math.round(performance.now() - t)} ms`);
  };
  try {
    let done = step("gen");
    const report = await gen(root);
    for (const stub of report.added) say(`added stub for ${stub}`);
    done();
    done = step("type check and build");
    // No archive or checksums: the loop installs the folder.
    const result = await build(root, { log: (line) => say(`  ${line}`), archive: false });
    done();
    const name = loadAuthorManifest(root).name;
    done = step(`install into ${into}`);
    install(result.bundleDir, into, name);
    done();
    say(`installed ${join(into, name)} in ${Math.round(performance.now() - started)} ms`);
    if (options.call) await replayCall(join(into, name), options.call, say);
    return 0;
  } catch (error) {
    say(`failed: ${(error as Error).message.split("\n").join("\n      ")}`);
    say("the previous install is unchanged");
    return 1;
  }
}

/** Copy the bundle beside the target, then swap it in with renames; the old one is removed last. */
function install(bundleDir: string, into: string, name: string): void {
  mkdirSync(into, { recursive: true });
  const target = join(into, name);
  const stamp = `${process.pid}-${Date.now()}`;
  const incoming = join(into, `.${name}.incoming-${stamp}`);
  const outgoing = join(into, `.${name}.outgoing-${stamp}`);
  cpSync(bundleDir, incoming, { recursive: true });
  const had = existsSync(target);
  if (had) renameSync(target, outgoing);
  try {
    renameSync(incoming, target);
  } catch (error) {
    if (had) renameSync(outgoing, target);
    rmSync(incoming, { recursive: true, force: true });
    throw error;
  }
  if (had) rmSync(outgoing, { recursive: true, force: true });
}

async function replayCall(installed: string, call: { target: string; args: string }, say: (message: string) => void): Promise<void> {
  const host = await TestHost.start(installed, { addBunToPath: false });
  try {
    await host.initialize();
    const result = call.target.startsWith("/")
      ? await host.executeCommand(call.target.slice(1), call.args ? call.args.split(" ") : [])
      : await host.callTool(call.target, JSON.parse(call.args || "{}"));
    say(`call ${call.target}: ${JSON.stringify(result)}`);
    await host.shutdown();
  } catch (error) {
    say(`call ${call.target} failed: ${(error as Error).message}`);
  } finally {
    host.kill();
  }
  for (const violation of host.violations) say(`octet would kill the extension: ${violation}`);
}
