import { describe, expect, test } from "bun:test";
import type { AuthorManifest } from "../../codegen/manifest.ts";
import { updateSource } from "../../codegen/source-edit.ts";
import { freshSource, initialSource } from "../../codegen/source.ts";

/**
 * `gen` writes the source file of a project that has none without loading
 * ts-morph (`freshSource`). It must be the very text the ts-morph path
 * (`updateSource` on `initialSource`) produces, with the same report.
 */
/** The `[contributes]` kinds with handlers (docs/kinds.md). */
interface Kinds {
  hooks?: string[];
  ui?: string[];
  context?: boolean;
  tool_renderers?: string[];
}

function manifest(tools: string[], commands: string[], shortcuts: string[], menu: boolean, sourceFile = "/p/src/extension.ts", generatedFile = "/p/src/extension.gen.ts", kinds: Kinds = {}): AuthorManifest {
  return {
    apiVersion: "0.4",
    sourceFile,
    generatedFile,
    tools: tools.map((name) => ({ name })),
    commands: commands.map((name) => ({ name })),
    shortcuts: shortcuts.map((name) => ({ name })),
    contributes: { ...(menu ? { menu: true } : {}), ...kinds },
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
      manifest([], [], [], false, undefined, undefined, { hooks: ["before_prompt"], ui: ["status", "footer"], context: true, tool_renderers: ["a"] }),
      manifest(["a"], ["b"], [], true, undefined, undefined, { context: true }),
    ];
    const hooks = ["before_prompt", "after_tool_call", "cache_warming_decision", "session_tree"];
    const surfaces = ["status", "header", "footer"];
    for (let i = 0; i < 40; i++) {
      const kinds = { hooks: hooks.filter(() => random() < 0.3), ui: surfaces.filter(() => random() < 0.3), context: random() < 0.5, tool_renderers: pick() };
      cases.push(manifest(pick(), pick(), pick(), random() < 0.5, undefined, undefined, kinds));
    }
    for (const m of cases) expect(freshSource(m)).toEqual(viaTsMorph(m));
  });
});
