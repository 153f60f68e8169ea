/**
 * `octet-extension import PATH [--force]`: port an existing extension into
 * this project (docs/tools.md, "Porting an extension"). Its `extension.toml`
 * gives names, capabilities, hooks, UI surfaces, flags, shortcuts and runtime
 * settings; its own initialize reply, from one start under the strict test
 * host as octet would start it, gives each tool's and command's description
 * and schema. manifest.toml is written (never over a different one without
 * `--force`, which keeps that one as manifest.toml.bak), then gen writes the
 * stubs. What cannot be mapped is printed one line each.
 */
import { isObject, type JsonRecord } from "octet-extension/validation";
import { existsSync, readFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { HostManifestError, loadManifest, TestHost } from "octet-extension/testing";
import { ToolError } from "./errors.ts";
import { readIfExists, writeAtomic } from "./files.ts";
import { gen, devWrapper } from "./gen.ts";
import { DEV_ENTRYPOINT } from "./host-manifest.ts";
import { mapExtension } from "./import-mapping.ts";
import { renderImportedManifest } from "./import-render.ts";
import { realPath } from "./links.ts";
import { loadAuthorManifest, SOURCE_KEYS } from "./manifest.ts";
import { escapeControls } from "./terminal-text.ts";

/** How long the extension gets to answer initialize. */
const INITIALIZE_TIMEOUT_MS = 20_000;
const SCHEMA_DIRECTIVE = /^#:schema \S+$/;

export interface ImportOptions {
  /** Replace files that differ, keeping each as `FILE.bak`. */
  force?: boolean;
  /** The report, one line at a time (text from the extension already escaped). */
  print: (line: string) => void;
}

/** Import the extension in `from` into the project `dir`. Returns the exit status. */
export async function importExtension(from: string, dir: string, options: ImportOptions): Promise<number> {
  const print = (line: string) => options.print(escapeControls(line));
  const source = resolve(from);
  if ((realPath(source) ?? source) === (realPath(dir) ?? dir)) {
    throw new ToolError(`${dir} is this project: run import inside a new project (bun create octet-extension NAME) and name the old extension's directory`);
  }
  if (!existsSync(join(source, "extension.toml"))) throw new ToolError(`${source} has no extension.toml: name the directory of the extension to import`);
  let host;
  try {
    host = loadManifest(source);
  } catch (error) {
    if (error instanceof HostManifestError) throw new ToolError(`${error.message} (octet would not load it either: fix extension.toml first)`);
    throw error;
  }
  const raw = Bun.TOML.parse(readFileSync(host.path, "utf8")) as JsonRecord;
  const reply = await initializeOnce(source, print);
  const project = projectSettings(dir);
  const mapping = mapExtension({ raw, manifest: host, reply }, { source: project.source });
  const header = [
    ...(project.directive ? [project.directive] : []),
    `# Imported by \`octet-extension import\` from ${host.name} ${host.version} (its extension.toml and initialize reply); edit it freely.`,
    "# gen writes extension.toml from it; the entry point is the kit's own (docs/tools.md, \"Porting an extension\").",
  ];
  const text = renderImportedManifest(mapping.manifest, header);
  if (!Bun.deepEquals(Bun.TOML.parse(text), mapping.manifest)) throw new Error("the imported manifest.toml does not read back as the tables it was made from");

  const writes = [{ path: join(dir, "manifest.toml"), text, what: "manifest" }, ...mapping.schemaFiles.map((f) => ({ path: join(dir, f.path), text: f.text, what: "schema" }))];
  const backups = refuseOrBackUp(writes, options.force === true);
  for (const backup of backups) writeAtomic(backup.path, backup.text);
  for (const write of writes) writeAtomic(write.path, write.text);

  print(`imported ${host.name} ${host.version} (API ${host.api_version}): ${count(host.contributes.tools.length, "tool")}, ${count(host.contributes.commands.length, "command")}, ${count(host.contributes.flags.length, "flag")}, ${count(host.contributes.shortcuts.length, "shortcut")}`);
  print(`wrote manifest.toml${backups.length > 0 ? ` (the previous files are kept as ${backups.map((b) => relative(dir, b.path)).join(", ")})` : ""}`);
  for (const file of mapping.schemaFiles) print(`wrote ${file.path}: ${file.key} holds ${file.why}, which TOML cannot write`);
  for (const line of mapping.notMapped) print(line);

  let report;
  try {
    report = await gen(dir, { log: print });
  } catch (error) {
    if (error instanceof ToolError) throw new ToolError(`manifest.toml is imported, but gen refuses it: ${error.message}`);
    throw error;
  }
  for (const line of rewrittenSchemas(dir, reply)) print(line);
  writeDevEntryPoint(dir);
  for (const stub of report.added) print(`added stub for ${stub}`);
  print(report.changed.length > 0 ? `wrote ${report.changed.join(", ")}` : "nothing else to change");
  return 0;
}

/** Start the extension once as octet would, initialize it and shut it down; its reply is data. */
async function initializeOnce(source: string, print: (line: string) => void): Promise<JsonRecord> {
  const host = await TestHost.start(source, { requestTimeoutMs: INITIALIZE_TIMEOUT_MS });
  try {
    const reply = await host.initialize();
    try {
      await host.shutdown();
    } catch (error) {
      print(`warning: ${firstLine(error)} (the import uses its initialize reply all the same)`);
    }
    return reply;
  } catch (error) {
    await Promise.race([host.exited, Bun.sleep(1_000)]);
    for (const line of host.stderr.slice(-20)) if (line.trim() !== "") console.error(escapeControls(`stderr: ${line}`));
    throw new ToolError(`${source}: octet would not load it: ${firstLine(error).replace(/^octet would kill the extension: /, "")}`);
  } finally {
    host.kill();
  }
}

/** The project's current manifest.toml: its `#:schema` line and `[source]` table, which the import keeps. */
function projectSettings(dir: string): { directive?: string; source?: JsonRecord } {
  const current = readIfExists(join(dir, "manifest.toml"));
  if (current === undefined) return {};
  const settings: { directive?: string; source?: JsonRecord } = {};
  const first = current.split("\n", 1)[0]!.trimEnd();
  if (SCHEMA_DIRECTIVE.test(first)) settings.directive = first;
  try {
    const source = (Bun.TOML.parse(current) as JsonRecord).source;
    if (isObject(source)) {
      settings.source = Object.fromEntries(Object.entries(source).filter(([key, value]) => SOURCE_KEYS.includes(key) && typeof value === "string"));
    }
  } catch {
    // A manifest.toml that does not parse has nothing to keep; refuseOrBackUp still protects it.
  }
  return settings;
}

/**
 * Refuse (one line) when a file to write exists with other contents, unless
 * `force`: then each such file is backed up as `FILE.bak`, and a backup that
 * exists with other contents is refused in turn. Nothing is written here.
 */
function refuseOrBackUp(writes: { path: string; text: string; what: string }[], force: boolean): { path: string; text: string }[] {
  const backups: { path: string; text: string }[] = [];
  for (const { path, text, what } of writes) {
    const current = readIfExists(path);
    if (current === undefined || current === text) continue;
    const backup = `${path}.bak`;
    if (!force) throw new ToolError(`${path} exists and differs from the imported ${what}: pass --force to replace it (the current one is kept as ${basename(backup)})`);
    const previous = readIfExists(backup);
    if (previous !== undefined && previous !== current) {
      throw new ToolError(`${backup} exists and differs from ${basename(path)}: move it away, then import again (--force keeps the current ${basename(path)} there)`);
    }
    backups.push({ path: backup, text: current });
  }
  return backups;
}

/** A line for each tool whose schema gen sends otherwise than the original did (it closes objects that state no additionalProperties). */
function rewrittenSchemas(dir: string, reply: JsonRecord): string[] {
  const original = new Map(((reply.tools ?? []) as JsonRecord[]).map((tool) => [String(tool.name), (tool.parameters as JsonRecord | undefined) ?? { type: "object" }]));
  return loadAuthorManifest(dir)
    .tools.filter((tool) => original.has(tool.name) && !Bun.deepEquals(tool.parameters, original.get(tool.name), true))
    .map((tool) => `not mapped: tools.${tool.name}.parameters as sent: gen closes objects that state no additionalProperties (docs/manifest.md); the original accepted undeclared keys: add additionalProperties = true where it must`);
}

/** gen writes the dev wrapper only without [entrypoint]; an import that keeps the env writes one that names it. */
function writeDevEntryPoint(dir: string): void {
  const manifest = loadAuthorManifest(dir);
  if (!manifest.entrypoint) return;
  const wrapper = join(dir, DEV_ENTRYPOINT.command);
  if (readIfExists(wrapper) === undefined) writeAtomic(wrapper, devWrapper(relative(dir, manifest.sourceFile)), 0o755);
  const bunfig = join(dir, "bunfig.toml");
  if (readIfExists(bunfig) === undefined) writeAtomic(bunfig, "# Read by the dev entry point instead of the workspace's bunfig.toml.\n");
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}
