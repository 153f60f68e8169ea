#!/usr/bin/env bun
/**
 * `octet-extension gen | check | build | call | conformance`: the author's command line.
 * Run from the extension directory (the one holding manifest.toml), or pass
 * `--dir DIR`. Errors are one line each; `--debug` adds the stack.
 */
import { resolve } from "node:path";
import { ToolError } from "./errors.ts";
import { escapeControls } from "./terminal-text.ts";

const USAGE = `usage: octet-extension <command> [--dir DIR] [--debug] ...
  gen [--check]              regenerate extension.toml, the typed module, validators and handler stubs
  check                      same as gen --check: exit 1 when generated files are stale
  build [--requires-octet R] [--skip-typecheck] [--target T,T,... [--bun-packages DIR | --offline]]
                             type-check and compile a standalone bundle into dist/NAME/ (+ .tar.gz, SHA256SUMS);
                             --target linux-x64,linux-arm64,darwin-x64,darwin-arm64,windows-x64 builds dist/TARGET/NAME/
                             each, with each target's Bun from @oven/bun-* (node_modules, npm-pack tarballs in DIR, or
                             fetched once with npm pack into ~/.cache/octet-extension/bun-targets; --offline never fetches)
  call TOOL [JSON] | call /COMMAND [ARGS...] [--scratch DIR] [--quiet] [--frames] [--record FILE]
                             start the extension under the test host, make one call and print its result (exit 1 when
                             it failed: then the frames are printed too, as with --frames); --scratch keeps the scratch
                             directory across calls, --quiet prints only the result's text on stdout
  call --status [SURFACE] | --context [PROMPT] | --hook NAME [JSON] | --render TOOL [JSON] | --shortcut NAME | --menu
                             ... or collect a status item, the context, run a hook, a renderer, a shortcut, the menu
  replay FILE                replay a recorded session against the current build; exit 1 on any difference
  inspect                    an interactive session with the extension under the strict test host
  dev [--into DIR] [--call TOOL [JSON]] [--once]
                             on every change: gen, type check, build, install into DIR/NAME (default ~/.octet/extensions)
  conformance [--tool NAME] [--args JSON] [--allow-unexercised] [-- CMD ARGS...]
                             probe the extension (or CMD, with DIR's extension.toml) as octet would: framing,
                             stdout purity, initialize, cancellation, 64 in flight, shutdown, EOF (exit 1 on a failure);
                             calls use arguments generated from the tool's schema (or --tool/--args), and a probe
                             whose calls were all refused before the handler ran fails as NOT EXERCISED
  import PATH [--force]      port the extension in PATH: write manifest.toml from its extension.toml and initialize
                             reply (a different manifest.toml only with --force, kept as manifest.toml.bak), then gen
`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith("--")) throw new ToolError(`${name} needs a value`);
  args.splice(i, 2);
  return value;
}

function flag(args: string[], name: string): boolean {
  const i = args.indexOf(name);
  if (i !== -1) args.splice(i, 1);
  return i !== -1;
}

async function main(args: string[], commandLine: string[] | undefined): Promise<number> {
  const command = args.shift();
  const dir = resolve(option(args, "--dir") ?? ".");
  const log = (message: string) => console.error(message);
  switch (command) {
    case "gen":
    case "check": {
      const check = flag(args, "--check") || command === "check";
      const { gen } = await import("./gen.ts");
      const report = await gen(dir, { check, log });
      if (check) {
        if (report.changed.length > 0) {
          console.error(`stale: ${report.changed.join(", ")} — run \`bun run gen\``);
          return 1;
        }
        if (report.orphans.length > 0) {
          console.error(`orphan handlers: ${report.orphans.join(", ")} — declare them in manifest.toml or delete them`);
          return 1;
        }
        console.error("generated files are up to date");
        return 0;
      }
      for (const stub of report.added) console.error(`added stub for ${stub}`);
      console.error(report.changed.length > 0 ? `wrote ${report.changed.join(", ")}` : "nothing to change");
      return 0;
    }
    case "build": {
      const { build } = await import("./build.ts");
      const requiresOctet = option(args, "--requires-octet");
      const target = option(args, "--target");
      const bunPackages = option(args, "--bun-packages") ?? process.env.OCTET_BUN_PACKAGES;
      const { parseTargets } = await import("./targets.ts");
      const result = await build(dir, {
        ...(requiresOctet === undefined ? {} : { requiresOctet }),
        ...(target === undefined ? {} : { targets: parseTargets(target) }),
        ...(bunPackages === undefined ? {} : { bunPackages: resolve(bunPackages) }),
        typecheck: !flag(args, "--skip-typecheck"),
        offline: flag(args, "--offline"),
        log,
      });
      if (result.targets.length === 0) console.error(`built ${result.bundleDir} (${(result.executableBytes / 1048576).toFixed(1)} MiB) and ${result.archive}`);
      for (const built of result.targets) console.error(`built ${built.target}: ${built.bundleDir} (${built.format}, ${(built.executableBytes / 1048576).toFixed(1)} MiB) and ${built.archive}`);
      return 0;
    }
    case "call": {
      const { call } = await import("./call.ts");
      const record = option(args, "--record");
      const scratch = option(args, "--scratch");
      return await call(dir, args, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
        quiet: flag(args, "--quiet"),
        frames: flag(args, "--frames"),
        ...(record === undefined ? {} : { record: resolve(record) }),
        ...(scratch === undefined ? {} : { scratch: resolve(scratch) }),
      });
    }
    case "dev": {
      const { dev } = await import("./dev.ts");
      const into = option(args, "--into");
      const once = flag(args, "--once");
      const callAt = args.indexOf("--call");
      const call = callAt === -1 ? undefined : { target: args[callAt + 1] ?? "", args: args[callAt + 2] ?? "" };
      if (call && !call.target) throw new ToolError("--call needs a tool name (or /command)");
      const stop = new AbortController();
      process.once("SIGINT", () => stop.abort());
      process.once("SIGTERM", () => stop.abort());
      return await dev(dir, { ...(into === undefined ? {} : { into }), ...(call ? { call } : {}), once, print: (line) => console.log(escapeControls(line)) }, stop.signal);
    }
    case "inspect": {
      const { inspect } = await import("./inspect.ts");
      return await inspect(dir);
    }
    case "replay": {
      const file = args[0];
      if (!file) throw new ToolError("usage: octet-extension replay FILE [--dir DIR]");
      const { TestHost, TranscriptError } = await import("octet-extension/testing");
      const { differences, frames, violations } = await TestHost.replay(resolve(file), dir).catch((error: unknown) => {
        throw error instanceof TranscriptError ? new ToolError(error.message) : error;
      });
      for (const difference of differences) {
        console.log(escapeControls(`frame ${difference.index + 1} of the extension differs:\n  recorded: ${difference.expected ?? "(nothing)"}\n  replayed: ${difference.actual ?? "(nothing)"}`));
      }
      for (const violation of violations) console.log(escapeControls(`octet would kill the extension: ${violation}`));
      if (differences.length === 0 && violations.length === 0) console.log(`replayed ${frames} extension frames: identical`);
      return differences.length > 0 || violations.length > 0 ? 1 : 0;
    }
    case "conformance": {
      const { conformance } = await import("./conformance.ts");
      const tool = option(args, "--tool");
      const callArgs = option(args, "--args");
      const allowUnexercised = flag(args, "--allow-unexercised");
      return await conformance(dir, commandLine, (line) => console.log(line), { ...(tool === undefined ? {} : { tool }), ...(callArgs === undefined ? {} : { args: callArgs }), allowUnexercised });
    }
    case "import": {
      const from = args.find((arg) => !arg.startsWith("--"));
      if (!from) throw new ToolError("usage: octet-extension import PATH [--force] [--dir DIR]: PATH is the directory of the extension to port");
      const { importExtension } = await import("./import.ts");
      return await importExtension(from, dir, { force: flag(args, "--force"), print: (line) => console.log(line) });
    }
    default:
      console.error(USAGE);
      return command === undefined || command === "help" || command === "--help" ? 0 : 2;
  }
}

const argv = process.argv.slice(2);
// Everything after `--` is a command line (conformance), never options of ours.
const separator = argv.indexOf("--");
const commandLine = separator === -1 ? undefined : argv.splice(separator).slice(1);
const debug = flag(argv, "--debug");
try {
  process.exit(await main(argv, commandLine));
} catch (error) {
  // A message may quote a project's file or an extension: its controls are shown, not performed.
  const message = escapeControls(error instanceof Error ? error.message : String(error));
  if (error instanceof ToolError) console.error(`error: ${message}`);
  else console.error(`error: ${message.split("\n")[0]} (an unexpected failure inside octet-extension; run again with --debug for the stack)`);
  if (debug && error instanceof Error && error.stack) console.error(escapeControls(error.stack));
  process.exit(1);
}
