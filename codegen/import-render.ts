/**
 * manifest.toml's text for `octet-extension import`: the tables of
 * import-mapping.ts in the order docs/manifest.md shows them, a schema on one
 * line when it is short and as a table of dotted keys (one property a line)
 * when it is not.
 */
import { isObject, type JsonRecord } from "octet-extension/validation";
import { tomlKey, tomlPath, tomlString, tomlText, tomlValue } from "./toml-text.ts";

/** Longest `parameters = { … }` line kept inline. */
const INLINE_SCHEMA_CHARS = 100;
const TOP = ["name", "version", "api_version", "requires_octet", "description"];
/** The text of `manifest`, after the `header` comment lines. */
export function renderImportedManifest(manifest: JsonRecord, header: string[]): string {
  const out = [...header];
  for (const key of TOP) if (manifest[key] !== undefined) out.push(`${key} = ${key === "description" ? tomlText(manifest[key] as string) : tomlString(manifest[key] as string)}`);
  table(out, ["entrypoint"], manifest.entrypoint);
  table(out, ["capabilities"], manifest.capabilities);
  for (const [name, tool] of Object.entries((manifest.tools ?? {}) as JsonRecord)) toolTable(out, name, tool as JsonRecord);
  for (const kind of ["commands", "flags", "shortcuts"]) {
    for (const [name, entry] of Object.entries((manifest[kind] ?? {}) as JsonRecord)) table(out, [kind, name], entry);
  }
  for (const key of ["contributes", "runtime", "source"]) table(out, [key], manifest[key]);
  return `${out.join("\n")}\n`;
}

/** `[path]` and its keys, inline values below it (descriptions may span lines). */
function table(out: string[], path: string[], value: unknown): void {
  if (!isObject(value)) return;
  out.push("", `[${tomlPath(path)}]`);
  for (const [key, v] of Object.entries(value)) out.push(`${tomlKey(key)} = ${key === "description" && typeof v === "string" ? tomlText(v) : tomlValue(v)}`);
}

/** `[tools.NAME]`, then each schema inline, as a file path, or as its own table when long. */
function toolTable(out: string[], name: string, tool: JsonRecord): void {
  out.push("", `[${tomlPath(["tools", name])}]`, `description = ${tomlText(tool.description as string)}`);
  const long: [string, JsonRecord][] = [];
  for (const kind of ["parameters", "output_schema"]) {
    const schema = tool[kind];
    if (schema === undefined) continue;
    const line = `${kind} = ${tomlValue(schema)}`;
    if (!isObject(schema) || line.length <= INLINE_SCHEMA_CHARS) out.push(line);
    else long.push([kind, schema]);
  }
  for (const [kind, schema] of long) {
    out.push("", `[${tomlPath(["tools", name, kind])}]`);
    for (const [key, v] of Object.entries(schema)) {
      if (isObject(v) && Object.keys(v).length > 0) {
        for (const [sub, w] of Object.entries(v)) out.push(`${tomlPath([key, sub])} = ${tomlValue(w)}`);
      } else out.push(`${tomlKey(key)} = ${tomlValue(v)}`);
    }
  }
}
