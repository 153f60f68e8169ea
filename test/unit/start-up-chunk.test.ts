/**
 * `octet-extension build` compiles with `--splitting` (issue 28): the code the start-up loads is the
 * entry chunk and the chunks it imports statically. API 0.3's engine, the host calls off the hot
 * path, the session machinery and the request side of a session are dynamic imports, so they must stay out of it (each KB
 * loaded costs cold start).
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ENTRY = new URL("../../bench/sdk-extension.ts", import.meta.url).pathname;

/** Text that only each lazily loaded module holds. */
const LAZY = {
  "services.ts": "input prompt must contain non-whitespace text",
  "agents.ts": "agent target must be a non-blank string",
  "session-services.ts": "entry data must be JSON",
  "catalog-changes.ts": "tool names must be non-blank strings",
  "resource-calls.ts": "export a value of a type registered with ext.resourceType",
  "presentation-publisher.ts": "must be above the last published one",
  "v03/canonical-extension.ts": "a migration adapter is already registered",
  "checked-tool-result.ts": "tool result content must not be empty",
  "progress.ts": "progress output stream must be stdout or stderr",
  // Re-exported by the package index only: src/package.json's `sideEffects` lets the bundler leave it out.
  "diagnostics.ts": "related entries are {message, location}",
  // The request side: loaded once the initialize reply is out (Connection holds what arrives meanwhile).
  "request-table.ts": "cancelled handler finished after its reply",
  "methods.ts": "command arguments must be an array",
  "menu.ts": "a menu level may recommend at most one item",
  "session-hooks.ts": "session hooks cannot add prompt context",
  "results.ts": "value must be JSON of at most 16 KiB",
  // The session machinery: loaded once the initialize reply is out (src/runtime/first-reply.ts writes it).
  "serve.ts": "stdin ended while the host was not reading stdout",
  "connection.ts": "ignored late or unknown response",
  "frame-writer.ts": "protocol stream is closed: ",
  "replies.ts": "invalid protocol input",
  "line-splitter.ts": "unterminated",
  // Required on first use (src/runtime/lazy-modules.ts, src/wire/stdio.ts): not loaded at start-up.
  "host-session.ts": "progress requires a numeric parent request id",
  "host-requests.ts": "host cancelled extension request",
  "catalog.ts": "invalid dynamic tool catalog response",
  "host-handle.ts": "waitForIdle:",
  "stray-output.ts": "/octet-${",
  // Required by initialize only when the host offers bulk_objects_v1 (src/runtime/initialize.ts).
  "bulk.ts": "the offer is not a local-file.v1 offer",
  // Required by the registry only for `ext.resourceType()`, a tool's `operation` and the values behind refs.
  "resources.ts": "resource/dispose lists a resource twice",
};

test("the start-up chunks hold none of the lazily loaded modules; the build holds all of them", async () => {
  const out = mkdtempSync(join(tmpdir(), "octet-chunks-"));
  try {
    const built = await Bun.build({ entrypoints: [ENTRY], outdir: out, splitting: true, minify: true, target: "bun", format: "esm" });
    expect(built.success).toBe(true);
    const text = (path: string) => readFileSync(path, "utf8");
    const entry = built.outputs.find((o) => o.kind === "entry-point")!;
    // The start-up: the entry and every chunk reachable from it through static imports.
    const startUp = new Set<string>([entry.path]);
    for (const path of startUp) {
      for (const [, name] of text(path).matchAll(/(?:import|from)\s*"\.\/([^"]+\.js)"/g)) startUp.add(join(out, name!));
    }
    const startUpText = [...startUp].map(text).join("\n");
    const everything = built.outputs.map((o) => text(o.path)).join("\n");
    for (const [module, marker] of Object.entries(LAZY)) {
      expect({ module, inBuild: everything.includes(marker) }).toEqual({ module, inBuild: true });
      expect({ module, atStartUp: startUpText.includes(marker) }).toEqual({ module, atStartUp: false });
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
