import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import type { ManifestFail } from "./errors.ts";
import { realPath } from "./links.ts";

/**
 * Where gen writes: `[source].file` (the author's handlers) and
 * `[source].generated` (the typed module), plus the argument validators
 * beside the generated module. Every path must stay inside the project, be
 * distinct from the others and from the manifests, and carry its suffix, so
 * no setting can make gen overwrite the author's code or write elsewhere.
 * "Inside" holds for the text and for the real path (symbolic links
 * resolved); the characters are limited to a safe set (docs/security.md).
 */
export interface SourcePaths {
  sourceFile: string;
  generatedFile: string;
  validatorsFile: string;
}

const RESERVED = ["manifest.toml", "extension.toml", "package.json", "tsconfig.json", "bunfig.toml", "extension"];
/** A source path goes into the dev entry point's shell script: no character the shell (or a reader) could misread. */
const SAFE_CHARACTER = /[A-Za-z0-9._/-]/;

const outside = (rel: string) => rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
const ownedTop = (rel: string) => ["node_modules", "dist"].find((top) => rel.split(sep)[0] === top);

export function sourcePaths(dir: string, source: Record<string, unknown>, fail: ManifestFail): SourcePaths {
  const realDir = realPath(dir) ?? dir;
  const inside = (key: string, value: unknown, fallback: string): string => {
    if (value !== undefined) {
      if (typeof value !== "string" || value.trim() === "") return fail(key, "must be a non-empty relative path", `e.g. ${key} = "${fallback}"`);
      const bad = [...value].find((c) => !SAFE_CHARACTER.test(c));
      if (bad !== undefined) return fail(key, `${JSON.stringify(value)} contains ${JSON.stringify(bad)}`, 'use only A-Z, a-z, 0-9, ".", "_", "-" and "/" in source paths');
      if (isAbsolute(value)) return fail(key, `${JSON.stringify(value)} is absolute`, "give a path relative to manifest.toml, inside the project");
    }
    const shown = JSON.stringify(value ?? fallback);
    const path = resolve(dir, (value as string | undefined) ?? fallback);
    const rel = relative(dir, path);
    if (outside(rel)) return fail(key, `${shown} is outside the project`, "keep it inside the directory that holds manifest.toml");
    const top = ownedTop(rel);
    if (top) return fail(key, `${shown} is inside ${top}/`, "keep sources out of node_modules/ and dist/");
    if (RESERVED.includes(rel)) return fail(key, `${shown} is a file the tooling owns`, "name a .ts file of your own");
    // gen writes here: where the path really leads, through any symbolic link, must be inside too.
    const real = realPath(path);
    if (real === undefined) return fail(key, `${shown} passes through a symbolic link that leads nowhere`, "remove the link or make it point inside the project");
    const realRel = relative(realDir, real);
    if (outside(realRel)) return fail(key, `${shown} is outside the project once symbolic links are resolved (${real})`, "keep sources in real directories inside the directory that holds manifest.toml");
    const realTop = ownedTop(realRel);
    if (realTop) return fail(key, `${shown} is inside ${realTop}/ once symbolic links are resolved`, "keep sources out of node_modules/ and dist/");
    return path;
  };
  const sourceFile = inside("source.file", source.file, "src/extension.ts");
  if (!sourceFile.endsWith(".ts") || sourceFile.endsWith(".gen.ts") || sourceFile.endsWith(".d.ts")) {
    fail("source.file", `${JSON.stringify(relative(dir, sourceFile))} is not a handwritten .ts file`, 'end it in ".ts" (not ".gen.ts" or ".d.ts"), e.g. "src/extension.ts"');
  }
  const defaultGenerated = relative(dir, sourceFile).replace(/\.ts$/, ".gen.ts");
  const generatedFile = inside("source.generated", source.generated, defaultGenerated);
  if (!generatedFile.endsWith(".gen.ts") || basename(generatedFile) === ".gen.ts") {
    fail("source.generated", `${JSON.stringify(relative(dir, generatedFile))} does not end in ".gen.ts"`, `generated files end in ".gen.ts", e.g. "${defaultGenerated}"`);
  }
  const validatorsFile = generatedFile.replace(/\.gen\.ts$/, ".validators.gen.ts");
  if (generatedFile === sourceFile || validatorsFile === sourceFile) fail("source.generated", "names the source file", "give the generated module its own path ending in .gen.ts");
  if (validatorsFile.endsWith(".validators.validators.gen.ts") || generatedFile.endsWith(".validators.gen.ts")) {
    fail("source.generated", `${JSON.stringify(relative(dir, generatedFile))} ends in ".validators.gen.ts", the validators' suffix`, `use e.g. "${defaultGenerated}"`);
  }
  return { sourceFile, generatedFile, validatorsFile };
}
