/**
 * What an author reads or copies (READMEs, docs, examples, the scaffold,
 * codegen's stubs and messages) calls the host by the grouped names
 * (`ext.user.notify`, `ext.agents.list`, …), never the deprecated flat
 * aliases of src/runtime/deprecated-names.ts (issue 26 item 5). A doc may
 * name an alias in a "Deprecated names" section or a paragraph about them.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const REPO = join(import.meta.dir, "..");
const FLAT = [
  "notify", "confirm", "requestInput", "contributeContext", "contributeStatus", "publishPresentation", "publishArtifact",
  "evaluatePolicy", "getSecret", "spawnAgent", "sendAgentMessage", "followUpAgent", "listAgents", "waitAgents",
  "interruptAgent", "listAgentModels", "registerTools", "registerTool", "unregisterTools", "unregisterTool", "toolCatalogRevision",
];
const CALL = new RegExp(`\\b(?:ext|ctx\\.host)\\.(?:${FLAT.join("|")})\\b`, "g");
const ABOUT_ALIASES = /deprecated|alias/i;

function files(dir: string, ends: RegExp): string[] {
  return readdirSync(join(REPO, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name === "fixtures") return [];
    return statSync(join(REPO, path)).isDirectory() ? files(path, ends) : ends.test(name) ? [path] : [];
  });
}

/** Uses of flat names in `text`, as `file:line: name`; markdown paragraphs and sections about aliases are skipped. */
function flatUses(file: string, text: string): string[] {
  const found: string[] = [];
  const markdown = file.endsWith(".md");
  const lines = text.split("\n");
  let section = "";
  let paragraph: number[] = [];
  const flush = () => {
    const exempt = markdown && (ABOUT_ALIASES.test(section) || paragraph.some((i) => ABOUT_ALIASES.test(lines[i]!)));
    if (!exempt) for (const i of paragraph) for (const m of lines[i]!.matchAll(CALL)) found.push(`${file}:${i + 1}: ${m[0]}`);
    paragraph = [];
  };
  lines.forEach((line, i) => {
    if (markdown && /^#+ /.test(line)) {
      flush();
      section = line;
    }
    if (markdown && line.trim() === "") flush();
    else paragraph.push(i);
  });
  flush();
  return found;
}

test("READMEs, docs, examples, the scaffold and codegen use the grouped host names, not the deprecated flat ones", () => {
  const scanned = [
    "README.md",
    "src/README.md",
    "codegen/README.md",
    ...files("docs", /\.md$/),
    ...files("examples", /\.(ts|md)$/),
    ...files("templates", /\.(ts|js|md)$/),
    ...files("codegen", /\.(ts|json)$/),
  ];
  expect(scanned.length).toBeGreaterThan(40);
  const uses = scanned.flatMap((file) => flatUses(relative(REPO, join(REPO, file)), readFileSync(join(REPO, file), "utf8")));
  expect(uses).toEqual([]);
});

test("the check sees a flat name in code and prose, and lets a deprecation note name it", () => {
  expect(flatUses("x.ts", "await ext.notify('hi');\nawait ctx.host.listAgents();")).toEqual(["x.ts:1: ext.notify", "x.ts:2: ctx.host.listAgents"]);
  expect(flatUses("x.md", "Call `ext.getSecret(name)`.\n\nThe old `ext.getSecret` is a deprecated alias.")).toEqual(["x.md:1: ext.getSecret"]);
  expect(flatUses("x.md", "### Deprecated names\n\n| `ext.notify` | `ext.user.notify` |\n\n## Next\n\n`ext.notify`")).toEqual(["x.md:7: ext.notify"]);
  expect(flatUses("x.ts", "ext.user.notify(); ext.tools.register([]); ext.hostState")).toEqual([]);
});
