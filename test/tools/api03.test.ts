/**
 * The tools on an API 0.3 extension (issue 27 part B3): a project generated
 * by the real CLI (`gen` on api_version = "0.3"), then `call` (a tool, both
 * session hooks), `conformance` (the canonical wire's probes), `inspect` and
 * `build` (the bundle under the test host), each a process talking canonical
 * frames to the extension.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestHost } from "octet-extension/testing";
import { project, removeProjects } from "../codegen/helpers.ts";

const CLI = new URL("../../codegen/cli.ts", import.meta.url).pathname;
const MANIFEST = `name = "notes"
version = "0.1.0"
api_version = "0.3"

[tools.add_note]
description = "Add a note"
parameters = { type = "object", properties = { text = { type = "string" } }, required = ["text"] }

[contributes]
hooks = ["session_start", "session_end"]
`;

afterAll(removeProjects);

function cli(dir: string, args: string[], stdin?: string): { code: number; out: string; err: string } {
  const run = Bun.spawnSync([process.execPath, CLI, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe", stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin) });
  return { code: run.exitCode ?? -1, out: run.stdout.toString(), err: run.stderr.toString() };
}

let generated: string | undefined;
/** The notes project, generated once by `octet-extension gen` and implemented. */
function notes(): string {
  if (generated) return generated;
  const dir = project("notes", MANIFEST);
  expect(cli(dir, ["gen"]).code).toBe(0);
  const source = join(dir, "src/extension.ts");
  writeFileSync(
    source,
    readFileSync(source, "utf8")
      .replace(/add_note: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "add_note: async (args) => ({ content: `noted ${args.text}`, metadata: { length: args.text.length } }),")
      .replace(/session_start: async \(payload, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, 'session_start: async (payload) => ({ kind: "defer", reason: `bound ${payload.binding.session_id}` }),')
      .replace(/session_end: async \(payload, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, "session_end: async (payload) => (payload.reason === \"crash\" ? { kind: \"deny\", reason: \"crashed\" } : undefined),"),
  );
  return (generated = dir);
}

describe("the tools on API 0.3", () => {
  test("call: a tool call answers with the 0.3 result (text, then metadata)", () => {
    expect(cli(notes(), ["call", "add_note", '{"text":"milk"}'])).toMatchObject({ code: 0, out: 'noted milk\n  metadata {"length":4}\n' });
  }, 60_000);

  test("call --hook: session_start with a filled-in binding, session_end with the payload given", () => {
    expect(cli(notes(), ["call", "--hook", "session_start", "--quiet"])).toMatchObject({ code: 0, out: "defer: bound call-session\n" });
    expect(cli(notes(), ["call", "--hook", "session_end", "--quiet"])).toMatchObject({ code: 0, out: "continue\n" });
    expect(cli(notes(), ["call", "--hook", "session_end", '{"reason":"crash"}', "--quiet"])).toMatchObject({ code: 0, out: "deny: crashed\n" });
  }, 60_000);

  test("conformance: the canonical wire's probes (malformed frames end the stream, the selected bounds, {\"terminal\":\"shutdown\"}) all pass", () => {
    const run = cli(notes(), ["conformance"]);
    const lines = run.out.trimEnd().split("\n");
    expect(lines[0]).toBe("octet-extension conformance: notes (API 0.3), entrypoint extension");
    expect(lines).toContain("PASS  CR in a frame          a frame ending in CRLF ends the stream unanswered, exit 0");
    expect(lines).toContain("PASS  non-canonical frame    a frame with whitespace (not canonical) ends the stream unanswered, exit 0");
    expect(lines).toContain("PASS  oversize frame         a frame over the selected max_frame_bytes ends the stream unanswered, exit 0");
    expect(lines).toContain("PASS  invalid UTF-8          a frame of invalid UTF-8 ends the stream unanswered, exit 0");
    expect(lines).toContain("PASS  selected in flight     4 concurrent calls all admitted and answered");
    expect(lines.find((l) => l.startsWith("PASS  shutdown"))).toMatch(/^PASS {2}shutdown {15}\{"terminal":"shutdown"\} then exit 0 in \d+ ms$/);
    expect(lines.at(-1)).toBe("11 checks: 11 passed, 0 failed, 0 skipped; 3/3 probes that call add_note exercised its handler");
    expect(run.code).toBe(0);
  }, 120_000);

  test("inspect: the 0.3 banner and the canonical initialize, then shutdown acknowledged with {\"terminal\":\"shutdown\"}", () => {
    const run = cli(notes(), ["inspect"], "");
    expect(run.out).toContain("notes · API 0.3");
    expect(run.out).toContain('"contract":{"capabilities":["content_parts","core","lifecycle_events","request_cancellation","tool_call"]');
    expect(run.out).toContain('← {"id":2,"jsonrpc":"2.0","result":{"terminal":"shutdown"}}');
    expect(run.out).toContain("extension exited with status 0");
  }, 60_000);

  test("build: the standalone bundle answers a tool call and a session hook under the test host's 0.3 mode, without Bun on PATH", async () => {
    const dir = notes();
    const run = cli(dir, ["build", "--requires-octet", "=0.8.0"]);
    expect(run.err).not.toContain("error");
    expect(run.code).toBe(0);
    expect(readFileSync(join(dir, "dist/notes/extension.toml"), "utf8")).toContain('api_version = "0.3"');
    const host = await TestHost.start(join(dir, "dist/notes"), { env: { PATH: "/usr/bin:/bin", HOME: process.env.HOME }, addBunToPath: false });
    try {
      await host.initialize();
      expect(await host.callTool("add_note", { text: "milk" })).toEqual({ content: [{ type: "text", text: "noted milk" }], is_error: false, metadata: { length: 4 } });
      const binding = { session_id: "s1", extension_instance_id: "i1", process_generation: 1 };
      expect(await host.runSessionHook("session_start", { binding })).toEqual({ disposition: { kind: "defer", reason: "bound s1" } });
      expect(await host.shutdown()).toBe(0);
      expect(host.violations).toEqual([]);
    } finally {
      host.kill();
    }
  }, 180_000);

  test("dev --once: builds and installs the 0.3 extension into the extensions directory, where it answers under the test host's 0.3 mode", async () => {
    const dir = notes();
    const into = mkdtempSync(join(tmpdir(), "octet-dev-03-"));
    try {
      const run = cli(dir, ["dev", "--into", into, "--once"]);
      expect(run.code).toBe(0);
      expect(readdirSync(into)).toEqual(["notes"]);
      expect(readFileSync(join(into, "notes/extension.toml"), "utf8")).toContain('api_version = "0.3"');
      const host = await TestHost.start(join(into, "notes"));
      try {
        await host.initialize();
        expect(await host.callTool("add_note", { text: "tea" })).toEqual({ content: [{ type: "text", text: "noted tea" }], is_error: false, metadata: { length: 3 } });
        expect(await host.shutdown()).toBe(0);
        expect(host.violations).toEqual([]);
      } finally {
        host.kill();
      }
    } finally {
      rmSync(into, { recursive: true, force: true });
    }
  }, 180_000);
});
