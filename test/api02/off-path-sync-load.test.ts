/**
 * The outbound engine and the `Host` handle are in the chunk `run()` loads after the initialize
 * reply (src/runtime/lazy-modules.ts); something that asks for them earlier requires that chunk on
 * the spot. Checked on the build `octet-extension build` makes (where the chunk is a separate file
 * of the executable) and from source: the handle taken at the top of the module, before `run()`,
 * makes host calls from a handler like one taken later.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { compiledOnce } from "../helpers.ts";

const SDK = new URL("../../src/index.ts", import.meta.url).pathname;
const built = compiledOnce("octet-off-path-sync-", (dir) => {
  const source = join(dir, "early-handle.ts");
  writeFileSync(
    source,
    [
      `import { Extension } from ${JSON.stringify(SDK)};`,
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
  return source;
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
  ["compiled with octet-extension build's flags", () => [built.binary]],
  ["from source", () => [process.execPath, built.source]],
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
