/**
 * The outbound engine and the `Host` handle are in the chunk `run()` loads after the initialize
 * reply (src/runtime/lazy-modules.ts); something that asks for them earlier requires that chunk on
 * the spot. Checked on the build `octet-extension build` makes (where the chunk is a separate file
 * of the executable) and from source: the handle taken at the top of the module, before `run()`,
 * makes host calls from a handler like one taken later.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileStandalone } from "../../codegen/build.ts";

const REPO = new URL("../../", import.meta.url).pathname;

let root = "";
let source = "";
let binary = "";
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "octet-off-path-sync-"));
  source = join(root, "early-handle.ts");
  binary = join(root, "early-handle.bin");
  writeFileSync(
    source,
    [
      `import { Extension } from ${JSON.stringify(join(REPO, "src/index.ts"))};`,
      "const ext = new Extension();",
      "// Taken before run(): the engine's chunk is required now, not loaded after the reply.",
      "const user = ext.user;",
      "const early = ext.initialized;",
      'ext.tool({ name: "greet", description: "Greet" }, async (args: { name?: string }) => {',
      '  await user.notify(`hello ${args.name ?? "you"}`);',
      '  return `greeted (initialized before run: ${early})`;',
      "});",
      "await ext.run();",
    ].join("\n"),
  );
  const built = compileStandalone(source, binary, { bytecode: true, cwd: REPO });
  if (built.exitCode !== 0) throw new Error(`compiling the fixture failed:\n${built.stderr.toString()}`);
}, 120_000);
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    api_version: "0.2",
    contributes: { tools: ["greet"], commands: [], notifications: true },
    protocol: { version: "0.2", required_features: ["request_cancellation", "content_parts"], optional_features: [], limits: { max_concurrent_requests: 4 } },
  },
});
const greet = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tool/call", params: { name: "greet", arguments: { name: "octet" } } });

describe.each([
  ["compiled with octet-extension build's flags", () => [binary]],
  ["from source", () => [process.execPath, source]],
])("the Host handle taken before run(), %s", (_label, command) => {
  test("the process starts, answers initialize, and the handler's host call goes out before its reply", async () => {
    const child = Bun.spawn(command(), { stdin: "pipe", stdout: "pipe", stderr: "pipe", env: { ...process.env, OCTET_EXTENSION_API_VERSION: "0.2" } });
    child.stdin.write(`${initialize}\n${greet}\n`);
    child.stdin.end();
    const [text, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    const frames = text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
    expect({ code, errors: errors.split("\n").filter((line) => line.includes('"error"')) }).toEqual({ code: 0, errors: [] });
    expect(frames.map((frame) => frame.id ?? frame.method)).toEqual([1, "notification", 2]);
    expect(frames[1].params).toMatchObject({ message: "hello octet" });
    expect(frames[2].result.content).toEqual([{ type: "text", text: "greeted (initialized before run: false)" }]);
  }, 20_000);
});
