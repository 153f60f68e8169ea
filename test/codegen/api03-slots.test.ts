/**
 * API 0.3's provider and migration slots (issue 27): `contributes.providers =
 * true` and the author-side `[migration] adapter = true` give `Handlers` a
 * required `providers` / `migration` slot typed with the runtime's types, gen
 * writes stubs that compile (the provider's a working echo stream), a missing
 * slot is a type error naming it, and `register` wires both so the project
 * serves them under the test host's 0.3 mode.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadManifest, TestHost } from "octet-extension/testing";
import { gen } from "../../codegen/index.ts";
import type { AuthorManifest } from "../../codegen/manifest.ts";
import { updateSource } from "../../codegen/source-edit.ts";
import { freshSource, initialSource } from "../../codegen/source.ts";
import { project, removeProjects, typecheck } from "./helpers.ts";

afterAll(removeProjects);

/** A model provider with a migration adapter, a tool and the session pair. */
const MODELS03 = `name = "models"
version = "0.1.0"
api_version = "0.3"

[tools.add_note]
description = "Add a note"
parameters = { type = "object", properties = { text = { type = "string" } }, required = ["text"] }

[contributes]
hooks = ["session_start", "session_end"]
providers = true

[migration]
adapter = true
`;

describe("gen on API 0.3: the provider and migration slots", () => {
  test("the stubs appear, type-check, and [migration] stays out of extension.toml", async () => {
    const dir = project("models", MODELS03);
    await gen(dir);
    const source = readFileSync(join(dir, "src/extension.ts"), "utf8");
    expect(source).toContain("  providers: {\n    declaration: {\n");
    expect(source).toContain("    handlers: {\n      stream: async function* (request, ctx) {\n");
    expect(source).toContain('yield { kind: "finished", payload: { stop_reason: "end_turn" } };');
    expect(source).toContain("  migration: {\n    detect: async ({ sourceRoot }, ctx): Promise<MigrationDetection> => {\n");
    const module = readFileSync(join(dir, "src/extension.gen.ts"), "utf8");
    expect(module).toContain("  providers: ProviderSlot;");
    expect(module).toContain("  migration: MigrationAdapter;");
    expect(module).toContain("stream: ProviderStreamHandler;");
    expect(module).toContain("ext.provider(handlers.providers.declaration, handlers.providers.handlers);");
    expect(module).toContain("ext.migration(handlers.migration);");
    expect(typecheck([join(dir, "src/extension.ts")])).toEqual([]);
    const host = readFileSync(join(dir, "extension.toml"), "utf8");
    expect(host).not.toContain("migration");
    expect(loadManifest(dir).contributes.providers).toBe(true);
  }, 60_000);

  test("a fresh source and the ts-morph edit of an existing one agree on the 0.3 slots", () => {
    for (const [providers, migrationAdapter] of [[true, true], [true, false], [false, true]]) {
      const m = { name: "models", apiVersion: "0.3", sourceFile: "/p/src/extension.ts", generatedFile: "/p/src/extension.gen.ts", tools: [{ name: "t" }], commands: [], shortcuts: [], contributes: { providers, hooks: ["session_start", "session_end"] }, migrationAdapter } as unknown as AuthorManifest;
      const base = initialSource(m);
      const update = updateSource(m, base);
      expect(freshSource(m)).toEqual({ text: update.text ?? base, added: update.added, orphans: update.orphans });
      expect(update.added).toEqual(["tools.t", "hooks.session_start", "hooks.session_end", ...(providers ? ["providers"] : []), ...(migrationAdapter ? ["migration"] : [])]);
    }
  });

  test("a missing slot is a type error naming it", async () => {
    const dir = project("models", MODELS03);
    await gen(dir);
    const path = join(dir, "src/extension.ts");
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.replace(/\n {2}providers: \{[\s\S]*?\n {2}\},/, ""));
    expect(typecheck([path]).map((d) => d.text).join("\n")).toContain("Property 'providers' is missing");
    writeFileSync(path, text.replace(/\n {2}migration: \{[\s\S]*?\n {2}\},/, ""));
    expect(typecheck([path]).map((d) => d.text).join("\n")).toContain("Property 'migration' is missing");
    writeFileSync(path, text.replace(/\n {6}stream: async function\*[\s\S]*?\n {6}\},/, ""));
    expect(typecheck([path]).map((d) => d.text).join("\n")).toContain("Property 'stream' is missing");
  }, 90_000);

  test("the project runs under the test host's 0.3 mode: the provider registers and streams the stub's echo, the adapter answers migration/detect", async () => {
    const dir = project("models", MODELS03);
    await gen(dir);
    const path = join(dir, "src/extension.ts");
    writeFileSync(
      path,
      readFileSync(path, "utf8").replace(
        /detect: async \(\{ sourceRoot \}, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/,
        'detect: async ({ sourceRoot }) => ({ detected: sourceRoot.endsWith("other-agent"), configPaths: ["config.json"] }),',
      ),
    );
    expect(typecheck([path])).toEqual([]);
    const host = await TestHost.start(dir);
    try {
      await host.initialize();
      await Bun.sleep(200);
      expect(host.providers.catalog.completed).toBe(true);
      expect([...host.providers.catalog.providers]).toEqual([["models", ["echo"]]]);
      const outcome = await host.providers.stream({ provider_id: "models", model_id: "echo", request: { messages: [{ role: "user", content: "hello" }] } });
      expect(outcome.accepted).toBe(true);
      expect(outcome.ended).toBe("finished");
      expect(outcome.events.map((e) => [e.kind, e.payload])).toEqual([
        ["started", {}],
        ["text_start", { index: 0 }],
        ["text_delta", { index: 0, delta: "hello" }],
        ["text_end", { index: 0 }],
        ["finished", { stop_reason: "end_turn" }],
      ]);
      expect(await host.services03!.migrationDetect("/tmp/other-agent")).toEqual({ config_paths: ["config.json"], detected: true, diagnostics: [] });
      expect(await host.shutdown()).toBe(0);
      expect(host.violations).toEqual([]);
    } finally {
      host.kill();
    }
  }, 60_000);
});
