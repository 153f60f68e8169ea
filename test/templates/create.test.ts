import { describe, expect, test } from "bun:test";
import { temporaryDirectory } from "octet-extension/testing";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathWithBun } from "../../src/testing/launch.ts";

const REPO = new URL("../../", import.meta.url).pathname;

describe("bun create octet-extension (offline, linked to this checkout)", () => {
  test("scaffold → bun install → gen → test → build, as an author would", () => {
    // A private Bun home: `bun link` and the install cache stay out of the user's.
    const env = { ...process.env, BUN_INSTALL: temporaryDirectory("bun-home-"), PATH: pathWithBun(process.env.PATH) };
    const bun = process.execPath;
    const run = (argv: string[], cwd: string, extraEnv: Record<string, string> = {}) => {
      const result = Bun.spawnSync(argv, { cwd, env: { ...env, ...extraEnv }, stdout: "pipe", stderr: "pipe" });
      const output = result.stdout.toString() + result.stderr.toString();
      if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} failed (${result.exitCode}):\n${output}`);
      return output;
    };
    run([bun, "link"], REPO);
    const parent = temporaryDirectory("octet-create-");
    const dir = join(parent, "weather-now");
    expect(run([bun, "create", "octet-extension", dir, "--link"], REPO)).toContain(`created ${dir}`);
    expect(readFileSync(join(dir, "manifest.toml"), "utf8")).toContain('name = "weather-now"');
    expect(readFileSync(join(dir, "manifest.toml"), "utf8")).toContain('api_version = "0.2"');
    expect(run([bun, "install", "--offline"], dir)).toContain("wrote extension.toml");
    expect(run([bun, "run", "gen"], dir)).toContain("nothing to change");
    // The scaffold's preload removes the test host's temporary workspace after the run.
    const testTmp = temporaryDirectory("scaffold-tmp-");
    const tested = run([bun, "test"], dir, { TMPDIR: testTmp });
    expect(tested).toMatch(/1 pass/);
    expect(tested).toMatch(/0 fail/);
    expect(readdirSync(testTmp)).toEqual([]);
    run([bun, "run", "build"], dir);
    expect(existsSync(join(dir, "dist/weather-now/weather-now.bin"))).toBe(true);
    expect(existsSync(join(dir, "dist/weather-now-0.1.0.tar.gz"))).toBe(true);
    // A bad name is refused with a clear error and nothing is created.
    const bad = Bun.spawnSync([bun, "create", "octet-extension", join(parent, "Bad_Name")], { cwd: REPO, env, stdout: "pipe", stderr: "pipe" });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr.toString() + bad.stdout.toString()).toContain("cannot name an octet extension");
    expect(existsSync(join(parent, "Bad_Name"))).toBe(false);
  }, 180_000);
});
