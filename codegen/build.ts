import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { writeAtomic } from "./files.ts";
import { gen } from "./gen.ts";
import { DEV_ENTRYPOINT, renderHostManifest } from "./host-manifest.ts";
import { loadAuthorManifest } from "./manifest.ts";

export interface BuildResult {
  bundleDir: string;
  archive: string;
  executableBytes: number;
}

/**
 * `octet-extension build`: a bundle octet can load with no Bun or Node
 * installed. octet copies only `[entrypoint].command` into a private
 * directory (≤ 64 MiB) and runs it with the workspace as cwd, while a compiled
 * Bun executable is ~100 MiB. So the entry point is a tiny `sh` wrapper that
 * execs the compiled executable from `OCTET_EXTENSION_DIR`; the executable is
 * built never to read `.env` or `bunfig.toml` from the workspace. Of the
 * author's `[entrypoint]` only `env` is kept (command and args describe the
 * development entry point).
 *
 * dist/NAME/{extension.toml, extension, NAME.bin}, dist/NAME-VERSION.tar.gz
 * (one root folder NAME) and dist/SHA256SUMS.
 */
export async function build(dir: string, options: { requiresOctet?: string; log?: (message: string) => void; bun?: string } = {}): Promise<BuildResult> {
  const log = options.log ?? (() => {});
  const stale = await gen(dir, { check: true });
  if (stale.changed.length > 0) throw new Error(`generated files are stale (${stale.changed.join(", ")}): run \`bun run gen\` first`);
  const manifest = loadAuthorManifest(dir);
  if (options.requiresOctet !== undefined) manifest.requiresOctet = options.requiresOctet;
  const dist = join(manifest.dir, "dist");
  const bundleDir = join(dist, manifest.name);
  rmSync(bundleDir, { recursive: true, force: true });
  mkdirSync(bundleDir, { recursive: true });
  const executable = join(bundleDir, `${manifest.name}.bin`);
  const compile = (bytecode: boolean) => compileStandalone(manifest.sourceFile, executable, { bytecode, cwd: manifest.dir, bun: options.bun });
  log(`compiling ${relative(manifest.dir, manifest.sourceFile)} (bytecode)`);
  let built = compile(true);
  if (built.exitCode !== 0) {
    log("bytecode compilation failed; compiling without bytecode");
    built = compile(false);
  }
  if (built.exitCode !== 0) throw new Error(`bun build --compile failed:\n${built.stderr.toString()}`);
  const wrapper = join(bundleDir, "extension");
  writeAtomic(
    wrapper,
    [
      "#!/bin/sh",
      "# octet stages only this file; the compiled extension stays in the extension directory.",
      `exec "$OCTET_EXTENSION_DIR/${manifest.name}.bin" "$@"`,
      "",
    ].join("\n"),
    0o755,
  );
  writeAtomic(join(bundleDir, "extension.toml"), renderHostManifest(manifest, { ...DEV_ENTRYPOINT, env: manifest.entrypoint?.env ?? {} }));
  const archive = join(dist, `${manifest.name}-${manifest.version}.tar.gz`);
  log(`packing ${relative(manifest.dir, archive)}`);
  const packed = Bun.spawnSync(["tar", "-czf", archive, "-C", dist, manifest.name], { stdout: "pipe", stderr: "pipe" });
  if (packed.exitCode !== 0) throw new Error(`tar failed: ${packed.stderr.toString()}`);
  const sums = [archive, ...readdirSync(bundleDir).sort().map((f) => join(bundleDir, f))].map(
    (file) => `${new Bun.CryptoHasher("sha256").update(readFileSync(file)).digest("hex")}  ${relative(dist, file)}`,
  );
  writeAtomic(join(dist, "SHA256SUMS"), sums.join("\n") + "\n");
  return { bundleDir, archive, executableBytes: statSync(executable).size };
}

/**
 * `bun build --compile` as shipped: minified ESM that never reads the
 * workspace's `.env` or `bunfig.toml` at run time (also used by the benchmark).
 */
export function compileStandalone(entry: string, outfile: string, options: { bytecode: boolean; cwd?: string; bun?: string }) {
  const bytecode = options.bytecode ? ["--bytecode"] : [];
  const flags = ["--format=esm", "--minify", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"];
  return Bun.spawnSync([options.bun ?? process.execPath, "build", "--compile", ...bytecode, ...flags, entry, "--outfile", outfile], {
    cwd: options.cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
}
