import { dirname, relative } from "node:path";
import { ToolError } from "./errors.ts";
import { declaredKinds } from "./kind-slots.ts";
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
  /** `tools.x` / `hooks.y` / `context` … handlers with no declaration. */
  orphans: string[];
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A new source file for an extension with no handlers yet. */
export function initialSource(m: AuthorManifest): string {
  return sourceWith(m, m.apiVersion === "0.3" ? ["  tools: {},"] : ["  tools: {},", "  commands: {},"], []);
}

/**
 * The source file for a project that has none: `initialSource` with a stub for
 * every declaration, exactly as `updateSource` would edit it in
 * (test/codegen/fresh-source.test.ts holds the two to the same text).
 */
export function freshSource(m: AuthorManifest): SourceUpdate {
  const added: string[] = [];
  const lines: string[] = [];
  for (const slot of declaredSlots(m)) {
    if ("single" in slot) {
      if (!slot.declared) continue;
      added.push(slot.single);
      lines.push(singleStubText(slot.single, "  ", m.name).slice(0, -1));
      continue;
    }
    const { section, names } = slot;
    if (names.length === 0) {
      if (section === "tools" || section === "commands") lines.push(`  ${section}: {},`);
      continue;
    }
    for (const name of names) added.push(`${section}.${name}`);
    lines.push(`  ${section}: {\n${names.map((name) => stubText(section, name, "    ", m.apiVersion)).join("")}  },`);
  }
  return { text: sourceWith(m, lines, stubTypeNames(added, m.apiVersion)), added, orphans: [] };
}

function sourceWith(m: AuthorManifest, handlerLines: string[], types: string[]): string {
  const gen = `./${relative(dirname(m.sourceFile), m.generatedFile)}`;
  return [
    `import { Extension${types.map((name) => `, type ${name}`).join("")} } from "octet-extension";`,
    `import { type Handlers, register } from "${gen.startsWith("./..") ? gen.slice(2) : gen}";`,
    "",
    "/** One handler per kind declared in manifest.toml (`bun run gen` adds stubs; docs/kinds.md). */",
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

/** The type each slot's stubs name as their return type, as the stub annotates it. */
const STUB_TYPES: Record<string, string> = { tools: RESULT_TYPE, hooks: "HookResult", ui: "StatusItem", context: "ContextEntry", tool_renderers: "RenderResult" };
/** API 0.3's: its tool result (no null, no diagnostics) and the session hooks' answer (docs/api-0.3.md). */
const STUB_TYPES_03: Record<string, string | string[]> = { tools: "ToolReturn03", hooks: "SessionHookReturn", migration: ["MigrationDetection", "MigrationImport"] };

/** The types the stubs in `added` name, to import from octet-extension, in order of first use. */
export function stubTypeNames(added: string[], api?: string): string[] {
  const names: string[] = [];
  for (const stub of added) {
    const wanted = (api === "0.3" ? STUB_TYPES_03 : STUB_TYPES)[stub.split(".")[0]!] ?? [];
    for (const name of typeof wanted === "string" ? [wanted] : wanted) if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** A property key that defines an own property whatever the name (`__proto__` needs a computed key). */
function propertyKey(name: string): string {
  if (name === "__proto__") return '["__proto__"]';
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** Slots holding one handler per name. */
export type Section = "tools" | "commands" | "shortcuts" | "hooks" | "ui" | "tool_renderers";
/** Slots holding one handler. */
export type Single = "menu" | "context" | "providers" | "migration";
export type Slot = { section: Section; names: string[] } | { single: Single; declared: boolean };

/** Every handler slot with what the manifest declares in it, in the order gen writes them (docs/kinds.md). */
export function declaredSlots(m: AuthorManifest): Slot[] {
  const kinds = declaredKinds(m);
  if (m.apiVersion === "0.3") {
    return [
      { section: "tools", names: m.tools.map((t) => t.name) },
      { section: "hooks", names: kinds.hooks },
      { single: "providers", declared: m.contributes.providers === true },
      { single: "migration", declared: m.migrationAdapter === true },
    ];
  }
  return [
    { section: "tools", names: m.tools.map((t) => t.name) },
    { section: "commands", names: m.commands.map((c) => c.name) },
    { section: "shortcuts", names: m.shortcuts.map((s) => s.name) },
    { single: "menu", declared: m.contributes.menu === true },
    { section: "hooks", names: kinds.hooks },
    { section: "ui", names: kinds.ui },
    { single: "context", declared: kinds.context },
    { section: "tool_renderers", names: kinds.renderers },
  ];
}

/** Each one-handler slot's stub: what its message calls it and its return annotation. */
const SINGLE_STUB: Record<"menu" | "context", [what: string, returns: string]> = {
  menu: ["the menu", ""],
  context: ["the context provider", ": Promise<ContextEntry[]>"],
};

/** The stub of a one-handler slot, each line indented by `indent`, ending in ",\n" (`name` names the provider stub's declaration). */
export function singleStubText(single: Single, indent: string, name = "provider"): string {
  if (single === "providers") return providerStub(name).map((line) => `${indent}${line}\n`).join("");
  if (single === "migration") return MIGRATION_STUB.map((line) => `${indent}${line}\n`).join("");
  const [what, returns] = SINGLE_STUB[single];
  return `${indent}${single}: async (params, ctx)${returns} => {\n${indent}  throw new Error("${what} is not implemented yet");\n${indent}},\n`;
}

/** API 0.3's provider stub: one model and a working echo stream (the last message's text). */
function providerStub(name: string): string[] {
  const id = JSON.stringify(name);
  return [
    "providers: {",
    "  declaration: {",
    `    id: ${id},`,
    `    label: ${id},`,
    "    models: [",
    "      {",
    '        id: "echo",',
    '        api_name: "echo",',
    '        protocol: "openai_chat",',
    "        context_window: 8192,",
    "        max_output_tokens: 1024,",
    "        capabilities: { tools: false, parallel_tool_calls: false, structured_output: false, reasoning: false },",
    "      },",
    "    ],",
    "  },",
    "  handlers: {",
    "    stream: async function* (request, ctx) {",
    "      const last = (request.request.messages as { content?: unknown }[] | undefined)?.at(-1)?.content;",
    '      yield { kind: "started", payload: {} };',
    '      yield { kind: "text_start", payload: { index: 0 } };',
    '      yield { kind: "text_delta", payload: { index: 0, delta: typeof last === "string" ? last : "" } };',
    '      yield { kind: "text_end", payload: { index: 0 } };',
    '      yield { kind: "finished", payload: { stop_reason: "end_turn" } };',
    "    },",
    "  },",
    "},",
  ];
}

/** API 0.3's migration adapter stub: detects nothing, imports nothing. */
const MIGRATION_STUB = [
  "migration: {",
  "  detect: async ({ sourceRoot }, ctx): Promise<MigrationDetection> => {",
  "    return { detected: false };",
  "  },",
  "  import: async ({ sourceRoot, configPaths }, ctx): Promise<MigrationImport> => {",
  "    return {};",
  "  },",
  "},",
];

/** Each section's stub: what its message calls a handler, its first parameter, its return annotation. */
const SECTION_STUB: Record<Section, [what: string, first: string, returns: (name: string) => string]> = {
  tools: ["tool", "args", () => `: Promise<${RESULT_TYPE}>`],
  commands: ["command", "args", () => ""],
  shortcuts: ["shortcut", "params", () => ""],
  hooks: ["hook", "payload", (name) => `: Promise<HookResult<${JSON.stringify(name)}>>`],
  ui: ["status item for surface", "params", (name) => `: Promise<StatusItem<${JSON.stringify(name)}> | null>`],
  tool_renderers: ["renderer of tool", "params", () => ": Promise<RenderResult>"],
};

/** API 0.3's return annotations (STUB_TYPES_03). */
const RETURNS_03: Partial<Record<Section, string>> = { tools: ": Promise<ToolReturn03>", hooks: ": Promise<SessionHookReturn>" };

/** A handler stub for `name` in `section`, each line indented by `indent`, ending in ",\n". */
export function stubText(section: Section, name: string, indent: string, api?: string): string {
  const [what, first, returnsOf] = SECTION_STUB[section];
  const returns = api === "0.3" && RETURNS_03[section] !== undefined ? () => RETURNS_03[section]! : returnsOf;
  const message = JSON.stringify(`${what} \`${name}\` is not implemented yet`);
  return `${indent}${propertyKey(name)}: async (${first}, ctx)${returns(name)} => {\n${indent}  throw new Error(${message});\n${indent}},\n`;
}
