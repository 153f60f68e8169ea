/** The test host's manifest reader on API 0.3 (docs/protocol-0.3.md §7). */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HostManifestError, loadManifest, temporaryDirectory } from "octet-extension/testing";
import { V03 } from "./raw.ts";

function manifest(contributes: string, extra = ""): string {
  const dir = temporaryDirectory("octet-v03-manifest-");
  writeFileSync(join(dir, "extension.toml"), `name = "m"\nversion = "1.0.0"\napi_version = "0.3"\n${extra}\n[entrypoint]\ncommand = "x"\n\n[contributes]\n${contributes}\n`);
  return dir;
}

describe("API 0.3 manifests", () => {
  test("the conformance fixture's 0.3 manifest loads, keeping the [contributes] table as declared", () => {
    const m = loadManifest(V03);
    expect(m.api_version).toBe("0.3");
    expect(m.contributes.providers).toBe(true);
    expect(m.contributes.hooks).toEqual(["session_start", "session_end"]);
    expect(m.contributesTable).toEqual({ tools: ["echo", "fail_error", "raise", "slow", "structured"], hooks: ["session_start", "session_end"], providers: true });
  });

  test("flags and capabilities.environment are allowed", () => {
    const m = loadManifest(manifest('tools = ["t"]\n[[contributes.flags]]\nname = "depth"\ntype = "integer"\ndefault = 3', '\n[capabilities]\nenvironment = ["XDG_DATA_HOME"]\n'));
    expect(m.contributes.flags).toEqual([{ name: "depth", type: "integer", default: 3 }]);
    expect(m.capabilities.environment).toEqual(["XDG_DATA_HOME"]);
  });

  const refused: [string, string, string][] = [
    ["commands", 'commands = ["c"]', "contributes.commands is not available on API 0.3 (octet refuses it at negotiation); declare api_version \"0.4\" to use it"],
    ["ui", 'ui = ["status"]', "contributes.ui is not available on API 0.3"],
    ["context", "context = true", "contributes.context is not available on API 0.3"],
    ["tool_renderers", 'tool_renderers = ["t"]', "contributes.tool_renderers is not available on API 0.3"],
    ["notifications", "notifications = true", "contributes.notifications is not available on API 0.3"],
    ["confirmations", "confirmations = true", "contributes.confirmations is not available on API 0.3"],
    ["presentation", "presentation = true", "contributes.presentation is not available on API 0.3"],
    ["menu", "menu = true", "contributes.menu is not available on API 0.3"],
    ["a legacy hook", 'hooks = ["before_prompt"]', "hook `before_prompt` is not available on API 0.3 (only session_start and session_end)"],
    ["one session hook of the pair", 'hooks = ["session_start"]', "API 0.3 session hooks are declared as a pair: add the other of session_start, session_end"],
    ["providers not a boolean", 'providers = "yes"', "contributes.providers must be a boolean"],
  ];
  for (const [name, line, message] of refused) {
    test(`${name} is refused in one line naming the manifest`, () => {
      const dir = manifest(`tools = ["t"]\n${line}`);
      let error: unknown;
      try {
        loadManifest(dir);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(HostManifestError);
      expect((error as Error).message.startsWith(`${join(dir, "extension.toml")}: ${message}`)).toBe(true);
      expect((error as Error).message).not.toContain("\n");
    });
  }

  test("empty refused keys are harmless (false, [])", () => {
    expect(loadManifest(manifest('tools = ["t"]\ncommands = []\ncontext = false')).api_version).toBe("0.3");
  });

  test("an unknown api_version names all four", () => {
    const dir = temporaryDirectory("octet-v03-manifest-");
    writeFileSync(join(dir, "extension.toml"), 'name = "m"\nversion = "1.0.0"\napi_version = "0.5"\n[entrypoint]\ncommand = "x"\n');
    expect(() => loadManifest(dir)).toThrow('`api_version` must be "0.1", "0.2", "0.3" or "0.4"');
  });
});
