import { describe, expect, test } from "bun:test";
import type { AuthorManifest } from "../../codegen/manifest.ts";
import { updateSource } from "../../codegen/source-edit.ts";
import { freshSource, initialSource } from "../../codegen/source.ts";

/**
 * `gen` writes the source file of a project that has none without loading
 * ts-morph (`freshSource`). It must be the very text the ts-morph path
 * (`updateSource` on `initialSource`) produces, with the same report.
 */
function manifest(tools: string[], commands: string[], shortcuts: string[], menu: boolean, sourceFile = "/p/src/extension.ts", generatedFile = "/p/src/extension.gen.ts"): AuthorManifest {
  return {
    sourceFile,
    generatedFile,
    tools: tools.map((name) => ({ name })),
    commands: commands.map((name) => ({ name })),
    shortcuts: shortcuts.map((name) => ({ name })),
    contributes: menu ? { menu: true } : {},
  } as unknown as AuthorManifest;
}

function viaTsMorph(m: AuthorManifest) {
  const base = initialSource(m);
  const update = updateSource(m, base);
  return { text: update.text ?? base, added: update.added, orphans: update.orphans };
}

const NAMES = ["get_forecast", "weather", "x", "with-dash", "__proto__", "constructor", "9lives", "a_b_c", "$dollar", "ünïcode"];

describe("fresh source file", () => {
  test("is the text and report of the ts-morph edit, for every mix of declarations", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const pick = () => NAMES.filter(() => random() < 0.3);
    const cases: AuthorManifest[] = [
      manifest([], [], [], false),
      manifest(["only"], [], [], false),
      manifest([], ["cmd"], [], false),
      manifest([], [], ["key"], false),
      manifest([], [], [], true),
      manifest(["a"], ["b"], ["c"], true, "/p/src/main.ts", "/p/generated/ext.gen.ts"),
      manifest(["a"], [], [], false, "/p/lib/deep/extension.ts", "/p/extension.gen.ts"),
    ];
    for (let i = 0; i < 40; i++) cases.push(manifest(pick(), pick(), pick(), random() < 0.5));
    for (const m of cases) expect(freshSource(m)).toEqual(viaTsMorph(m));
  });
});
