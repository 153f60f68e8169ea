/**
 * The declarations of `manifest.toml`: one `[tools.NAME]` table per tool (its
 * description, JSON Schemas and validation switch) and one `[commands.NAME]`
 * table per command (docs/manifest.md).
 */
import { checkOutputSchema, IDENT, MAX_CATALOG_TOOLS } from "octet-extension/protocol";
import { isObject, type JsonRecord, unknownKey } from "octet-extension/validation";
import type { ManifestFail } from "./errors.ts";
import { closeObjects } from "./closed-objects.ts";
import { checkParameters, loadSchema } from "./schema.ts";

export const TOOL_KEYS = ["description", "parameters", "output_schema", "validate"];
export const COMMAND_KEYS = ["description", "usage"];

export interface ToolSpec {
  name: string;
  description: string;
  /** As written, with object schemas closed (closed-objects.ts): what the types, the validator and octet get. */
  parameters: JsonRecord;
  outputSchema?: JsonRecord;
  /** Check each call's arguments against `parameters` before the handler runs (default true). */
  validate: boolean;
}

export interface CommandSpec {
  name: string;
  description: string;
  usage?: string;
}

/** `[tools.*]`, in file order; schema files are read relative to `dir`. */
export function checkTools(value: unknown, api: "0.1" | "0.2" | "0.3" | "0.4", dir: string, fail: ManifestFail): ToolSpec[] {
  const tools = tableOfTables(value, "tools", fail).map(([toolName, spec]) => {
    if (!IDENT.test(toolName)) fail(`tools.${toolName}`, "is not a valid tool name", "use ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$");
    const extra = unknownKey(spec, TOOL_KEYS);
    if (extra !== undefined) fail(`tools.${toolName}.${extra}`, "unknown key", `allowed: ${TOOL_KEYS.join(", ")}`);
    if (typeof spec.description !== "string" || spec.description.trim() === "") fail(`tools.${toolName}.description`, "is missing or blank", "describe what the tool does for the model");
    if (spec.validate !== undefined && typeof spec.validate !== "boolean") fail(`tools.${toolName}.validate`, "must be true or false", "set validate = false only if the handler checks its own arguments");
    const parameters = loadSchema(spec.parameters, `tools.${toolName}.parameters`, dir, fail) ?? { type: "object" };
    checkParameters(parameters, `tools.${toolName}.parameters`, fail);
    const tool: ToolSpec = { name: toolName, description: spec.description as string, parameters: closeObjects(parameters), validate: spec.validate !== false };
    if (spec.output_schema !== undefined) {
      if (api === "0.1") fail(`tools.${toolName}.output_schema`, "requires api_version 0.2", 'remove it or set api_version = "0.4" (or "0.2")');
      const schema = loadSchema(spec.output_schema, `tools.${toolName}.output_schema`, dir, fail)!;
      try {
        checkOutputSchema(schema);
      } catch (error) {
        fail(`tools.${toolName}.output_schema`, (error as Error).message.replace(/^output_schema\.?/, "at "), "use only the bounded JSON Schema subset (docs/manifest.md)");
      }
      tool.outputSchema = schema;
    }
    return tool;
  });
  if (tools.length > MAX_CATALOG_TOOLS) fail("tools", `declares ${tools.length} tools`, `at most ${MAX_CATALOG_TOOLS} tools are allowed`);
  return tools;
}

/** `[commands.*]`, in file order. */
export function checkCommands(value: unknown, fail: ManifestFail): CommandSpec[] {
  return tableOfTables(value, "commands", fail).map(([commandName, spec]) => {
    if (!IDENT.test(commandName)) fail(`commands.${commandName}`, "is not a valid command name", "use ^[A-Za-z_][A-Za-z0-9_.-]{0,63} (no leading /)");
    const extra = unknownKey(spec, COMMAND_KEYS);
    if (extra !== undefined) fail(`commands.${commandName}.${extra}`, "unknown key", `allowed: ${COMMAND_KEYS.join(", ")}`);
    if (typeof spec.description !== "string" || spec.description.trim() === "") fail(`commands.${commandName}.description`, "is missing or blank", "describe the command");
    if (spec.usage !== undefined && typeof spec.usage !== "string") fail(`commands.${commandName}.usage`, "must be a string", 'e.g. usage = "/name [args]"');
    const command: CommandSpec = { name: commandName, description: spec.description as string };
    if (spec.usage !== undefined) command.usage = spec.usage as string;
    return command;
  });
}

/** `[key.NAME]` sections as `[NAME, table]` pairs (none when `key` is absent). */
export function tableOfTables(value: unknown, key: string, fail: ManifestFail): [string, JsonRecord][] {
  if (value === undefined) return [];
  if (!isObject(value)) return fail(key, "must be a table of tables", `write [${key}.NAME] sections`);
  return Object.entries(value).map(([name, spec]) => {
    if (!isObject(spec)) return fail(`${key}.${name}`, "must be a table", `write [${key}.${name}] with a description`);
    return [name, spec] as [string, JsonRecord];
  });
}
