/**
 * The repository itself: `npm install` leaves the tracked lockfile as it is,
 * and the in-process unit tests keep the runtime's log lines out of the test
 * runner's output (issue 10, point 9).
 */
import { expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync } from "node:fs";
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
