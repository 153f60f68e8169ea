#!/usr/bin/env bun
/**
 * `octet-extension gen | check | build | call`: the author's command line.
 * Run from the extension directory (the one holding manifest.toml), or pass
 * `--dir DIR`.
 */
import { resolve } from "node:path";
import { ManifestError } from "./manifest.ts";
import { SourceError } from "./source.ts";

const USAGE = `usage: octet-extension <command> [--dir DIR] ...
  gen [--check]              regenerate extension.toml, the typed module and handler stubs
  check                      same as gen --check: exit 1 when generated files are stale
  build [--requires-octet R] compile a standalone bundle into dist/NAME/ (+ .tar.gz, SHA256SUMS)
  call TOOL [JSON]           start the extension under the test host and call a tool
  call /COMMAND [ARGS...]    ... or run a command
`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
}

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  const command = args.shift();
  const dir = resolve(option(args, "--dir") ?? ".");
  const log = (message: string) => console.error(message);
  switch (command) {
    case "gen":
    case "check": {
      const check = command === "check" || args.includes("--check");
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
      const result = await build(dir, { requiresOctet: option(args, "--requires-octet"), log });
      console.error(`built ${result.bundleDir} (${(result.executableBytes / 1048576).toFixed(1)} MiB) and ${result.archive}`);
      return 0;
    }
    case "call": {
      const { call } = await import("./call.ts");
      return await call(dir, args, (line) => console.log(line));
    }
    default:
      console.error(USAGE);
      return command === undefined || command === "help" || command === "--help" ? 0 : 2;
  }
}

try {
  process.exit(await main(process.argv.slice(2)));
} catch (error) {
  if (error instanceof ManifestError || error instanceof SourceError) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
