import { dirname, relative } from "node:path";
import { ToolError } from "./errors.ts";
import type { AuthorManifest } from "./manifest.ts";

/**
 * The author's source file: written whole when there is none yet (here), or
 * kept in step with the declarations by `updateSource` (source-edit.ts, with
 * ts-morph, which takes ~0.5 s to load and is only loaded then).
 */

/** The source file could not be edited safely; nothing was written. */
export class SourceError extends ToolError {
  override name = "SourceError";
}

export interface SourceUpdate {
  /** New text, or undefined when nothing changes. */
  text: string | undefined;
  added: string[];
  /** `tools.x` / `commands.y` handlers with no declaration. */
  orphans: string[];
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A new source file for an extension with no handlers yet. */
export function initialSource(m: AuthorManifest): string {
  return sourceWith(m, ["  tools: {},", "  commands: {},"]);
}

/**
 * The source file for a project that has none: `initialSource` with a stub for
 * every declaration, exactly as `updateSource` would edit it in
 * (test/codegen/fresh-source.test.ts holds the two to the same text).
 */
export function freshSource(m: AuthorManifest): SourceUpdate {
  const added: string[] = [];
  const lines: string[] = [];
  const stubs = (section: Section, names: string[], indent: string) => {
    for (const name of names) added.push(`${section}.${name}`);
    return names.map((name) => stubText(section, name, indent)).join("");
  };
  const tools = m.tools.map((t) => t.name);
  const commands = m.commands.map((c) => c.name);
  const shortcuts = m.shortcuts.map((s) => s.name);
  lines.push(tools.length === 0 ? "  tools: {}," : `  tools: {\n${stubs("tools", tools, "    ")}  },`);
  lines.push(commands.length === 0 ? "  commands: {}," : `  commands: {\n${stubs("commands", commands, "    ")}  },`);
  if (shortcuts.length > 0) lines.push(`  shortcuts: {\n${stubs("shortcuts", shortcuts, "    ")}  },`);
  if (m.contributes.menu === true) {
    added.push("menu");
    lines.push(menuStubText("  ").slice(0, -1));
  }
  return { text: sourceWith(m, lines), added, orphans: [] };
}

function sourceWith(m: AuthorManifest, handlerLines: string[]): string {
  const gen = `./${relative(dirname(m.sourceFile), m.generatedFile)}`;
  return [
    `import { Extension${m.tools.length > 0 ? `, type ${RESULT_TYPE}` : ""} } from "octet-extension";`,
    `import { type Handlers, register } from "${gen.startsWith("./..") ? gen.slice(2) : gen}";`,
    "",
    "/** One handler per tool and command declared in manifest.toml (`bun run gen` adds stubs). */",
    "export const handlers = {",
    ...handlerLines,
    "} satisfies Handlers;",
    "",
    "await register(new Extension(), handlers).run();",
    "",
  ].join("\n");
}

/**
 * The return type of every tool stub: written out, it makes TypeScript check
 * the returned object's keys (`'isError' does not exist in type 'ToolResult'`),
 * which it does not do for a return type it only infers.
 */
export const RESULT_TYPE = "ToolReturn";

/** A property key that defines an own property whatever the name (`__proto__` needs a computed key). */
function propertyKey(name: string): string {
  if (name === "__proto__") return '["__proto__"]';
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

export type Section = "tools" | "commands" | "shortcuts";

/** The `menu` handler stub, each line indented by `indent`, ending in ",\n". */
export function menuStubText(indent: string): string {
  return `${indent}menu: async (params, ctx) => {\n${indent}  throw new Error("the menu is not implemented yet");\n${indent}},\n`;
}

/** A handler stub for `name` in `section`, each line indented by `indent`, ending in ",\n". */
export function stubText(section: Section, name: string, indent: string): string {
  const what = section === "tools" ? "tool" : section === "commands" ? "command" : "shortcut";
  const message = JSON.stringify(`${what} \`${name}\` is not implemented yet`);
  const first = section === "shortcuts" ? "params" : "args";
  const returns = section === "tools" ? `: Promise<${RESULT_TYPE}>` : "";
  return `${indent}${propertyKey(name)}: async (${first}, ctx)${returns} => {\n${indent}  throw new Error(${message});\n${indent}},\n`;
}
