import { basename, join, relative } from "node:path";
import { readIfExists, writeAtomic } from "./files.ts";
import { DEV_ENTRYPOINT, renderHostManifest } from "./host-manifest.ts";
import { loadAuthorManifest } from "./manifest.ts";
import { inExtensionDir } from "./shell.ts";
import { protocolExec } from "./unix-launcher.ts";
import { freshSource } from "./source.ts";
import { renderGeneratedModule } from "./types.ts";
import { renderValidators } from "./validators.ts";

/** What one `gen` run did (or, with `check`, would do). */
export interface GenReport {
  /** Files written (or stale, with `check`), relative to the extension directory. */
  changed: string[];
  /** Stubs added to the source file. */
  added: string[];
  /** Handlers in the source file with no declaration (reported, never deleted). */
  orphans: string[];
}

/**
 * `octet-extension gen`: manifest.toml → extension.toml, the generated module,
 * stubs in the author's source file, and the dev entry point. Every output is
 * computed first; with `check` nothing is written. A source file that does not
 * parse stops the run before anything is written.
 */
export async function gen(dir: string, options: { check?: boolean; log?: (message: string) => void } = {}): Promise<GenReport> {
  const log = options.log ?? (() => {});
  const manifest = loadAuthorManifest(dir);
  const outputs = new Map<string, { text: string; mode?: number }>();
  outputs.set(join(manifest.dir, "extension.toml"), { text: renderHostManifest(manifest) });
  outputs.set(manifest.generatedFile, { text: await renderGeneratedModule(manifest, manifest.tools.length > 32 ? log : undefined) });
  outputs.set(manifest.validatorsFile, { text: renderValidators(manifest) });
  const current = readIfExists(manifest.sourceFile);
  // ts-morph (~0.5 s to load) only when there is an author's file to edit.
  const update = current === undefined ? freshSource(manifest) : (await import("./source-edit.ts")).updateSource(manifest, current);
  if (update.text !== undefined) outputs.set(manifest.sourceFile, { text: update.text });
  if (!manifest.entrypoint) {
    const wrapper = join(manifest.dir, DEV_ENTRYPOINT.command);
    if (readIfExists(wrapper) === undefined) outputs.set(wrapper, { text: devWrapper(relative(manifest.dir, manifest.sourceFile)), mode: 0o755 });
    const bunfig = join(manifest.dir, "bunfig.toml");
    if (readIfExists(bunfig) === undefined) outputs.set(bunfig, { text: "# Read by the dev entry point instead of the workspace's bunfig.toml.\n" });
  }
  if (basename(manifest.dir) !== manifest.name) {
    log(`warning: the project directory is "${basename(manifest.dir)}" but name = "${manifest.name}": octet loads an extension only from a directory named like it (bun run build writes dist/${manifest.name}/)`);
  }
  const changed: string[] = [];
  for (const [path, { text, mode }] of outputs) {
    if (readIfExists(path) === text) continue;
    changed.push(relative(manifest.dir, path));
    if (!options.check) writeAtomic(path, text, mode);
  }
  for (const orphan of update.orphans) {
    log(`handler \`${orphan}\` in ${relative(manifest.dir, manifest.sourceFile)} has no declaration in manifest.toml: declare it or delete the handler`);
  }
  return { changed, added: update.added, orphans: update.orphans };
}

/**
 * The development entry point: octet stages only this file, so it finds the
 * module through OCTET_EXTENSION_DIR and keeps the workspace's .env and
 * bunfig.toml out. `octet-extension build` replaces it with a compiled bundle.
 * Like build's launcher it hands Bun the real stdout on fd 3 and fd 1 is
 * stderr (protocolExec). Every literal is quoted for the shell (shell.ts).
 */
export function devWrapper(source: string): string {
  return [
    "#!/bin/sh",
    "# Development entry point written by `octet-extension gen`; `bun run build` ships a compiled bundle instead.",
    "# Bun writes frames to fd 3, the real stdout; its fd 1 is stderr from the start.",
    protocolExec(`bun --no-env-file --config=${inExtensionDir("bunfig.toml")} ${inExtensionDir(source)} "$@"`),
    "",
  ].join("\n");
}
