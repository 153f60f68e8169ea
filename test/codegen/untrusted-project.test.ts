/**
 * A cloned repository's manifest.toml and directory layout choose no command
 * and no place to write: a `[source]` path with shell syntax is refused, and
 * gen refuses to write through a symbolic link that leads out of the project.
 * Each refusal is one line and happens before anything is written.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";
import { project, removeProjects, REPO, WEATHER } from "./helpers.ts";

afterAll(removeProjects);

function cli(dir: string, ...args: string[]) {
  const run = Bun.spawnSync([process.execPath, join(REPO, "codegen/cli.ts"), ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  return { exitCode: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString().trimEnd().split("\n") };
}

const ALLOWED = 'use only A-Z, a-z, 0-9, ".", "_", "-" and "/" in source paths';

describe("[source] paths from a cloned manifest", () => {
  test("file = \"src/a$(id>PWNED).ts\": gen refuses it in one line, writes nothing, and `call` never runs id", () => {
    const dir = project("weather", `${WEATHER}\n[source]\nfile = "src/a$(id>PWNED).ts"\n`);
    const before = readdirSync(dir).sort();
    const gen = cli(dir, "gen");
    const written = readdirSync(dir).sort();
    const call = cli(dir, "call", "get_forecast", '{"city":"Oslo"}');
    expect({ exitCode: gen.exitCode, stderr: gen.stderr, written, pwned: existsSync(join(dir, "PWNED")) }).toEqual({
      exitCode: 1,
      stderr: [`error: ${join(dir, "manifest.toml")}: source.file: "src/a$(id>PWNED).ts" contains "$" (${ALLOWED})`],
      written: before,
      pwned: false,
    });
    expect(call.exitCode).toBe(1);
  });

  test("generated = with a space or a quote is refused the same way", () => {
    const dir = project("weather", `${WEATHER}\n[source]\ngenerated = "src/it's gen.gen.ts"\n`);
    const gen = cli(dir, "gen");
    expect(gen.exitCode).toBe(1);
    expect(gen.stderr).toEqual([`error: ${join(dir, "manifest.toml")}: source.generated: "src/it's gen.gen.ts" contains "'" (${ALLOWED})`]);
  });
});

describe("gen and symbolic links", () => {
  test("src/ linked out of the project: gen refuses in one line and writes nothing there or in the project", () => {
    const dir = project("weather", WEATHER);
    const outside = temporaryDirectory("outside-");
    symlinkSync(relative(dir, outside), join(dir, "src"));
    const before = readdirSync(dir).sort();
    const gen = cli(dir, "gen");
    expect({ exitCode: gen.exitCode, stderr: gen.stderr, outside: readdirSync(outside), project: readdirSync(dir).sort() }).toEqual({
      exitCode: 1,
      stderr: [
        `error: ${join(dir, "manifest.toml")}: source.file: "src/extension.ts" is outside the project once symbolic links are resolved (${join(outside, "extension.ts")}) (keep sources in real directories inside the directory that holds manifest.toml)`,
      ],
      outside: [],
      project: before,
    });
  });

  test("source.generated under a directory linked out of the project is refused too", () => {
    const dir = project("weather", `${WEATHER}\n[source]\ngenerated = "types/extension.gen.ts"\n`);
    const outside = temporaryDirectory("outside-");
    symlinkSync(outside, join(dir, "types"));
    const gen = cli(dir, "gen");
    expect(gen.exitCode).toBe(1);
    expect(gen.stderr).toHaveLength(1);
    expect(gen.stderr[0]).toContain(`source.generated: "types/extension.gen.ts" is outside the project once symbolic links are resolved (${join(outside, "extension.gen.ts")})`);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(dir, "src"))).toBe(false);
  });

  test("a link that leads nowhere is refused in one line naming the key, and its target is not created", () => {
    const dir = project("weather", WEATHER);
    const nowhere = join(temporaryDirectory("outside-"), "not-yet");
    symlinkSync(nowhere, join(dir, "src"));
    const gen = cli(dir, "gen");
    expect(gen.exitCode).toBe(1);
    expect(gen.stderr).toEqual([`error: ${join(dir, "manifest.toml")}: source.file: "src/extension.ts" passes through a symbolic link that leads nowhere (remove the link or make it point inside the project)`]);
    expect(existsSync(nowhere)).toBe(false);
  });

  test("a link that resolves into node_modules/ is refused; one that stays inside the project is followed", () => {
    const dir = project("weather", WEATHER);
    mkdirSync(join(dir, "node_modules", "pkg"));
    symlinkSync("node_modules/pkg", join(dir, "src"));
    const refused = cli(dir, "gen");
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toEqual([`error: ${join(dir, "manifest.toml")}: source.file: "src/extension.ts" is inside node_modules/ once symbolic links are resolved (keep sources out of node_modules/ and dist/)`]);
    expect(readdirSync(join(dir, "node_modules", "pkg"))).toEqual([]);

    const inside = project("weather", WEATHER);
    mkdirSync(join(inside, "lib"));
    symlinkSync("lib", join(inside, "src"));
    const gen = cli(inside, "gen");
    expect(gen.exitCode).toBe(0);
    expect(readdirSync(join(inside, "lib")).sort()).toEqual(["extension.gen.ts", "extension.ts", "extension.validators.gen.ts"]);
  });
});
