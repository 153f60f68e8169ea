/**
 * An API 0.2 extension whose tools come and go at runtime, as an MCP bridge's
 * do when the server's tool list changes. The "server" here is a JSON file in
 * the workspace, `.octet/dynamic-tools.json`:
 *
 *   {"tools": [{"name": "greet", "description": "Greet someone", "template": "Hello, {name}!",
 *               "parameters": {"type": "object", "properties": {"name": {"type": "string"}}}}]}
 *
 * `sync_catalog` (or `/catalog sync`) publishes the file's tools with one
 * `tools/register` and removes vanished ones with one `tools/unregister`; each
 * published tool fills its template from the call's arguments. `/catalog`
 * reports the committed revision and the live tools.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Extension, type JsonObject } from "octet-extension";

const ext = new Extension({ apiVersion: "0.2" });
/** Dynamic tools this extension published, with the template they fill. */
const published = new Map<string, string>();

interface ToolSpec {
  name: string;
  description: string;
  template: string;
  parameters?: JsonObject;
}

function readSpecs(workspace: string): ToolSpec[] {
  const path = join(workspace, ".octet", "dynamic-tools.json");
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  const tools = (raw as { tools?: unknown }).tools;
  if (!Array.isArray(tools)) throw new Error(`${path}: expected {"tools": [...]}`);
  return tools.map((tool, i) => {
    const t = tool as Partial<ToolSpec>;
    if (typeof t.name !== "string" || typeof t.description !== "string" || typeof t.template !== "string") {
      throw new Error(`${path}: tools[${i}] needs string name, description and template`);
    }
    return t as ToolSpec;
  });
}

const fill = (template: string, args: Record<string, unknown>) => template.replace(/\{(\w+)\}/g, (_, key: string) => String(args[key] ?? ""));

/** Mirror the file into the catalog: register current tools, unregister vanished ones. */
async function sync(workspace: string): Promise<string> {
  const specs = readSpecs(workspace);
  const lines: string[] = [];
  if (specs.length > 0) {
    const update = await ext.tools.register(
      specs.map((spec) => ({
        name: spec.name,
        description: spec.description,
        parameters: spec.parameters ?? { type: "object" },
        handler: (args: Record<string, unknown>) => fill(spec.template, args),
      })),
    );
    for (const spec of specs) if (update.tools.includes(spec.name)) published.set(spec.name, spec.template);
    lines.push(`registered ${specs.length} at revision ${update.revision}`);
  }
  const gone = [...published.keys()].filter((name) => !specs.some((s) => s.name === name));
  if (gone.length > 0) {
    const update = await ext.tools.unregister(gone);
    for (const name of gone) published.delete(name);
    lines.push(`removed ${gone.join(", ")} at revision ${update.revision}`);
  }
  return lines.join("; ") || "nothing to publish";
}

ext.tool({ name: "sync_catalog", description: "Publish the tools listed in .octet/dynamic-tools.json" }, async (_args, ctx) =>
  sync(String(ctx.context.workspace ?? ext.workspace)),
);

ext.command({ name: "catalog", description: "Show or sync the dynamic tool catalog", usage: "/catalog [sync]" }, async (args, ctx) => {
  if (args[0] === "sync") return { text: await sync(String(ctx.context.workspace ?? ext.workspace)) };
  const names = [...published.keys()].sort();
  return { text: `revision ${ext.tools.revision}: ${names.length ? names.join(", ") : "no dynamic tools"}` };
});

await ext.run();
