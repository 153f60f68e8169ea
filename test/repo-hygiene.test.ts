/**
 * The repository itself: `npm install` leaves the tracked lockfile as it is,
 * and the in-process unit tests keep the runtime's log lines out of the test
 * runner's output (issue 10, point 9).
 */
import { expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";

const REPO = join(import.meta.dir, "..");
const WORKSPACES = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { workspaces: string[] }).workspaces;
const MANIFESTS = ["package.json", "package-lock.json", ...WORKSPACES.map((w) => `${w}/package.json`)];

test("npm install changes nothing in the tracked package-lock.json", () => {
  const copy = temporaryDirectory("lock-");
  for (const file of MANIFESTS) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(REPO, file), join(copy, file));
  }
  const npm = Bun.which("npm", { PATH: "/usr/local/bin:/usr/bin:/bin" });
  expect(npm).not.toBeNull();
  const run = Bun.spawnSync([npm!, "install", "--package-lock-only", "--ignore-scripts", "--offline", "--no-audit", "--no-fund"], { cwd: copy, stdout: "pipe", stderr: "pipe" });
  expect(run.exitCode).toBe(0);
  expect(readFileSync(join(copy, "package-lock.json"), "utf8")).toBe(readFileSync(join(REPO, "package-lock.json"), "utf8"));
}, 60_000);

test("in-process runtime tests write no log lines into the runner's output", () => {
  const run = Bun.spawnSync([process.execPath, "test", "test/unit/helpers.test.ts"], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  const output = run.stdout.toString() + run.stderr.toString();
  expect(run.exitCode).toBe(0);
  expect(output).toContain(" 0 fail");
  expect(output).not.toContain('{"level"');
}, 60_000);

test("TestHost is a facade: src/testing/test-host.ts has at most 350 lines (issue 26)", () => {
  const lines = readFileSync(join(REPO, "src/testing/test-host.ts"), "utf8").split("\n").length - 1;
  expect(lines).toBeLessThanOrEqual(350);
});

/** Headings numbered `N.M` in a Markdown file (`## 1. Transport`, `### 1.2 Frame size limit`). */
function numberedHeadings(path: string): Set<string> {
  const numbers = new Set<string>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/.exec(line);
    if (match) numbers.add(match[1]!);
  }
  return numbers;
}

test("every § citation names a document and a numbered heading in it (issue 26 item 5)", () => {
  // A citation resolves against the document named before it on its line, else (in a protocol
  // reference) against that reference itself, else against the last document named earlier in the file.
  const DOC = /\bdocs\/[\w.-]+\.md\b|\b[A-Z][A-Z0-9.-]*-REFERENCE\.md\b/g;
  const REFERENCES = ["docs/protocol-0.2.md", "docs/protocol-0.3.md", "docs/native-host-protocol.md", "docs/conformance-fixture.md"];
  const listed = Bun.spawnSync(["git", "ls-files", "-co", "--exclude-standard"], { cwd: REPO, stdout: "pipe" }).stdout.toString().split("\n");
  const headings = new Map<string, Set<string> | undefined>();
  const headingsOf = (doc: string) => {
    if (!headings.has(doc)) headings.set(doc, doc.startsWith("docs/") ? (existsSync(join(REPO, doc)) ? numberedHeadings(join(REPO, doc)) : undefined) : new Set(["*"]));
    return headings.get(doc);
  };
  const unresolved: string[] = [];
  let citations = 0;
  for (const file of listed) {
    if (!file || file.includes("node_modules/") || !/\.(ts|md|toml|json|mjs|sh)$/.test(file) || !existsSync(join(REPO, file))) continue;
    const text = readFileSync(join(REPO, file), "utf8");
    if (!text.includes("§")) continue;
    let lastDoc = REFERENCES.includes(file) ? file : undefined;
    text.split("\n").forEach((line, index) => {
      const events = [...line.matchAll(DOC)].map((m) => ({ at: m.index, doc: m[0] }));
      for (const match of line.matchAll(/§\s?(\d+(?:\.\d+)*)/g)) {
        citations++;
        const onLine = events.filter((e) => e.at < match.index).at(-1)?.doc;
        const doc = onLine ?? (REFERENCES.includes(file) ? file : lastDoc);
        const known = doc === undefined ? undefined : headingsOf(doc);
        const where = `${file}:${index + 1}: ${match[0]}`;
        if (doc === undefined) unresolved.push(`${where} names no document`);
        else if (known === undefined) unresolved.push(`${where} cites ${doc}, which does not exist`);
        else if (!known.has("*") && !known.has(match[1]!)) unresolved.push(`${where} has no heading ${match[1]} in ${doc}`);
      }
      if (events.length > 0) lastDoc = events.at(-1)!.doc;
    });
  }
  expect(citations).toBeGreaterThan(300);
  expect(unresolved).toEqual([]);
});

test("one JSON-object type and one object guard, both in src/check.ts: src/ and codegen/ declare no other (issue 26 item 4)", () => {
  const ALIAS = /^\s*(?:export\s+)?type\s+\w+\s*=\s*Record<string,\s*unknown>\s*;/m;
  const GUARD = /typeof (\w+) === "object" && \1 !== null && !Array\.isArray\(\1\)|(\w+) !== null && typeof \2 === "object" && !Array\.isArray\(\2\)/;
  const listed = Bun.spawnSync(["git", "ls-files", "-co", "--exclude-standard", "src", "codegen"], { cwd: REPO, stdout: "pipe" }).stdout.toString().split("\n");
  const copies: string[] = [];
  for (const file of listed) {
    if (!file.endsWith(".ts") || file.includes("node_modules/") || file === "src/check.ts" || !existsSync(join(REPO, file))) continue;
    const text = readFileSync(join(REPO, file), "utf8");
    if (ALIAS.test(text)) copies.push(`${file}: a Record<string, unknown> alias (import JsonRecord from src/check.ts)`);
    if (GUARD.test(text)) copies.push(`${file}: an object guard (import isObject from src/check.ts)`);
  }
  expect(copies).toEqual([]);
});

test("distinct file names inside a package: no two files anywhere in octet-extension's src/ share a name (v03/ included), the host double repeats none of the client's (entry points aside; issue 26 item 3)", () => {
  const files = (under: string) => Bun.spawnSync(["git", "ls-files", "-co", "--exclude-standard", under], { cwd: REPO, stdout: "pipe" }).stdout.toString().split("\n").filter((f) => f.endsWith(".ts") && existsSync(join(REPO, f)));
  const base = (f: string) => f.slice(f.lastIndexOf("/") + 1);
  const clashes = (mine: string[], all: string[]) => mine.filter((f) => base(f) !== "index.ts" && all.some((g) => g !== f && base(g) === base(f)));
  const runtimePackage = files("src");
  expect(clashes(runtimePackage, runtimePackage)).toEqual([]);
  expect(clashes(files("native-host/host-double"), files("native-host"))).toEqual([]);
});
