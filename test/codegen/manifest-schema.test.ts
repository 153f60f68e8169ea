/**
 * `manifest.schema.json` (what editors read through the scaffold's `#:schema`
 * line) and gen judge manifests alike: every manifest in the repo, the docs'
 * examples, the scaffold's, and a corpus of good and bad ones. What JSON
 * Schema cannot say (GEN_ONLY, docs/manifest.md "Checked by gen only") is
 * kept out of the agreement and held to its own verdicts: gen refuses, the
 * schema accepts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTemporaryDirectory, temporaryDirectory } from "octet-extension/testing";
import { AuthorManifestError, gen, loadAuthorManifest } from "../../codegen/index.ts";
import { files } from "../../templates/create-octet-extension/scaffold.js";
import { BAD, GEN_ONLY, GOOD } from "./manifest-corpus.ts";
import { project, removeProjects, REPO, typecheck } from "./helpers.ts";

const SCHEMA_FILE = join(REPO, "codegen/manifest.schema.json");
const DIRECTIVE = "#:schema ./node_modules/octet-extension-tools/manifest.schema.json";

const dir = temporaryDirectory("octet-manifest-schema-");
mkdirSync(join(dir, "schemas"));
// Schema files the corpus and the docs' example name (their existence is checked by gen only).
writeFileSync(join(dir, "schemas/args.json"), '{"type":"object","properties":{"who":{"type":"string"}}}');
writeFileSync(join(dir, "schemas/forecast-result.json"), '{"type":"object","properties":{"summary":{"type":"string"}}}');

afterAll(() => {
  removeTemporaryDirectory(dir);
  removeProjects();
});

let compiled: ValidateFunction | undefined;

/** The schema's verdict on a manifest (parsed by the same TOML parser gen uses), compiled by Ajv in strict mode. */
function schemaErrors(toml: string): ErrorObject[] {
  compiled ??= new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(JSON.parse(readFileSync(SCHEMA_FILE, "utf8")));
  return compiled(Bun.TOML.parse(toml)) ? [] : [...(compiled.errors ?? [])];
}

/** gen's verdict: the key its error names, or undefined when it accepts the manifest. */
function genRefusal(toml: string): string | undefined {
  writeFileSync(join(dir, "manifest.toml"), toml);
  try {
    loadAuthorManifest(dir);
    return undefined;
  } catch (error) {
    if (error instanceof AuthorManifestError) return error.key;
    throw error;
  }
}

const explain = (errors: ErrorObject[]) => errors.map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");

/** Every `manifest.toml` in the repo, the scaffold's, and every TOML example in the docs that is a manifest. */
function repoManifests(): [string, string][] {
  const out: [string, string][] = [];
  const listed = Bun.spawnSync(["git", "ls-files", "--cached", "*manifest.toml"], { cwd: REPO, stdout: "pipe" }).stdout.toString();
  for (const path of listed.split("\n").filter((p) => p.endsWith("/manifest.toml") || p === "manifest.toml")) out.push([path, readFileSync(join(REPO, path), "utf8")]);
  out.push(["scaffold (bun create)", files("corpus")["manifest.toml"]!], ["scaffold (npm create)", files("corpus", { withBun: true })["manifest.toml"]!]);
  const markdown = ["README.md", "codegen/README.md", "templates/create-octet-extension/README.md", ...readdirSync(join(REPO, "docs")).map((f) => `docs/${f}`)].filter((f) => f.endsWith(".md"));
  for (const file of markdown) {
    const text = readFileSync(join(REPO, file), "utf8");
    for (const [index, block] of [...text.matchAll(/```toml\n([\s\S]*?)```/g)].entries()) {
      if (/^api_version\s*=/m.test(block[1]!)) out.push([`${file} toml block ${index + 1}`, block[1]!]);
    }
  }
  return out;
}

describe("manifest.schema.json", () => {
  test("the committed file is what codegen/manifest-schema.ts generates from gen's tables", async () => {
    const { manifestSchemaText } = await import("../../codegen/manifest-schema.ts");
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(manifestSchemaText());
    expect(JSON.parse(manifestSchemaText()).$schema).toBe("http://json-schema.org/draft-07/schema#");
  });

  test("every manifest in the repo (scaffold, docs examples, manifest.toml files) is accepted by gen and the schema", () => {
    const manifests = repoManifests();
    expect(manifests.map(([where]) => where)).toEqual(expect.arrayContaining(["scaffold (bun create)", "docs/manifest.md toml block 1"]));
    for (const [where, toml] of manifests) {
      expect({ where, gen: genRefusal(toml), schema: explain(schemaErrors(toml)) }).toEqual({ where, gen: undefined, schema: "" });
    }
  });

  test.each(GOOD)("good: %s", (_label, toml) => {
    expect({ gen: genRefusal(toml), schema: explain(schemaErrors(toml)) }).toEqual({ gen: undefined, schema: "" });
  });

  // Four columns in every row: the schema's table defaults to the top-level table of gen's key.
  const bad = BAD.map(([label, toml, key, schemaAt]) => [label, toml, key, schemaAt ?? `/${key.split(".")[0]}`] as const);
  test.each(bad)("bad: %s", (_label, toml, key, table) => {
    expect(genRefusal(toml)).toBe(key);
    const errors = schemaErrors(toml);
    expect(errors).not.toEqual([]);
    // Refused for the same reason: some error lies in the table gen named.
    const paths = errors.map((e) => `${e.instancePath}/${(e.params as { additionalProperty?: string; missingProperty?: string }).additionalProperty ?? (e.params as { missingProperty?: string }).missingProperty ?? ""}`);
    expect(paths.some((p) => p === table || p.startsWith(`${table}/`)) ? table : paths).toBe(table);
  });

  test.each(GEN_ONLY)("checked by gen only: %s", (_label, toml, key) => {
    expect(genRefusal(toml)).toBe(key);
    // If the schema learns to refuse this, move the case into BAD and out of docs/manifest.md's list.
    expect(explain(schemaErrors(toml))).toBe("");
  });

  test("docs/manifest.md lists what only gen checks", () => {
    const docs = readFileSync(join(REPO, "docs/manifest.md"), "utf8");
    const section = docs.split("## Checked by gen only")[1]?.split("\n## ")[0] ?? "";
    for (const phrase of ["parameters", "output_schema", "schema files", "shortcut", "bytes", "[source]"]) expect(section).toContain(phrase);
  });
});

describe("the scaffold points editors at the schema", () => {
  test("its manifest.toml begins with the #:schema directive, and gen reads past it", async () => {
    const manifest = files("weather")["manifest.toml"]!;
    expect(manifest.split("\n")[0]).toBe(DIRECTIVE);
    const projectDir = project("weather", manifest);
    expect(loadAuthorManifest(projectDir).tools.map((t) => t.name)).toEqual(["hello"]);
    await gen(projectDir);
    expect(readFileSync(join(projectDir, "extension.toml"), "utf8")).toContain('name = "weather"');
    expect(typecheck([join(projectDir, "src/extension.ts")])).toEqual([]);
  }, 30_000);

  test("npm pack of octet-extension-tools ships manifest.schema.json where the directive points", () => {
    const run = Bun.spawnSync(["npm", "pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: join(REPO, "codegen"), stdout: "pipe", stderr: "pipe" });
    expect(run.exitCode).toBe(0);
    const [pack] = JSON.parse(run.stdout.toString()) as { name: string; files: { path: string }[] }[];
    const target = DIRECTIVE.replace("#:schema ./node_modules/", "");
    expect(`${pack!.name}/manifest.schema.json`).toBe(target);
    expect(pack!.files.map((f) => f.path)).toContain("manifest.schema.json");
    const pkg = JSON.parse(readFileSync(join(REPO, "codegen/package.json"), "utf8"));
    expect(pkg.exports["./manifest.schema.json"]).toBe("./manifest.schema.json");
  }, 30_000);
});
