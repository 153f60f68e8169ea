/** examples/config-importer: a migration adapter on API 0.3, driven by the strict test host (process level). */
import { afterEach, describe, expect, test } from "bun:test";
import { TestHost, temporaryDirectory } from "octet-extension/testing";

const DIR = new URL("../../examples/config-importer", import.meta.url).pathname;
const SOURCE = new URL("../../examples/config-importer/fixtures/other-agent", import.meta.url).pathname;
let host: TestHost;
afterEach(() => host?.kill());

describe("examples/config-importer (process level, API 0.3)", () => {
  test("selects migration.adapter.v1 and its two methods from octet's offer", async () => {
    host = await TestHost.start(DIR);
    const result = await host.initialize();
    expect((result.contract as any).capabilities).toEqual(["content_parts", "core", "migration.adapter.v1", "request_cancellation", "tool_call"]);
    expect((result.contract as any).methods).toEqual(["$/cancelRequest", "initialize", "migration/detect", "migration/import", "shutdown", "tool/call"]);
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("detect finds agent.json; an empty directory is not detected", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    expect(await host.services03!.migrationDetect(SOURCE)).toEqual({ config_paths: ["agent.json"], detected: true, diagnostics: [] });
    expect(await host.services03!.migrationDetect(temporaryDirectory("octet-empty-"))).toEqual({ config_paths: [], detected: false, diagnostics: [] });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("import converts models, the stdio MCP server and the skill, with a diagnostic for what has no equivalent", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    const imported = await host.services03!.migrationImport(SOURCE, ["agent.json", "../outside.json"]);
    expect(imported).toEqual({
      diagnostics: [
        { path: "agent.json", reason: "theme has no octet equivalent and is not imported", severity: "warning" },
        { path: "../outside.json", reason: "not a file inside the source root", severity: "error" },
      ],
      mcp_servers: [{ args: ["-y", "@modelcontextprotocol/server-filesystem", "."], command: "npx", name: "files", path: "agent.json" }],
      models: [
        { model: "qwen2.5-coder:7b", path: "agent.json", provider: "ollama" },
        { model: "claude-sonnet", path: "agent.json", provider: "anthropic" },
      ],
      skills: [{ content: "# Review\n\nRead the diff first, then comment on correctness before style.\n", name: "review", path: "skills/review.md" }],
    });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });
});
