/** The same `Extension` on API 0.3: what it refuses at registration, and how its tool results look on the wire. */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";
import { Extension } from "octet-extension";
import { canon, defaultOffer } from "./raw.ts";

const SRC = new URL("../../src/index.ts", import.meta.url).pathname;
const BUN = process.execPath;

/** Run `body` (TypeScript after `const ext = new Extension();`) as an extension process under OCTET_EXTENSION_API_VERSION=0.3. */
function launch(body: string, env: Record<string, string> = {}) {
  const dir = temporaryDirectory("octet-v03-author-");
  const file = join(dir, "extension.ts");
  writeFileSync(file, `import { Extension, RpcError } from ${JSON.stringify(SRC)};\nconst ext = new Extension();\n${body}\nawait ext.run();\n`);
  return Bun.spawn([BUN, "--no-env-file", file], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", OCTET_EXTENSION_API_VERSION: "0.3", OCTET_EXTENSION_NAME: "author", OCTET_EXTENSION_SCRATCH: dir, ...env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
}

function initialize(tools: string[], contributes: Record<string, unknown> = {}) {
  const params = {
    api_version: "0.3",
    capabilities: { filesystem: "workspace", network: false, process: false },
    contract: { ...defaultOffer(), limits: { max_concurrent_requests: 64, max_frame_bytes: 1048576, max_tools: 256 } },
    contributes: { tools, ...contributes },
    extension: { name: "author", source: "explicit", version: "1.0.0" },
    flag_values: [{ name: "depth", value: 3 }],
    host: { label: "café" },
    octet_version: "0.8.0",
    workspace: "/workspace",
  };
  return `${canon({ id: 1, jsonrpc: "2.0", method: "initialize", params })}\n`;
}

describe("registration refusals name API 0.3 in one line", () => {
  const quiet = () => new Extension({ apiVersion: "0.3", handleUncaught: false, logOutput: () => {} });
  const refused: [string, (ext: Extension) => unknown][] = [
    ["ext.command()", (ext) => ext.command({ name: "c", description: "d" }, () => "x")],
    ["ext.context()", (ext) => ext.context(() => [])],
    ["ext.status()", (ext) => ext.status("status", () => null)],
    ["ext.renderer()", (ext) => ext.renderer("t", () => null)],
    ["ext.menu()", (ext) => ext.menu(() => ({ title: "m", items: [] }))],
    ["ext.shortcut()", (ext) => ext.shortcut("s", () => "x")],
    ["ext.onLifecycle()", (ext) => ext.onLifecycle("turn/settled", () => {})],
    ["ext.resourceType()", (ext) => ext.resourceType("db.connection")],
    ["this hook", (ext) => ext.hook("before_prompt", () => null)],
    ["promptSnippet", (ext) => ext.tool({ name: "t", description: "d", promptSnippet: "x" }, () => "x")],
    ["operation", (ext) => ext.tool({ name: "t", description: "d", operation: { inputs: [], outputs: [] } as any }, () => "x")],
  ];
  for (const [call, register] of refused) {
    test(`${call} is refused`, () => {
      const ext = quiet();
      let message = "";
      try {
        register(ext);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain("is not available on extension API 0.3");
      expect(message).toContain('declare api_version "0.4"');
      expect(message).not.toContain("\n");
    });
  }

  test("a float in a tool's parameters schema is refused: API 0.3 sends it canonically", () => {
    expect(() => quiet().tool({ name: "t", description: "d", parameters: { type: "number", multipleOf: 0.5 } }, () => "x")).toThrow(
      "tool `t` parameters: parameters.multipleOf: 0.5 is not an integer (API 0.3 has no floating-point numbers) (API 0.3 sends it as octet-canonical-json-v1)",
    );
  });

  test("apiVersion \"0.3\" in the constructor wins over the environment; tools, session hooks and onShutdown register", () => {
    const ext = quiet();
    expect(ext.apiVersion).toBe("0.3");
    ext.tool({ name: "t", description: "d" }, () => "x");
    ext.hook("session_start", () => ({ kind: "continue" }));
    ext.hook("session_end", () => undefined);
    ext.onShutdown(() => {});
    expect(() => ext.hook("session_start", () => undefined)).toThrow("hook `session_start` is already registered");
  });

  test("process level: ext.command() under OCTET_EXTENSION_API_VERSION=0.3 ends the process with one structured line", async () => {
    const proc = launch(`ext.command({ name: "deploy", description: "Deploy" }, () => "x");`);
    expect(await proc.exited).toBe(1);
    const lines = (await new Response(proc.stderr).text()).trim().split("\n");
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!);
    expect(record.level).toBe("error");
    expect(JSON.stringify(record)).toContain('ext.command() is not available on extension API 0.3 (the canonical wire has tools, the session_start/session_end hooks, providers, migration adapters, session lifecycle and the event bus); declare api_version \\"0.4\\" to use it');
    expect(await new Response(proc.stdout).text()).toBe("");
  });
});

describe("octet's own initialize fixtures", () => {
  // protocol/fixtures/extension-api-v0.3/initialize-request.json and initialize-response.json (octet), byte for byte
  const REQUEST =
    '{"api_version":"0.3","capabilities":{"filesystem":"workspace","network":false,"process":false},"contract":{"encoding":"octet-canonical-json-v1","limits":{"max_concurrent_requests":4,"max_frame_bytes":1048576,"max_tools":256},"optional_capabilities":["lifecycle_events","migration.adapter.v1","provider_auth","provider_catalog","provider_stream"],"optional_methods":["hook/run","migration/detect","migration/import","provider/auth/request","provider/auth/revoke","provider/cancel","provider/event","provider/stream","providers/complete","providers/register","providers/unregister","providers/update"],"required_capabilities":["content_parts","core","request_cancellation","tool_call"],"required_methods":["$/cancelRequest","initialize","shutdown","tool/call"],"schema":"octet.extension.api/0.3"},"contributes":{"tools":["echo"]},"extension":{"name":"fixture","source":"explicit","version":"0.3.0"},"flag_values":[{"name":"fixture-count","value":3},{"name":"fixture-enabled","value":true}],"host":{"label":"café"},"octet_version":"0.7.0","workspace":"/workspace"}';
  const RESPONSE =
    '{"api_version":"0.3","contract":{"capabilities":["content_parts","core","request_cancellation","tool_call"],"encoding":"octet-canonical-json-v1","limits":{"max_concurrent_requests":4,"max_frame_bytes":1048576,"max_tools":256},"methods":["$/cancelRequest","initialize","shutdown","tool/call"],"schema":"octet.extension.api/0.3"},"tools":[{"description":"Return the supplied value.","name":"echo","parameters":{"additionalProperties":false,"properties":{"value":{"type":"string"}},"required":["value"],"type":"object"}}]}';

  test("an extension with octet's fixture tool answers octet's fixture offer with octet's fixture response, byte for byte", async () => {
    const proc = launch(`
      ext.tool({ name: "echo", description: "Return the supplied value.", parameters: { type: "object", properties: { value: { type: "string" } }, required: ["value"], additionalProperties: false } },
        (args) => ({ content: args.value, structured_content: { value: args.value }, metadata: {} }));
    `);
    const stdin = proc.stdin as import("bun").FileSink;
    stdin.write(`{"id":1,"jsonrpc":"2.0","method":"initialize","params":${REQUEST}}\n`);
    stdin.write(`${canon({ id: 2, jsonrpc: "2.0", method: "tool/call", params: { arguments: { value: "hello" }, context: { workspace: "/workspace" }, name: "echo" } })}\n`);
    stdin.flush();
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (out.split("\n").length < 3) out += new TextDecoder().decode((await reader.read()).value);
    stdin.end();
    const [initialize, call] = out.trim().split("\n");
    expect(initialize).toBe(`{"id":1,"jsonrpc":"2.0","result":${RESPONSE}}`);
    // octet's tool-call-result fixture value, in canonical form
    expect(call).toBe('{"id":2,"jsonrpc":"2.0","result":{"content":[{"text":"hello","type":"text"}],"is_error":false,"metadata":{},"structured_content":{"value":"hello"}}}');
    expect(await proc.exited).toBe(0);
  });
});

describe("tool results on the wire", () => {
  test("strings, result objects, typed tools, invalid arguments, host services and media parts", async () => {
    const proc = launch(`
      ext.tool({ name: "plain", description: "d" }, () => "hi");
      ext.tool({ name: "object", description: "d" }, () => ({ content: "text", metadata: { k: 1 } }));
      ext.tool({ name: "nulls", description: "d" }, () => ({ content: [{ type: "text", text: "a" }], structured_content: null }));
      ext.typedTool({ name: "typed", description: "d", outputSchema: { type: "object" } }, () => ({ n: 2 }), (v) => "n=" + v.n);
      ext.tool({ name: "checked", description: "d" }, () => "never", { validate: () => [{ path: "/x", rule: "required", message: "is required" }] });
      ext.tool({ name: "notify", description: "d" }, async () => { await ext.notify("x"); return "sent"; });
      ext.tool({ name: "image", description: "d" }, () => ({ content: [{ type: "image", artifact_id: "a", mime_type: "image/png" }] }));
      ext.tool({ name: "float", description: "d" }, () => ({ content: "x", metadata: { ratio: 0.5 } }));
      ext.tool({ name: "unknown_field", description: "d" }, () => ({ content: "x", isError: true }));
      ext.tool({ name: "rpc", description: "d" }, () => { throw new RpcError(-32602, "city is required", { field: "city" }); });
      ext.tool({ name: "flags", description: "d" }, () => JSON.stringify(ext.flags));
    `);
    const names = ["plain", "object", "nulls", "typed", "checked", "notify", "image", "float", "unknown_field", "rpc", "flags"];
    const stdin = proc.stdin as import("bun").FileSink;
    stdin.write(initialize(names));
    names.forEach((name, i) => stdin.write(`${canon({ id: i + 2, jsonrpc: "2.0", method: "tool/call", params: { arguments: {}, context: {}, name } })}\n`));
    stdin.flush();
    // shutdown cancels what is unsettled, so it goes only after every reply is in
    let out = "";
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    while (out.split("\n").length <= names.length + 1) out += new TextDecoder().decode((await reader.read()).value);
    stdin.write(`${canon({ id: 99, jsonrpc: "2.0", method: "shutdown", params: {} })}\n`);
    stdin.end();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out += new TextDecoder().decode(chunk.value);
    expect(await proc.exited).toBe(0);
    const lines = out.trim().split("\n");
    const byId = new Map(lines.map((l) => [JSON.parse(l).id, l]));
    const result = (id: number, body: unknown) => canon({ id, jsonrpc: "2.0", result: body });
    const error = (id: number, body: unknown) => canon({ error: body, id, jsonrpc: "2.0" });
    const text = (t: string, extra: Record<string, unknown> = {}) => ({ content: [{ text: t, type: "text" }], is_error: false, metadata: null, ...extra });
    expect(byId.get(2)).toBe(result(2, text("hi")));
    expect(byId.get(3)).toBe(result(3, text("text", { metadata: { k: 1 } })));
    expect(byId.get(4)).toBe(result(4, text("a", { structured_content: null })));
    expect(byId.get(5)).toBe(result(5, text("n=2", { structured_content: { n: 2 } })));
    expect(byId.get(6)).toBe(result(6, { ...text("invalid arguments for tool `checked`: /x is required (rule: required). Call it again with arguments that match its parameters schema."), is_error: true }));
    expect(byId.get(7)).toBe(error(7, { code: -32601, message: "unknown or unnegotiated method" }));
    expect(byId.get(8)).toBe(error(8, { code: -32011, data: { type: "image" }, message: "extension capability mismatch" }));
    expect(byId.get(9)).toBe(error(9, { code: -32603, message: "internal error" }));
    expect(byId.get(10)).toBe(error(10, { code: -32603, message: "internal error" }));
    expect(byId.get(11)).toBe(error(11, { code: -32602, data: { field: "city" }, message: "invalid params" }));
    expect(byId.get(12)).toBe(result(12, text('{"depth":3}')));
    expect(byId.get(99)).toBe(result(99, { terminal: "shutdown" }));
    const logs = (await new Response(proc.stderr).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(logs.find((r) => r.message === "request failed" && r.method === "tool/call" && String(r.error).includes("isError"))?.error).toBe(
      "internal error: unknown API 0.3 tool result field isError (a result takes content, is_error, metadata, structured_content)",
    );
    expect(logs.some((r) => r.message === "reply refused" && String(r.error).includes("0.5 is not an integer"))).toBe(true);
    expect(logs.some((r) => r.message === "request failed" && r.code === -32601 && String(r.error).startsWith("this host service is not available on extension API 0.3"))).toBe(true);
  });
});
