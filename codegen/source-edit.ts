import { IndentationText, Node, Project, QuoteKind, type ObjectLiteralExpression, type SourceFile } from "ts-morph";
import { LIFECYCLE_METHODS } from "octet-extension/protocol";
import type { AuthorManifest } from "./manifest.ts";
import { declaredSlots, singleStubText, SourceError, type SourceUpdate, stubText, stubTypeNames } from "./source.ts";

/**
 * Keep the author's existing source file in step with the declarations, with
 * ts-morph: add a typed stub for each new declaration to the `handlers`
 * object, never touch an existing handler or any other code, and report
 * handlers whose declaration is gone (the type checker rejects them until
 * removed).
 */

/** Compute the edit of `text` (the current source) for the manifest's declarations. */
export function updateSource(m: AuthorManifest, text: string): SourceUpdate {
  const project = new Project({
    useInMemoryFileSystem: true,
    // Only syntax is checked and edited here: without the default lib files the program skips ~0.6 s of parsing.
    compilerOptions: { allowJs: false, noLib: true, types: [] },
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
  // Edits are computed on the original text and spliced in from the end, so
  // nothing but the inserted stubs (and a comma after the last handler) changes.
  const edits: { at: number; end: number; text: string }[] = [];
  const missingSections: string[] = [];
  for (const slot of declaredSlots(m)) {
    if ("single" in slot) {
      const present = handlers.getProperty(slot.single) !== undefined;
      if (slot.declared && !present) {
        added.push(slot.single);
        missingSections.push(singleStubText(slot.single, "", m.name));
      }
      if (!slot.declared && present) orphans.push(slot.single);
      continue;
    }
    const { section, names: declared } = slot;
    const object = sectionObject(handlers, section, m.sourceFile);
    const present = object ? new Set(object.getProperties().map((p) => propertyName(p, m.sourceFile)).filter((n): n is string => n !== undefined)) : new Set<string>();
    const missing = declared.filter((name) => !present.has(name));
    for (const name of missing) added.push(`${section}.${name}`);
    for (const name of present) if (!declared.includes(name)) orphans.push(`${section}.${name}`);
    if (missing.length === 0) continue;
    if (!object) {
      missingSections.push(`${section}: {\n${missing.map((name) => stubText(section, name, "  ", m.apiVersion)).join("")}},\n`);
      continue;
    }
    edits.push(...insertProperties(text, object, missing.map((name) => (indent: string) => stubText(section, name, indent, m.apiVersion))));
  }
  orphans.push(...lifecycleOrphans(m, handlers));
  edits.push(...typeImports(file, stubTypeNames(added, m.apiVersion)));
  if (missingSections.length > 0) {
    edits.push(...insertProperties(text, handlers, missingSections.map((block) => (indent: string) => block.replace(/^(?=.)/gm, indent))));
  }
  let next = text;
  for (const edit of edits.sort((a, b) => b.at - a.at)) next = next.slice(0, edit.at) + edit.text + next.slice(edit.end);
  return { text: next === text ? undefined : next, added, orphans };
}

/**
 * Edits that append properties (each rendered for the object's property
 * indentation, ending in ",\n") before the object's closing brace, adding a
 * comma after the last existing property when it has none.
 */
function insertProperties(text: string, object: ObjectLiteralExpression, render: ((indent: string) => string)[]): { at: number; end: number; text: string }[] {
  const open = object.getStart();
  const close = object.getEnd() - 1;
  const lineStart = (pos: number) => text.lastIndexOf("\n", pos - 1) + 1;
  const indentAt = (pos: number) => /^[ \t]*/.exec(text.slice(lineStart(pos)))![0];
  const properties = object.getProperties();
  const closeIndent = indentAt(close);
  const indent = properties.length > 0 ? indentAt(properties[0]!.getStart()) : `${closeIndent}  `;
  const body = render.map((r) => r(indent)).join("");
  const edits: { at: number; end: number; text: string }[] = [];
  // `{}` or `{ }`: the properties go on lines of their own.
  if (properties.length === 0 && text.slice(open + 1, close).trim() === "") return [{ at: open + 1, end: close, text: `\n${body}${closeIndent}` }];
  const last = properties[properties.length - 1];
  if (last && !object.compilerNode.properties.hasTrailingComma) edits.push({ at: last.getEnd(), end: last.getEnd(), text: "," });
  // Insert at the start of the closing brace's line when it is on a line of its own, else before the brace.
  const braceLine = lineStart(close);
  if (text.slice(braceLine, close).trim() === "" && braceLine > (last?.getEnd() ?? open)) edits.push({ at: braceLine, end: braceLine, text: body });
  else edits.push({ at: close, end: close, text: `\n${body}${closeIndent}` });
  return edits;
}

/**
 * Lifecycle observers are optional and not declared: an event octet does not
 * send is an orphan, and so is the whole slot before API 0.2.
 */
function lifecycleOrphans(m: AuthorManifest, handlers: ObjectLiteralExpression): string[] {
  const property = handlers.getProperty("lifecycle");
  if (!property) return [];
  if (m.apiVersion === "0.1" || m.apiVersion === "0.3") return ["lifecycle"];
  const value = Node.isPropertyAssignment(property) ? property.getInitializer() : undefined;
  if (!value || !Node.isObjectLiteralExpression(value)) return [];
  const names = value.getProperties().map((p) => propertyName(p, m.sourceFile)).filter((n): n is string => n !== undefined);
  return names.filter((name) => !(LIFECYCLE_METHODS as readonly string[]).includes(name)).map((name) => `lifecycle.${name}`);
}

/** The import the stubs need for their return types (`names`), but for names the file already has. */
function typeImports(file: SourceFile, names: string[]): { at: number; end: number; text: string }[] {
  const imports = file.getImportDeclarations();
  const named = imports.flatMap((i) => i.getNamedImports().map((n) => (n.getAliasNode() ?? n.getNameNode()).getText()));
  const wanted = names.filter((name) => !named.includes(name) && !file.getTypeAlias(name) && !file.getInterface(name));
  if (wanted.length === 0) return [];
  const kit = imports.find((i) => i.getModuleSpecifierValue() === "octet-extension" && i.getNamedImports().length > 0);
  if (kit) {
    const last = kit.getNamedImports().at(-1)!;
    return [{ at: last.getEnd(), end: last.getEnd(), text: wanted.map((name) => (kit.isTypeOnly() ? `, ${name}` : `, type ${name}`)).join("") }];
  }
  const line = `import type { ${wanted.join(", ")} } from "octet-extension";`;
  if (imports.length === 0) return [{ at: 0, end: 0, text: `${line}\n` }];
  const end = imports.at(-1)!.getEnd();
  const newline = file.getFullText().indexOf("\n", end);
  return newline === -1 ? [{ at: end, end, text: `\n${line}` }] : [{ at: newline + 1, end: newline + 1, text: `${line}\n` }];
}

function propertyName(node: Node, path: string): string | undefined {
  if (Node.isPropertyAssignment(node) || Node.isMethodDeclaration(node) || Node.isShorthandPropertyAssignment(node)) {
    const nameNode = node.getNameNode();
    if (Node.isComputedPropertyName(nameNode)) {
      const expression = nameNode.getExpression();
      if (Node.isStringLiteral(expression) || Node.isNoSubstitutionTemplateLiteral(expression)) return expression.getLiteralValue();
      return nameNode.getText();
    }
    const name = Node.isStringLiteral(nameNode) || Node.isNoSubstitutionTemplateLiteral(nameNode) ? nameNode.getLiteralValue() : nameNode.getText();
    if (name === "__proto__" && Node.isPropertyAssignment(node)) {
      const { line } = node.getSourceFile().compilerNode.getLineAndCharacterOfPosition(node.getStart());
      throw new SourceError(`${path}:${line + 1}: \`__proto__: …\` sets the object's prototype instead of adding a handler — write \`["__proto__"]: …\`; nothing was written`);
    }
    return name;
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
