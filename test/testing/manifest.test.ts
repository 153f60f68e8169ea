import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadManifest, ManifestError, TestHost } from "octet-extension/testing";
import { tempDir } from "../fixtures/testing/raw.ts";

const BASE = `name = "good-ext"
version = "0.1.0"
api_version = "0.2"

[entrypoint]
command = "extension"
`;

/** Write an extension.toml and return its directory. */
function manifest(text: string): string {
  const dir = join(tempDir("octet-manifest-"), "ext");
  mkdirSync(dir);
  writeFileSync(join(dir, "extension.toml"), text);
  return dir;
}

function refusal(text: string): string {
  const dir = manifest(text);
  try {
    loadManifest(dir);
  } catch (error) {
    expect(error).toBeInstanceOf(ManifestError);
    const message = (error as Error).message;
    expect(message.startsWith(join(dir, "extension.toml") + ": ")).toBe(true);
    return message.slice(join(dir, "extension.toml").length + 2);
  }
  throw new Error("the manifest was accepted");
}

const set = (key: string, value: string) => BASE.replace(new RegExp(`^${key} = .*$`, "m"), `${key} = ${value}`);
const drop = (key: string) => BASE.replace(new RegExp(`^${key} = .*\\n`, "m"), "");

describe("loadManifest: octet's extension.toml rules (docs/protocol-0.2.md §2)", () => {
  test("a good manifest loads, with defaults filled in; a directory or the file path both work", () => {
    const dir = manifest(BASE);
    const m = loadManifest(dir);
    expect(m).toMatchObject({ name: "good-ext", version: "0.1.0", api_version: "0.2", entrypoint: { command: "extension", args: [], env: {} }, dir });
    expect(m.capabilities).toEqual({ filesystem: "none", process: false, network: false, secrets: [], environment: [] });
    expect(m.contributes).toMatchObject({ tools: [], commands: [], context: false, notifications: false, confirmations: false, presentation: false });
    expect(loadManifest(join(dir, "extension.toml")).path).toBe(join(dir, "extension.toml"));
    expect(loadManifest(manifest(set("api_version", '"0.4"'))).api_version).toBe("0.4");
    expect(loadManifest(manifest(set("api_version", '"0.3"'))).api_version).toBe("0.3"); // the canonical wire (test/api03/manifest.test.ts)
    // boundaries that are accepted
    expect(loadManifest(manifest(set("name", `"a${"b".repeat(63)}"`))).name).toHaveLength(64);
    expect(loadManifest(manifest(set("version", '"1.2.3-rc.1+build.5"'))).version).toBe("1.2.3-rc.1+build.5");
  });

  const cases: [string, string, string | RegExp][] = [
    ["a name with an upper-case letter", set("name", '"Bad"'), "`name` must match ^[a-z][a-z0-9-]{0,63}$"],
    ["a name starting with a digit", set("name", '"1ext"'), "`name` must match ^[a-z][a-z0-9-]{0,63}$"],
    ["a name with an underscore", set("name", '"my_ext"'), "`name` must match ^[a-z][a-z0-9-]{0,63}$"],
    ["a 65-byte name", set("name", `"a${"b".repeat(64)}"`), "`name` must match ^[a-z][a-z0-9-]{0,63}$"],
    ["an empty name", set("name", '""'), "`name` must match ^[a-z][a-z0-9-]{0,63}$"],
    ["no name", drop("name"), "`name` must match ^[a-z][a-z0-9-]{0,63}$"],
    ["no version", drop("version"), "`version` must be a SemVer version"],
    ["a two-part version", set("version", '"1.0"'), "`version` must be a SemVer version"],
    ["a version with a leading zero", set("version", '"01.0.0"'), "`version` must be a SemVer version"],
    ["no api_version", drop("api_version"), '`api_version` must be "0.1", "0.2", "0.3" or "0.4"'],
    ["api_version 0.5", set("api_version", '"0.5"'), '`api_version` must be "0.1", "0.2", "0.3" or "0.4"'],
    ["a numeric api_version", set("api_version", "0.2"), '`api_version` must be "0.1", "0.2", "0.3" or "0.4"'],
    ["no [entrypoint]", BASE.replace(/\[entrypoint\][^]*$/, ""), "`entrypoint` must be a table"],
    ["no entrypoint.command", BASE.replace('command = "extension"\n', 'args = []\n'), "`entrypoint.command` must be a non-blank string without control characters"],
    ["a blank command", BASE.replace('command = "extension"', 'command = "  "'), "`entrypoint.command` must be a non-blank string without control characters"],
    ["a command with a control character", BASE.replace('command = "extension"', 'command = "ext\\tension"'), "`entrypoint.command` must be a non-blank string without control characters"],
    ["args that are not strings", BASE + "args = [1]\n", "`entrypoint.args` must be an array of strings"],
    ["an arg with NUL", BASE + 'args = ["a\\u0000b"]\n', "`entrypoint.args` must not contain NUL bytes"],
    ["a bad env name", BASE + 'env = { "1BAD" = "x" }\n', "entrypoint.env name `1BAD` must match ^[A-Za-z_][A-Za-z0-9_]*$"],
    ["a non-string env value", BASE + "env = { GOOD = 1 }\n", "entrypoint.env.GOOD must be a string without NUL"],
    ["an unknown top-level key", "homepage = \"x\"\n" + BASE, "unknown key `homepage`"],
    ["the ygg spelling requires_ygg", 'requires_ygg = "=0.8.0"\n' + BASE, "unknown key `requires_ygg`"],
    ["an unknown [entrypoint] key", BASE + 'cwd = "/"\n', "unknown key `entrypoint.cwd`"],
    ["an unknown [capabilities] key", BASE + "[capabilities]\nshell = true\n", "unknown key `capabilities.shell`"],
    ["a bad filesystem capability", BASE + '[capabilities]\nfilesystem = "home"\n', "`capabilities.filesystem` must be none, workspace or unrestricted"],
    ["a bad secret name", BASE + '[capabilities]\nsecrets = ["bad name"]\n', "secret name `bad name` must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"],
    ["duplicate secrets", BASE + '[capabilities]\nsecrets = ["a", "a"]\n', "`capabilities.secrets` contains duplicates"],
    ["capabilities.environment on 0.1", set("api_version", '"0.1"') + '[capabilities]\nenvironment = ["SSH_AUTH_SOCK"]\n', "`capabilities.environment` requires api_version 0.2"],
    ["an unknown [contributes] key", BASE + "[contributes]\nwidgets = []\n", "unknown key `contributes.widgets`"],
    ["a bad tool name", BASE + '[contributes]\ntools = ["has space"]\n', "contributes.tools name `has space` must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"],
    ["duplicate tools", BASE + '[contributes]\ntools = ["a", "a"]\n', "`contributes.tools` contains duplicates"],
    ["a command with a leading slash", BASE + '[contributes]\ncommands = ["/go"]\n', "contributes.commands name `/go` must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"],
    ["an unknown hook", BASE + '[contributes]\nhooks = ["on_start"]\n', "unknown hook `on_start`"],
    ["an API 0.2 hook on 0.1", set("api_version", '"0.1"') + '[contributes]\nhooks = ["provider_retry"]\n', "hook `provider_retry` requires api_version 0.2"],
    ["an unknown ui surface", BASE + '[contributes]\nui = ["sidebar"]\n', "unknown ui surface `sidebar`"],
    ["a non-boolean flag", BASE + '[contributes]\nnotifications = "yes"\n', "contributes.notifications must be a boolean"],
    ["presentation on 0.1", set("api_version", '"0.1"') + "[contributes]\npresentation = true\n", "`contributes.presentation` requires api_version 0.2"],
    ["flags on 0.1", set("api_version", '"0.1"') + "[contributes]\nflags = []\n", "contributes.flags requires api_version 0.2"],
    ["an API 0.4 hook on 0.2", BASE + '[contributes]\nhooks = ["model_turn_start"]\n', "model_turn_start requires extension API 0.4"],
    ["invalid TOML", BASE + "[contributes\n", /^invalid TOML: /],
  ];
  for (const [title, text, message] of cases) {
    test(`refuses ${title}`, () => {
      const got = refusal(text);
      if (typeof message === "string") expect(got).toBe(message);
      else expect(got).toMatch(message);
    });
  }

  test("refuses a symlinked manifest and one over 256 KiB", () => {
    const target = manifest(BASE);
    const dir = join(tempDir("octet-manifest-"), "ext");
    mkdirSync(dir);
    symlinkSync(join(target, "extension.toml"), join(dir, "extension.toml"));
    expect(() => loadManifest(dir)).toThrow(ManifestError);
    expect(() => loadManifest(dir)).toThrow("the manifest must not be a symlink");
    expect(refusal(BASE + "#".repeat(256 * 1024) + "\n")).toBe("manifest exceeds 256 KiB");
    expect(loadManifest(manifest(BASE + "#".repeat(256 * 1024 - BASE.length - 1) + "\n")).name).toBe("good-ext");
  });

  test("TestHost.start refuses a bad manifest with ManifestError before launching anything", async () => {
    const dir = manifest(set("name", '"Bad"'));
    await expect(TestHost.start(dir)).rejects.toBeInstanceOf(ManifestError);
  });
});
