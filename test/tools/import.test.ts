/**
 * `octet-extension import PATH` (issue 25, "Porting"): run inside a new
 * project, it writes the manifest.toml of an existing extension from its
 * extension.toml and its own initialize reply (the extension is started once
 * under the strict test host), then gen writes the stubs. For every example
 * and a legacy Python extension: the generated extension.toml equals the
 * original modulo key order (the entry point becomes the kit's wrapper, its
 * env kept), the imported schemas equal the initialize reply's, and what
 * cannot be mapped is named one line each.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";
import { loadAuthorManifest } from "../../codegen/manifest.ts";
import { scaffold } from "../../templates/create-octet-extension/scaffold.js";

const REPO = new URL("../../", import.meta.url).pathname;
const CLI = join(REPO, "codegen/cli.ts");
const PYTHON = join(REPO, "test/fixtures/python-legacy");
const EXAMPLES = readdirSync(join(REPO, "examples"))
  .filter((name) => existsSync(join(REPO, "examples", name, "extension.toml")))
  .sort();

type Obj = Record<string, unknown>;

function cli(cwd: string, ...args: string[]): { code: number; out: string[]; err: string[] } {
  const run = Bun.spawnSync([process.execPath, CLI, ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  const lines = (text: string) => text.trimEnd().split("\n").filter((line) => line !== "");
  return { code: run.exitCode ?? -1, out: lines(run.stdout.toString()), err: lines(run.stderr.toString()) };
}

/** Link octet-extension and @types/bun, as `bun install` would. */
function linkModules(dir: string): void {
  mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
  symlinkSync(join(REPO, "src"), join(dir, "node_modules", "octet-extension"));
  symlinkSync(join(REPO, "node_modules", "@types", "bun"), join(dir, "node_modules", "@types", "bun"));
}

/** A new project made by the initializer (`bun create octet-extension NAME`). */
function newScaffold(name: string): string {
  const dir = scaffold(join(temporaryDirectory("octet-import-"), name));
  linkModules(dir);
  return dir;
}

/** A bare project directory: a tsconfig.json and the linked modules, no manifest.toml yet. */
function bareProject(name: string): string {
  const dir = join(temporaryDirectory("octet-import-"), name);
  mkdirSync(dir);
  linkModules(dir);
  return dir;
}

const toml = (path: string) => Bun.TOML.parse(readFileSync(path, "utf8")) as Obj;

/** The original extension.toml as the import documents it: the kit's `extension` wrapper runs the port, env kept. */
function expectedHostManifest(original: Obj): Obj {
  const { args: _args, command: _command, ...rest } = original.entrypoint as Obj;
  return { ...original, entrypoint: { ...rest, command: "extension" } };
}

async function initializeReply(dir: string): Promise<Obj> {
  const host = await TestHost.start(dir);
  try {
    const reply = await host.initialize();
    await host.shutdown();
    return reply;
  } finally {
    host.kill();
  }
}

/** The tools and commands of the reply as the SDK defines them (`parameters` defaults to an object schema; an API 0.3 reply has no commands). */
function replyDeclarations(reply: Obj): Obj {
  return {
    tools: byName((reply.tools as Obj[]).map((t) => ({ name: t.name, description: t.description, parameters: t.parameters ?? { type: "object" }, output_schema: t.output_schema }))),
    commands: byName(((reply.commands as Obj[] | undefined) ?? []).map((c) => ({ name: c.name, description: c.description, usage: c.usage ?? undefined }))),
  };
}

/** The declarations as manifest.toml holds them (a schema TOML cannot hold is a .json file beside it). */
function importedDeclarations(dir: string): Obj {
  const manifest = toml(join(dir, "manifest.toml"));
  const schema = (value: unknown) => (typeof value === "string" ? JSON.parse(readFileSync(join(dir, value), "utf8")) : value);
  const tools = Object.entries((manifest.tools ?? {}) as Record<string, Obj>);
  const commands = Object.entries((manifest.commands ?? {}) as Record<string, Obj>);
  return {
    tools: byName(tools.map(([name, t]) => ({ name, description: t.description, parameters: schema(t.parameters), output_schema: t.output_schema === undefined ? undefined : schema(t.output_schema) }))),
    commands: byName(commands.map(([name, c]) => ({ name, description: c.description, usage: c.usage }))),
  };
}

const byName = (list: Obj[]) => list.sort((a, b) => String(a.name).localeCompare(String(b.name)));

/** The not-mapped lines, but for those about schemas gen rewrites (checked by {@link expectRewritesNamed}). */
const notMapped = (lines: string[]) => lines.filter((line) => line.startsWith("not mapped: ") && !line.includes(".parameters as sent: "));

/** A tool whose schema gen sends otherwise than the original (objects closed by default) is named; no other is. */
function expectRewritesNamed(dir: string, reply: Obj, lines: string[]): void {
  const original = new Map((reply.tools as Obj[]).map((t) => [t.name, t.parameters ?? { type: "object" }]));
  for (const tool of loadAuthorManifest(dir).tools) {
    const named = lines.some((line) => line.startsWith(`not mapped: tools.${tool.name}.parameters as sent: `));
    expect({ tool: tool.name, named }).toEqual({ tool: tool.name, named: !Bun.deepEquals(tool.parameters, original.get(tool.name), true) });
  }
}

const EXAMPLE_NOT_MAPPED: Record<string, string[]> = {
  caffeinate: ['not mapped: protocol.lifecycle_events ["session/settled","turn/settled","turn/started"]: subscribed in code: register each with ext.onLifecycle in src/extension.ts'],
  "typescript-hello": [
    "not mapped: tools.text_stats.prompt_snippet: manifest.toml has no key for it, so the port does not send it",
    "not mapped: protocol.limits.max_concurrent_requests = 2: set in code: pass { maxConcurrentRequests: 2 } to new Extension() in src/extension.ts",
  ],
};

describe("octet-extension import, on every example", () => {
  test.each(EXAMPLES)("%s: import --force into a new scaffold, gen: extension.toml equals the original, schemas equal the initialize reply", async (name) => {
    const original = join(REPO, "examples", name);
    const dir = newScaffold(name);
    const scaffoldManifest = readFileSync(join(dir, "manifest.toml"), "utf8");
    const run = cli(dir, "import", original, "--force");
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: [] });
    expect(notMapped(run.out)).toEqual(EXAMPLE_NOT_MAPPED[name] ?? []);
    // The scaffold's own manifest is never lost, and its [source] and #:schema line stay.
    expect(readFileSync(join(dir, "manifest.toml.bak"), "utf8")).toBe(scaffoldManifest);
    expect(readFileSync(join(dir, "manifest.toml"), "utf8")).toStartWith("#:schema ./node_modules/octet-extension-tools/manifest.schema.json\n");

    const gen = cli(dir, "gen");
    expect(gen.code).toBe(0);
    expect(toml(join(dir, "extension.toml"))).toEqual(expectedHostManifest(toml(join(original, "extension.toml"))));
    const reply = await initializeReply(original);
    expect(importedDeclarations(dir)).toEqual(replyDeclarations(reply));
    expectRewritesNamed(dir, reply, run.out);
    const source = readFileSync(join(dir, "src/extension.ts"), "utf8");
    for (const declared of [...(toml(join(original, "extension.toml")).contributes as { tools?: string[] }).tools ?? []]) expect(source).toContain(`${declared}:`);
  }, 60_000);
});

describe("octet-extension import, on a legacy Python extension", () => {
  test("flags, shortcuts, hooks, UI surfaces, capabilities and [runtime] mapped; entry point replaced with env kept; a null default kept as JSON; what cannot be mapped named", async () => {
    const dir = bareProject("python-legacy");
    const run = cli(dir, "import", PYTHON);
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: [] });
    expect(notMapped(run.out)).toEqual([
      'not mapped: entrypoint.command "notes.py" and args ["--stdio"]: the port runs src/extension.ts through the kit\'s `extension` wrapper (build ships its own); entrypoint.env is kept',
      "not mapped: protocol.limits.max_concurrent_requests = 4: set in code: pass { maxConcurrentRequests: 4 } to new Extension() in src/extension.ts",
    ]);
    expect(run.out).toContain("wrote schemas/search_notes.parameters.json: tools.search_notes.parameters holds null, which TOML cannot write");
    for (const stub of ["tools.add_note", "tools.search_notes", "commands.notes", "commands.notes-clear"]) expect(run.out.some((line) => line.startsWith("added stub for") && line.includes(stub))).toBe(true);

    const manifest = toml(join(dir, "manifest.toml"));
    expect(manifest.flags).toEqual({
      "notes-dir": { type: "string", default: ".notes", description: "Where the notes are kept" },
      "max-notes": { type: "integer", default: 200 },
      "dry-run": { type: "boolean", default: false, description: "Only show what would change" },
    });
    expect(manifest.shortcuts).toEqual({ new_note: { key: "ctrl+shift+n", description: "Start a new note" } });
    expect(manifest.runtime).toEqual({ lifecycle: "lazy_resident", sharing: "workspace" });
    expect(manifest.entrypoint).toEqual({ command: "extension", env: { PYTHONUNBUFFERED: "1", PYTHONDONTWRITEBYTECODE: "1" } });

    // gen again changes nothing: the import ran it.
    expect(cli(dir, "gen").err).toContain("nothing to change");
    expect(toml(join(dir, "extension.toml"))).toEqual(expectedHostManifest(toml(join(PYTHON, "extension.toml"))));
    const reply = await initializeReply(PYTHON);
    expect(importedDeclarations(dir)).toEqual(replyDeclarations(reply));
    expectRewritesNamed(dir, reply, run.out);

    // The port starts under the strict test host through the kit's wrapper, with the original's declarations.
    const host = await TestHost.start(dir);
    try {
      const reply = await host.initialize();
      expect((reply.tools as Obj[]).map((t) => t.name)).toEqual(["add_note", "search_notes"]);
      expect(await host.shutdown()).toBe(0);
    } finally {
      host.kill();
    }
  }, 60_000);
});

describe("octet-extension import never loses the author's manifest.toml", () => {
  test("a different manifest.toml is refused in one line and nothing is written; --force keeps it as manifest.toml.bak; a second --force with a different backup is refused", () => {
    const dir = newScaffold("hello-world");
    const before = readdirSync(dir).sort();
    const scaffoldManifest = readFileSync(join(dir, "manifest.toml"), "utf8");
    const refused = cli(dir, "import", join(REPO, "examples/hello-world"));
    expect({ code: refused.code, out: refused.out, err: refused.err }).toEqual({
      code: 1,
      out: [],
      err: [`error: ${join(dir, "manifest.toml")} exists and differs from the imported manifest: pass --force to replace it (the current one is kept as manifest.toml.bak)`],
    });
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readFileSync(join(dir, "manifest.toml"), "utf8")).toBe(scaffoldManifest);

    expect(cli(dir, "import", join(REPO, "examples/hello-world"), "--force").code).toBe(0);
    const imported = readFileSync(join(dir, "manifest.toml"), "utf8");
    // Importing the same extension again writes the same file: nothing to refuse.
    expect(cli(dir, "import", join(REPO, "examples/hello-world")).code).toBe(0);
    expect(readFileSync(join(dir, "manifest.toml"), "utf8")).toBe(imported);

    // The author edits it; another import refuses, and --force will not overwrite the older backup.
    writeFileSync(join(dir, "manifest.toml"), imported.replace('version = "0.1.0"', 'version = "0.2.0"'));
    expect(cli(dir, "import", join(REPO, "examples/hello-world")).code).toBe(1);
    const forced = cli(dir, "import", join(REPO, "examples/hello-world"), "--force");
    expect({ code: forced.code, err: forced.err }).toEqual({
      code: 1,
      err: [`error: ${join(dir, "manifest.toml.bak")} exists and differs from manifest.toml: move it away, then import again (--force keeps the current manifest.toml there)`],
    });
    expect(readFileSync(join(dir, "manifest.toml"), "utf8")).toContain('version = "0.2.0"');
    expect(readFileSync(join(dir, "manifest.toml.bak"), "utf8")).toBe(scaffoldManifest);
  }, 60_000);

  test("the project's [source] is kept: gen writes the stubs into its file and the wrapper runs it", () => {
    const dir = bareProject("hello-world");
    writeFileSync(join(dir, "manifest.toml"), 'name = "hello-world"\nversion = "0.0.1"\napi_version = "0.4"\n\n[source]\nfile = "src/main.ts"\ngenerated = "src/main.gen.ts"\n');
    const run = cli(dir, "import", join(REPO, "examples/hello-world"), "--force");
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: [] });
    expect(toml(join(dir, "manifest.toml")).source).toEqual({ file: "src/main.ts", generated: "src/main.gen.ts" });
    expect(readFileSync(join(dir, "src/main.ts"), "utf8")).toContain("hello_world:");
    expect(existsSync(join(dir, "src/main.gen.ts"))).toBe(true);
    expect(readFileSync(join(dir, "extension"), "utf8")).toContain("'src/main.ts'");
  }, 60_000);

  test("a path without extension.toml, and the project itself, are refused in one line", () => {
    const dir = bareProject("empty");
    const nothing = temporaryDirectory("octet-import-src-");
    expect(cli(dir, "import", nothing).err).toEqual([`error: ${nothing} has no extension.toml: name the directory of the extension to import`]);
    expect(cli(dir, "import", ".").err).toEqual([`error: ${dir} is this project: run import inside a new project (bun create octet-extension NAME) and name the old extension's directory`]);
    expect(existsSync(join(dir, "manifest.toml"))).toBe(false);
  });
});

describe("the imported extension is untrusted", () => {
  test("it runs without a shell (a directory named with $(…) runs nothing) and what it prints shows its controls", () => {
    const root = temporaryDirectory("octet-import-hostile-");
    const source = join(root, "x$(touch PWNED)");
    mkdirSync(source);
    writeFileSync(join(source, "extension.toml"), 'name = "hostile"\nversion = "0.1.0"\napi_version = "0.1"\n\n[entrypoint]\ncommand = "ext.sh"\n\n[contributes]\ntools = ["t"]\n');
    // stderr with terminal controls and a reply octet refuses (a tool it never declared, its description holding ESC).
    writeFileSync(
      join(source, "ext.sh"),
      '#!/bin/sh\nread line\nprintf \'{"level":"error","message":"\\033]0;owned\\007\\033[2J"}\\n\' >&2\nprintf \'{"jsonrpc":"2.0","id":1,"result":{"api_version":"0.1","tools":[{"name":"u","description":"\\\\u001b[31mred"}],"commands":[]}}\\n\'\nsleep 5\n',
      { mode: 0o755 },
    );
    const dir = bareProject("hostile");
    const run = cli(dir, "import", source);
    expect(run.code).toBe(1);
    expect(run.err.at(-1)).toStartWith(`error: ${source}: octet would not load it: `);
    const printed = run.err.join("\n");
    expect(printed).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(printed).toContain("\\x1b]0;owned\\x07");
    expect(existsSync(join(root, "PWNED")) || existsSync(join(dir, "PWNED"))).toBe(false);
    expect(existsSync(join(dir, "manifest.toml"))).toBe(false);
  }, 30_000);
});
