import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import type { ManifestFail } from "./errors.ts";

/**
 * Where gen writes: `[source].file` (the author's handlers) and
 * `[source].generated` (the typed module), plus the argument validators
 * beside the generated module. Every path must stay inside the project, be
 * distinct from the others and from the manifests, and carry its suffix, so
 * no setting can make gen overwrite the author's code or write elsewhere.
 */
export interface SourcePaths {
  sourceFile: string;
  generatedFile: string;
  validatorsFile: string;
}

const RESERVED = ["manifest.toml", "extension.toml", "package.json", "tsconfig.json", "bunfig.toml", "extension"];

export function sourcePaths(dir: string, source: Record<string, unknown>, fail: ManifestFail): SourcePaths {
  const inside = (key: string, value: unknown, fallback: string): string => {
    if (value === undefined) return resolve(dir, fallback);
    if (typeof value !== "string" || value.trim() === "") return fail(key, "must be a non-empty relative path", `e.g. ${key} = "${fallback}"`);
    if (isAbsolute(value)) return fail(key, `${JSON.stringify(value)} is absolute`, "give a path relative to manifest.toml, inside the project");
    const path = resolve(dir, value);
    const rel = relative(dir, path);
    if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return fail(key, `${JSON.stringify(value)} is outside the project`, "keep it inside the directory that holds manifest.toml");
    const top = rel.split(sep)[0];
    if (top === "node_modules" || top === "dist") return fail(key, `${JSON.stringify(value)} is inside ${top}/`, "keep sources out of node_modules/ and dist/");
    if (RESERVED.includes(rel)) return fail(key, `${JSON.stringify(value)} is a file the tooling owns`, "name a .ts file of your own");
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
