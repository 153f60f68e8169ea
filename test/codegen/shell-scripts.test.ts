/**
 * The shell scripts the kit writes (gen's dev entry point, build's launcher)
 * quote every literal for the shell: run under `sh`, they start only the
 * intended program with exactly the intended arguments, whatever the text.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";
import { devWrapper } from "../../codegen/gen.ts";
import { project, removeProjects, REPO, WEATHER } from "./helpers.ts";

afterAll(removeProjects);

const HOSTILE = ["", "plain", "a b", "it's", "'", "''", '"', "$HOME", "$(touch PWNED)", "`touch PWNED`", "a\\b", "\\'", "line\nbreak", "tab\there", "*", "~", "-n", "!", "é ✓", "a'b\"c$(d)`e`\\f g"];

/**
 * A directory with a `bun` (or any) stub that prints its arguments NUL-separated on fd 3, where
 * the launchers hand it the real stdout, and on its fd 1 (stderr under a launcher)
 * OCTET_EXTENSION_PROTOCOL_FD and its own pid.
 */
function stub(dir: string, file: string): void {
  writeFileSync(join(dir, file), "#!/bin/sh\nprintf '%s\\0' \"$@\" >&3\necho \"$OCTET_EXTENSION_PROTOCOL_FD $$\"\n");
  chmodSync(join(dir, file), 0o755);
}

/** What the stub prints on stderr under a launcher: the variable names fd 3 and the stub's own pid (`exec` keeps `$$`). */
const LAUNCHED = expect.stringMatching(/^3:(\d+) \1\n$/);

/** Run `script` with `sh` in an empty directory; its output split on NUL, and what it left in that directory. */
function run(script: string, env: Record<string, string>, args: string[]) {
  const cwd = temporaryDirectory("sh-cwd-");
  const file = join(temporaryDirectory("sh-script-"), "extension");
  writeFileSync(file, script);
  const syntax = Bun.spawnSync(["sh", "-n", file], { stderr: "pipe" });
  const ran = Bun.spawnSync(["sh", file, ...args], { cwd, env: { PATH: "/usr/bin:/bin", ...env }, stdout: "pipe", stderr: "pipe" });
  return { syntax: syntax.exitCode, exitCode: ran.exitCode, stderr: ran.stderr.toString(), argv: ran.stdout.toString().split("\0").slice(0, -1), left: readdirSync(cwd) };
}

describe("shell quoting", () => {
  test("shellQuote: every string comes back from sh byte for byte", async () => {
    const { shellQuote } = await import("../../codegen/shell.ts");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("")).toBe("''");
    const script = `printf '%s\\0' ${HOSTILE.map(shellQuote).join(" ")}`;
    const ran = Bun.spawnSync(["sh", "-c", script], { cwd: temporaryDirectory("sh-cwd-"), stdout: "pipe" });
    expect(ran.exitCode).toBe(0);
    expect(ran.stdout.toString().split("\0").slice(0, -1)).toEqual(HOSTILE);
  });

  test.each(["src/a$(touch PWNED)`touch PWNED2`.ts", "src/it's \"b\\c $HOME.ts"])("gen's dev entry point runs bun on exactly the source file %p", (source) => {
    const dir = join(temporaryDirectory("ext-"), "ext dir 'q\" $x");
    mkdirSync(dir);
    const bin = temporaryDirectory("bin-");
    stub(bin, "bun");
    const ran = run(devWrapper(source), { PATH: `${bin}:/usr/bin:/bin`, OCTET_EXTENSION_DIR: dir }, ["x y", "$z"]);
    expect({ syntax: ran.syntax, exitCode: ran.exitCode, stderr: ran.stderr, left: ran.left }).toEqual({ syntax: 0, exitCode: 0, stderr: LAUNCHED, left: [] });
    expect(ran.argv).toEqual(["--no-env-file", `--config=${dir}/bunfig.toml`, `${dir}/${source}`, "x y", "$z"]);
  });

  test("build's launcher execs exactly NAME.bin in the extension directory, whatever the name", async () => {
    const { unixLauncher } = await import("../../codegen/unix-launcher.ts");
    const dir = join(temporaryDirectory("ext-"), "ext dir 'q\" $x");
    mkdirSync(dir);
    const name = "we'ather $(touch PWNED) `touch PWNED2` \\";
    stub(dir, `${name}.bin`);
    const ran = run(unixLauncher(name).text, { OCTET_EXTENSION_DIR: dir }, ["a", "b c", "'"]);
    expect({ syntax: ran.syntax, exitCode: ran.exitCode, stderr: ran.stderr, left: ran.left }).toEqual({ syntax: 0, exitCode: 0, stderr: LAUNCHED, left: [] });
    expect(ran.argv).toEqual(["a", "b c", "'"]);
  });

  test("the `extension` script gen writes passes sh -n and starts bun on the project's source from a directory with a space and a quote", () => {
    const dir = project("weather", WEATHER);
    const gen = Bun.spawnSync([process.execPath, join(REPO, "codegen/cli.ts"), "gen"], { cwd: dir, stderr: "pipe" });
    expect(gen.exitCode).toBe(0);
    const staged = join(temporaryDirectory("ext-"), "it's here");
    mkdirSync(staged);
    const bin = temporaryDirectory("bin-");
    stub(bin, "bun");
    const ran = run(readFileSync(join(dir, "extension"), "utf8"), { PATH: `${bin}:/usr/bin:/bin`, OCTET_EXTENSION_DIR: staged }, ["--flag"]);
    expect({ syntax: ran.syntax, exitCode: ran.exitCode, stderr: ran.stderr }).toEqual({ syntax: 0, exitCode: 0, stderr: LAUNCHED });
    expect(ran.argv).toEqual(["--no-env-file", `--config=${staged}/bunfig.toml`, `${staged}/src/extension.ts`, "--flag"]);
    expect(existsSync(join(dir, "bunfig.toml"))).toBe(true);
  });
});
