/**
 * `writeAtomic`: a temporary file created exclusively (never through a
 * symbolic link), mode 0600 until written, then renamed over the target; no
 * temporary file is left behind when the write fails.
 */
import { describe, expect, test } from "bun:test";
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";
import { writeAtomic } from "../../codegen/files.ts";

/** A project directory and, outside it, a victim file that must never change. */
function setup() {
  const dir = temporaryDirectory("atomic-");
  const victim = join(temporaryDirectory("victim-"), "authorized_keys");
  writeFileSync(victim, "precious\n");
  return { dir, victim };
}

describe("writeAtomic", () => {
  test("a symbolic link planted at the old predictable temporary name (PATH.tmp-PID) is not followed", () => {
    const { dir, victim } = setup();
    const path = join(dir, "extension.toml");
    symlinkSync(victim, `${path}.tmp-${process.pid}`);
    writeAtomic(path, "new\n");
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(readFileSync(path, "utf8")).toBe("new\n");
  });

  test("a symbolic link at the target is replaced, not written through", () => {
    const { dir, victim } = setup();
    const path = join(dir, "extension");
    symlinkSync(victim, path);
    writeAtomic(path, "#!/bin/sh\n", 0o755);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(lstatSync(path).isFile()).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("#!/bin/sh\n");
  });

  test("modes: a script gets the mode asked for, a plain file 0666 less the umask; no temporary file is left", () => {
    const { dir } = setup();
    writeAtomic(join(dir, "extension"), "#!/bin/sh\n", 0o755);
    writeAtomic(join(dir, "extension.toml"), "x\n");
    expect(lstatSync(join(dir, "extension")).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(dir, "extension.toml")).mode & 0o777).toBe(0o666 & ~process.umask());
    expect(readdirSync(dir).sort()).toEqual(["extension", "extension.toml"]);
  });

  test("when the rename fails the error is thrown and no temporary file is left behind", () => {
    const { dir } = setup();
    // A non-empty directory where the file should go: rename(2) fails.
    mkdirSync(join(dir, "extension.toml"));
    writeFileSync(join(dir, "extension.toml", "keep"), "");
    expect(() => writeAtomic(join(dir, "extension.toml"), "x\n")).toThrow();
    expect(readdirSync(dir)).toEqual(["extension.toml"]);
    expect(readdirSync(join(dir, "extension.toml"))).toEqual(["keep"]);
  });
});
