import type { HandlerContext } from "../types.ts";
import { WireError } from "./canonical-errors.ts";
import type { CanonicalService } from "./canonical-registry.ts";
import { checkModel } from "./validate.ts";

/** `MigrationDiagnostic`: a finding about one source path (reason ≤ 4,096 bytes). */
export interface MigrationDiagnostic {
  path: string;
  severity: "warning" | "error";
  reason: string;
}

/** What `detect` returns: whether the source root holds a configuration this adapter reads, and where. */
export interface MigrationDetection {
  detected: boolean;
  /** Source-relative paths of the configuration files (≤ 128, each ≤ 4,096 bytes). */
  configPaths?: string[];
  diagnostics?: MigrationDiagnostic[];
}

/** A model the other agent used (`provider`, `model` ≤ 128 bytes each). */
export interface MigrationModel {
  path: string;
  provider: string;
  model: string;
}

/** A skill to import (`content` ≤ 131,072 bytes). */
export interface MigrationSkill {
  path: string;
  name: string;
  content: string;
}

/** A stdio MCP server (`command` ≤ 4,096 bytes, each argument ≤ 16,384, ≤ 128 arguments). */
export interface MigrationMcpServer {
  path: string;
  name: string;
  command: string;
  args: string[];
}

/** What `import` returns; each list holds at most 128 items and may be left out (= empty). */
export interface MigrationImport {
  models?: MigrationModel[];
  skills?: MigrationSkill[];
  mcpServers?: MigrationMcpServer[];
  diagnostics?: MigrationDiagnostic[];
}

/** A migration adapter (`migration.adapter.v1`): read-only detection and conversion of another agent's setup. */
export interface MigrationAdapter {
  detect(input: { sourceRoot: string }, ctx: HandlerContext): MigrationDetection | Promise<MigrationDetection>;
  import(input: { sourceRoot: string; configPaths: string[] }, ctx: HandlerContext): MigrationImport | Promise<MigrationImport>;
}

/** Check an adapter at registration: both functions present. */
export function checkMigrationAdapter(adapter: unknown): MigrationAdapter {
  const a = adapter as Partial<MigrationAdapter> | null;
  if (a === null || typeof a !== "object" || typeof a.detect !== "function" || typeof a.import !== "function") {
    throw new Error("ext.migration() needs { detect: async ({ sourceRoot }) => …, import: async ({ sourceRoot, configPaths }) => … }");
  }
  return a as MigrationAdapter;
}

/**
 * `migration/detect` and `migration/import`, selected whenever an adapter is
 * registered and octet offers `migration.adapter.v1`. The author's camelCase
 * answer becomes the wire model and is held to it: a wrong shape is `-32603`,
 * a bound (items, bytes) `-32012`, each naming the field.
 */
export function migrationService(adapter: MigrationAdapter): CanonicalService {
  return {
    selection: () => ({ capabilities: ["migration.adapter.v1"], methods: ["migration/detect", "migration/import"] }),
    async request(method, params, ctx) {
      const p = params as { source_root: string; config_paths?: string[] };
      if (method === "migration/detect") {
        const answer = await adapter.detect({ sourceRoot: p.source_root }, ctx);
        const a = object(answer, "detect");
        return checked("MigrationDetectResult", { config_paths: a.configPaths ?? [], detected: a.detected, diagnostics: a.diagnostics ?? [] }, "detect");
      }
      const answer = await adapter.import({ sourceRoot: p.source_root, configPaths: [...(p.config_paths ?? [])] }, ctx);
      const a = object(answer, "import");
      return checked("MigrationImportResult", { diagnostics: a.diagnostics ?? [], mcp_servers: a.mcpServers ?? [], models: a.models ?? [], skills: a.skills ?? [] }, "import");
    },
  };
}

function object(value: unknown, what: string): Record<string, any> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new WireError("internal_error", `the migration adapter's ${what} must return an object`);
  const allowed = what === "detect" ? ["detected", "configPaths", "diagnostics"] : ["models", "skills", "mcpServers", "diagnostics"];
  for (const key of Object.keys(value)) if (!allowed.includes(key)) throw new WireError("internal_error", `the migration adapter's ${what} returned an unknown key ${JSON.stringify(key)} (allowed: ${allowed.join(", ")})`);
  return value as Record<string, any>;
}

/** The wire result, held to its model; shape errors become `-32603`, bounds keep `-32012`. */
function checked(model: string, value: Record<string, unknown>, what: string): Record<string, unknown> {
  try {
    checkModel(model, value, `migration ${what} result`);
  } catch (error) {
    if (error instanceof WireError && error.kind !== "resource_exhausted") throw new WireError("internal_error", error.detail);
    throw error;
  }
  return value;
}
