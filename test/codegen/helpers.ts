import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { removeTemporaryDirectory, temporaryDirectory } from "octet-extension/testing";
import { join } from "node:path";
import ts from "typescript";
import { files } from "../../templates/create-octet-extension/scaffold.js";

export const REPO = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

const projects: string[] = [];

/** The tsconfig.json a scaffolded project has, taken from the initializer itself. */
export const TSCONFIG = files("project")["tsconfig.json"]!;

/** A fresh extension project directory named `name`, with octet-extension linked to this repo. */
export function project(name: string, manifest: string): string {
  const root = temporaryDirectory("octet-gen-");
  projects.push(root);
  const dir = join(root, name);
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(join(REPO, "src"), join(dir, "node_modules", "octet-extension"));
  mkdirSync(join(dir, "node_modules", "@types"));
  symlinkSync(join(REPO, "node_modules", "@types", "bun"), join(dir, "node_modules", "@types", "bun"));
  writeFileSync(join(dir, "manifest.toml"), manifest);
  writeFileSync(join(dir, "tsconfig.json"), TSCONFIG);
  return dir;
}

/** Type-check `files` with this repo's settings; returns the diagnostics' codes, texts and files. */
export function typecheck(files: string[]): { code: number; text: string; file?: string }[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: ["bun"],
    typeRoots: [join(REPO, "node_modules", "@types")],
    paths: { "octet-extension": [join(REPO, "src/index.ts")] },
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ({ code: d.code, text: ts.flattenDiagnosticMessageText(d.messageText, "\n"), file: d.file?.fileName }));
}

export const WEATHER = `name = "weather"
version = "0.1.0"
api_version = "0.2"
description = "Forecasts"

[tools.get_forecast]
description = "Get the forecast for a city"
parameters = { type = "object", properties = { city = { type = "string" }, days = { type = "integer", minimum = 1, maximum = 16 } }, required = ["city"] }

[commands.weather]
description = "Show the weather"
usage = "/weather [city]"

[contributes]
notifications = true
`;

/** Remove every project made so far (call from a file's afterAll: built bundles are ~100 MiB each). */
export function removeProjects(): void {
  for (const root of projects.splice(0)) removeTemporaryDirectory(root);
}

/** The WEATHER project on API 0.4, generated, with both handlers implemented ("Sunny in CITY", "ok"). */
export async function weatherProject04(): Promise<string> {
  const { gen } = await import("../../codegen/index.ts");
  const dir = project("weather", WEATHER.replace('api_version = "0.2"', 'api_version = "0.4"'));
  await gen(dir);
  const source = join(dir, "src/extension.ts");
  writeFileSync(
    source,
    readFileSync(source, "utf8")
      .replace(/get_forecast: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "get_forecast: (args) => `Sunny in ${args.city}`,")
      .replace(/weather: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, 'weather: () => "ok",'),
  );
  return dir;
}
