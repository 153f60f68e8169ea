/**
 * A migration adapter (API 0.3, `migration.adapter.v1`): octet asks whether a
 * directory holds another agent's configuration (`agent.json`), then imports
 * its models, stdio MCP servers and skills. Read-only; anything it cannot
 * carry over becomes a diagnostic.
 */
import { readFileSync, existsSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";
import { Extension, type MigrationDiagnostic, type MigrationImport } from "octet-extension";

const CONFIG = "agent.json";
const KNOWN = new Set(["models", "mcpServers", "skills"]);

const ext = new Extension();

/** A source-relative path that stays inside the source root, else undefined. */
function inside(root: string, path: string): string | undefined {
  const clean = normalize(path);
  return isAbsolute(clean) || clean.startsWith("..") ? undefined : join(root, clean);
}

ext.migration({
  detect: ({ sourceRoot }) => (existsSync(join(sourceRoot, CONFIG)) ? { detected: true, configPaths: [CONFIG] } : { detected: false }),

  import: ({ sourceRoot, configPaths }) => {
    const out: Required<MigrationImport> = { models: [], skills: [], mcpServers: [], diagnostics: [] };
    const warn = (path: string, reason: string, severity: MigrationDiagnostic["severity"] = "warning") => out.diagnostics.push({ path, severity, reason });
    for (const path of configPaths) {
      const file = inside(sourceRoot, path);
      if (!file || !existsSync(file)) {
        warn(path, "not a file inside the source root", "error");
        continue;
      }
      let config: Record<string, any>;
      try {
        config = JSON.parse(readFileSync(file, "utf8"));
      } catch (error) {
        warn(path, `not JSON: ${(error as Error).message}`, "error");
        continue;
      }
      for (const m of config.models ?? []) out.models.push({ path, provider: String(m.provider), model: String(m.model) });
      for (const [name, server] of Object.entries<any>(config.mcpServers ?? {})) {
        if (typeof server?.command !== "string") warn(path, `MCP server ${name} has no stdio command; only stdio servers are imported`);
        else out.mcpServers.push({ path, name, command: server.command, args: (server.args ?? []).map(String) });
      }
      for (const skill of config.skills ?? []) {
        const skillFile = inside(sourceRoot, skill);
        if (!skillFile || !existsSync(skillFile)) warn(skill, "skill file not found", "error");
        else out.skills.push({ path: skill, name: skill.replace(/^.*\//, "").replace(/\.md$/, ""), content: readFileSync(skillFile, "utf8") });
      }
      for (const key of Object.keys(config)) if (!KNOWN.has(key)) warn(path, `${key} has no octet equivalent and is not imported`);
    }
    return out;
  },
});

await ext.run();
