/**
 * `octet-extension build --target …`: one bundle per platform, each with the
 * right executable format, its launcher, an archive and checksums; the
 * linux-x64 one runs under the strict test host with no Bun on PATH; the
 * Windows launcher (a Python script, the entry octet runs with py -3) passes
 * stdio through and returns the status. Runtimes come from the npm-pack
 * tarballs .ci/run fetched into .cache/bun-targets (no network here).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";
import { build } from "../../codegen/build.ts";
import { binaryFormat, parseTargets } from "../../codegen/targets.ts";
import { REPO, removeProjects, weatherProject04 as weatherProject } from "./helpers.ts";

afterAll(removeProjects);

const PACKAGES = join(REPO, ".cache/bun-targets");


describe("build --target", () => {
  test("five platforms: formats, launchers, archives and checksums; the linux-x64 bundle runs without Bun", async () => {
    const dir = await weatherProject();
    const targets = parseTargets("linux-x64,linux-arm64,darwin-x64,darwin-arm64,windows-x64");
    const result = await build(dir, { targets, bunPackages: PACKAGES });
    expect(result.targets.map((t) => [t.target, binaryFormat(join(t.bundleDir, t.target.startsWith("windows") ? "weather.exe" : "weather.bin"))])).toEqual([
      ["linux-x64", "elf-x86_64"],
      ["linux-arm64", "elf-aarch64"],
      ["darwin-x64", "macho-x86_64"],
      ["darwin-arm64", "macho-arm64"],
      ["windows-x64", "pe-x86_64"],
    ]);
    for (const built of result.targets) {
      expect(built.archive).toBe(join(dir, "dist", `weather-0.1.0-${built.target}.tar.gz`));
      expect(existsSync(built.archive)).toBe(true);
      expect(built.executableBytes).toBeGreaterThan(30 * 1024 * 1024);
      // octet stages only the entry point, at most 64 MiB: the launcher, never the executable.
      expect(readFileSync(join(built.bundleDir, "extension.toml"), "utf8")).toContain('command = "extension"');
    }
    expect(readFileSync(join(result.targets[4]!.bundleDir, "extension"), "utf8")).toStartWith("#!/usr/bin/env python3\n");
    expect(readFileSync(join(result.targets[2]!.bundleDir, "extension"), "utf8")).toStartWith("#!/bin/sh\n");
    const sums = readFileSync(join(dir, "dist/SHA256SUMS"), "utf8");
    for (const target of targets) expect(sums).toContain(`  weather-0.1.0-${target}.tar.gz\n`);
    expect(sums).toContain("  windows-x64/weather/weather.exe\n");

    const installed = join(temporaryDirectory("targets-octet-"), "weather");
    Bun.spawnSync(["cp", "-R", result.targets[0]!.bundleDir, installed]);
    const host = await TestHost.start(installed, { env: { PATH: "/nonexistent" }, addBunToPath: false });
    expect(await host.initialize()).toMatchObject({ api_version: "0.4" });
    expect(await host.callTool("get_forecast", { city: "Oslo" })).toMatchObject({ content: [{ text: "Sunny in Oslo" }] });
    expect(await host.shutdown()).toBe(0);
  }, 240_000);

  test("the Windows launcher runs NAME.exe from the extension directory with stdio passed through and its status returned", () => {
    const dir = join(temporaryDirectory("launcher-"), "ext");
    mkdirSync(dir);
    const launcher = join(dir, "extension");
    writeFileSync(launcher, `${(require("../../codegen/windows-launcher.ts") as typeof import("../../codegen/windows-launcher.ts")).windowsLauncher("weather").text}`);
    // A stand-in for weather.exe: echoes stdin and its arguments, writes to stderr, exits 3.
    writeFileSync(join(dir, "weather.exe"), '#!/bin/sh\necho "args: $*"\ncat\necho "to stderr" >&2\nexit 3\n');
    chmodSync(join(dir, "weather.exe"), 0o755);
    const run = Bun.spawnSync(["python3", launcher, "--flag"], { env: { OCTET_EXTENSION_DIR: dir, PATH: process.env.PATH! }, stdin: new TextEncoder().encode("frame\n"), stdout: "pipe", stderr: "pipe" });
    expect(run.stdout.toString()).toBe("args: --flag\nframe\n");
    expect(run.stderr.toString()).toBe("to stderr\n");
    expect(run.exitCode).toBe(3);
  });

  test("a target whose runtime is not at hand is refused with the command that fetches it; nothing is downloaded", async () => {
    const dir = await weatherProject();
    const empty = temporaryDirectory("no-runtimes-");
    await expect(build(dir, { targets: ["darwin-arm64"], bunPackages: empty, typecheck: false })).rejects.toThrow(`npm pack @oven/bun-darwin-aarch64@${Bun.version}`);
    expect(() => parseTargets("linux-x64,solaris-sparc")).toThrow('unknown target "solaris-sparc"');
  }, 60_000);
});
