import { dirname, relative } from "node:path";
import { IndentationText, Node, Project, QuoteKind, type ObjectLiteralExpression, type SourceFile, type WriterFunction } from "ts-morph";
import type { AuthorManifest } from "./manifest.ts";

/**
 * Keep the author's source file in step with the declarations, with ts-morph:
 * add a typed stub for each new tool or command to the `handlers` object,
 * never touch an existing handler or any other code, and report handlers
 * whose declaration is gone (the type checker rejects them until removed).
 */

/** The source file could not be edited safely; nothing was written. */
export class SourceError extends Error {
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
  const gen = `./${relative(dirname(m.sourceFile), m.generatedFile)}`;
  return [
    `import { Extension } from "octet-extension";`,
    `import { type Handlers, register } from "${gen.startsWith("./..") ? gen.slice(2) : gen}";`,
    "",
    "/** One handler per tool and command declared in manifest.toml (`bun run gen` adds stubs). */",
    "export const handlers = {",
    "  tools: {},",
    "  commands: {},",
    "} satisfies Handlers;",
    "",
    "await register(new Extension(), handlers).run();",
    "",
  ].join("\n");
}

/** Compute the edit of `text` (the current source) for the manifest's declarations. */
export function updateSource(m: AuthorManifest, text: string): SourceUpdate {
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: { allowJs: false },
    manipulationSettings: { indentationText: IndentationText.TwoSpaces, quoteKind: QuoteKind.Double },
  });
  const file = project.createSourceFile("/source.ts", text);
  const syntax = project.getProgram().compilerObject.getSyntacticDiagnostics(file.compilerNode);
  if (syntax.length > 0) {
    const first = syntax[0]!;
    const { line, character } = file.compilerNode.getLineAndCharacterOfPosition(first.start ?? 0);
    const message = typeof first.messageText === "string" ? first.messageText : first.messageText.messageText;
    throw new SourceError(`${m.sourceFile}:${line + 1}:${character + 1}: ${message} — fix the syntax error; nothing was written`);
  }
  const handlers = handlersObject(file, m.sourceFile);
  const added: string[] = [];
  const orphans: string[] = [];
  const sections: ["tools" | "commands", string[]][] = [
    ["tools", m.tools.map((t) => t.name)],
    ["commands", m.commands.map((c) => c.name)],
  ];
  for (const [section, declared] of sections) {
    let object = sectionObject(handlers, section, m.sourceFile);
    if (!object) {
      if (declared.length === 0) continue;
      handlers.addPropertyAssignment({ name: section, initializer: "{}" });
      object = sectionObject(handlers, section, m.sourceFile)!;
    }
    const present = new Set(object.getProperties().map(propertyName).filter((n): n is string => n !== undefined));
    for (const name of declared) {
      if (present.has(name)) continue;
      object.addPropertyAssignment({ name: IDENTIFIER.test(name) ? name : JSON.stringify(name), initializer: stub(section, name) });
      added.push(`${section}.${name}`);
    }
    for (const name of present) if (!declared.includes(name)) orphans.push(`${section}.${name}`);
  }
  const next = file.getFullText();
  return { text: next === text ? undefined : next, added, orphans };
}

function stub(section: "tools" | "commands", name: string): WriterFunction {
  const what = section === "tools" ? "tool" : "command";
  const message = JSON.stringify(`${what} \`${name}\` is not implemented yet`);
  return (writer) => writer.write("async (args, ctx) => {").newLine().write(`  throw new Error(${message});`).newLine().write("}");
}

function propertyName(node: Node): string | undefined {
  if (Node.isPropertyAssignment(node) || Node.isMethodDeclaration(node) || Node.isShorthandPropertyAssignment(node)) {
    const nameNode = node.getNameNode();
    if (Node.isStringLiteral(nameNode) || Node.isNoSubstitutionTemplateLiteral(nameNode)) return nameNode.getLiteralValue();
    return nameNode.getText();
  }
  return undefined;
}

function handlersObject(file: SourceFile, path: string): ObjectLiteralExpression {
  const declaration = file.getVariableDeclaration("handlers");
  if (!declaration) {
    throw new SourceError(`${path}: no \`handlers\` object found — add \`export const handlers = { tools: {}, commands: {} } satisfies Handlers;\``);
  }
  let initializer = declaration.getInitializer();
  while (initializer && (Node.isSatisfiesExpression(initializer) || Node.isAsExpression(initializer) || Node.isParenthesizedExpression(initializer))) {
    initializer = initializer.getExpression();
  }
  if (!initializer || !Node.isObjectLiteralExpression(initializer)) {
    throw new SourceError(`${path}: \`handlers\` must be initialised with an object literal ({ tools: {...}, commands: {...} })`);
  }
  return initializer;
}

function sectionObject(handlers: ObjectLiteralExpression, section: string, path: string): ObjectLiteralExpression | undefined {
  const property = handlers.getProperty(section);
  if (!property) return undefined;
  if (!Node.isPropertyAssignment(property)) throw new SourceError(`${path}: \`handlers.${section}\` must be written as \`${section}: { ... }\``);
  const value = property.getInitializer();
  if (!value || !Node.isObjectLiteralExpression(value)) throw new SourceError(`${path}: \`handlers.${section}\` must be an object literal`);
  return value;
}
