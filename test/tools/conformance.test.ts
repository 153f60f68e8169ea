/**
 * `octet-extension conformance`, end to end: the CLI against our examples and
 * the conformance fixture (every probe passes or is skipped with a reason),
 * and against a deliberately broken extension written in Python without an
 * SDK (the probes it breaks fail, and the exit status is 1).
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = new URL("../../", import.meta.url).pathname;
const CLI = `${REPO}codegen/cli.ts`;

function conformance(args: string[]): { code: number; lines: string[] } {
  const run = Bun.spawnSync([process.execPath, CLI, "conformance", ...args], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode ?? -1, lines: run.stdout.toString().trim().split("\n") };
}

/** `VERDICT name` for every probe line. */
const verdicts = (lines: string[]) => Object.fromEntries(lines.filter((l) => /^(PASS|FAIL|SKIP) /.test(l)).map((l) => [l.slice(6, 28).trim(), l.slice(0, 4)]));

describe("octet-extension conformance", () => {
  for (const [dir, skipped, tool] of [
    ["examples/hello-world", ["cancellation"], "hello_world"],
    ["examples/git-tools", ["cancellation"], "git_status"],
    ["examples/local-model-workflow", ["cancellation", "64 in flight"], undefined],
    ["examples/caffeinate", ["cancellation", "64 in flight"], undefined],
    ["examples/dynamic-catalog", [], "sync_catalog"],
    ["examples/typescript-hello", [], "text_stats"],
  ] as [string, string[], string | undefined][]) {
    // Skipped: API 0.1 has no cancellation; an extension with no tool has nothing to call.
    test(`${dir}: every probe passes${skipped.length ? ` (${skipped.join(", ")} skipped)` : ""}${tool ? `, and those calling ${tool} reach its handler` : ""}`, () => {
      const { code, lines } = conformance(["--dir", dir]);
      const table = verdicts(lines);
      expect(Object.keys(table).length).toBe(10);
      for (const [name, verdict] of Object.entries(table)) expect({ name, verdict }).toEqual({ name, verdict: skipped.includes(name) ? "SKIP" : "PASS" });
      const calling = 3 - skipped.length;
      const reached = tool ? `; ${calling}/${calling} probes that call ${tool} exercised its handler` : "; no tool to call";
      expect(lines.at(-1)).toBe(`10 checks: ${10 - skipped.length} passed, 0 failed, ${skipped.length} skipped${reached}`);
      expect(code).toBe(0);
    }, 60_000);
  }

  for (const version of ["v02", "v04"]) {
    test(`the conformance fixture (${version}): everything passes but 64 in flight, which its spec caps at 16 admitted requests`, () => {
      const { code, lines } = conformance(["--dir", `test/fixtures/conformance/${version}/octet-conformance-fixture`]);
      const table = verdicts(lines);
      for (const [name, verdict] of Object.entries(table)) expect({ name, verdict }).toEqual({ name, verdict: name === "64 in flight" ? "FAIL" : "PASS" });
      // How many are refused depends on how many finished before the last arrived (the cap is 16 admitted at once).
      const refused = /(\d+) of 64 refused: \{"code":-32000,"message":"extension request queue is full"\}/.exec(lines.find((l) => l.startsWith("FAIL  64 in flight")) ?? "");
      expect(Number(refused?.[1])).toBeGreaterThan(0);
      expect(code).toBe(1);
    }, 60_000);
  }

  test("a broken extension fails the probes it breaks, with the reason, and the exit status is 1", () => {
    const { code, lines } = conformance(["--dir", "test/fixtures/broken-extension"]);
    const table = verdicts(lines);
    expect(table).toMatchObject({ initialize: "PASS", "split frames": "PASS", "CRLF and blank lines": "FAIL", "oversize frame": "FAIL", "stdout purity": "FAIL", cancellation: "FAIL", EOF: "FAIL", shutdown: "PASS" });
    expect(lines.find((l) => l.startsWith("FAIL  stdout purity"))).toContain("non-JSON on stdout: running slow tool...");

    expect(lines.find((l) => l.startsWith("FAIL  EOF"))).toContain("still running");
    expect(code).toBe(1);
  }, 120_000);

  test("an extension that cannot even load exercises nothing: the summary counts 0 probes that reached the handler", () => {
    const dir = mkdtempSync(join(tmpdir(), "octet-conformance-unloadable-"));
    try {
      cpSync(`${REPO}examples/hello-world`, dir, { recursive: true });
      appendFileSync(join(dir, "extension.ts"), "\nthis is not TypeScript ((((\n");
      const { code, lines } = conformance(["--dir", dir]);
      expect(verdicts(lines).initialize).toBe("FAIL");
      expect(lines.at(-1)).toMatch(/ 0\/\d+ probes that call hello_world exercised its handler$/);
      expect(code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test("-- CMD runs another command line with DIR's manifest", () => {
    const { code, lines } = conformance(["--dir", "examples/typescript-hello", "--", "examples/typescript-hello/extension"]);
    expect(lines[0]).toBe("octet-extension conformance: typescript-hello (API 0.4), examples/typescript-hello/extension");
    expect(code).toBe(0);
  }, 60_000);
});
