/**
 * Process-level dispatch (docs/protocol-0.2.md §5, §8.3, §8.4, §8.9): method names that are
 * Object.prototype members, absent params, host methods sent as
 * notifications, response-shaped frames without an id, non-object params on
 * every host method, and a declared renderer without a handler. Fixtures:
 * test/fixtures/wire-fixture/ (the default) and test/fixtures/dispatch/.
 */
import { describe, expect, test } from "bun:test";
import type { TestHost } from "octet-extension/testing";
import { APIS, type Obj, stdoutLines, V01, waitLog } from "./dispatch-fixture.ts";
import { expectCleanStreams, ready, startHost } from "./helpers.ts";

/** Send `raw` and return the next stdout line the extension writes. */
async function nextLine(host: TestHost, raw: string): Promise<string> {
  const before = stdoutLines(host).length;
  host.sendRaw(raw);
  await host.waitForFrame(() => stdoutLines(host).length > before, 5_000);
  return stdoutLines(host)[before]!;
}

/** `handler ran` records logged by the fixture (every host-method handler logs one). */
function handlerRuns(host: TestHost): Obj[] {
  return host.logs().filter((l) => l.message === "handler ran");
}

/**
 * Send an `echo` tool call and wait until both its reply and its own `handler ran`
 * log have arrived: anything dispatched earlier has been logged by then.
 */
async function barrier(host: TestHost, text: string): Promise<void> {
  expect(await host.callTool("echo", { text })).toBeDefined();
  await waitLog(host, (l) => l.message === "handler ran" && l.name === "echo");
  await Bun.sleep(50);
}

const INVALID_REQUEST_NULL = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid JSON-RPC request"}}';

/** Each host request method with params that would run a handler if it were dispatched. */
const HOST_METHOD_PARAMS: [string, Obj][] = [
  ["tool/call", { name: "mark", arguments: {}, context: {} }],
  ["command/execute", { name: "mark", arguments: [], context: {} }],
  ["hook/run", { hook: "before_prompt", payload: { prompt: "p" }, context: {} }],
  ["context/collect", { prompt: "p", context: {} }],
  ["status/collect", { surface: "status", context: {} }],
  ["tool/render", { name: "echo", arguments: {}, output: "o", is_error: false, context: {} }],
];

describe("routing edge cases", () => {
  test("method names of Object.prototype members are unknown methods", async () => {
    const host = await ready();
    for (const method of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
      expect((await host.request(method, {})).error).toEqual({ code: -32601, message: `unknown method: ${method}` });
    }
    expect(await host.shutdown()).toBe(0);
  });

  test("absent params default to {}; catalog_revision on API 0.1 → -32602 before the name", async () => {
    const host = await ready();
    expect((await host.request("tool/call")).error).toEqual({ code: -32601, message: "tool/call params.name is missing; it must name a registered tool" });
    expect(await host.request("context/collect")).toMatchObject({ result: [{ label: "context", content: "undefined" }] });
    const reply = await host.request("tool/call", { name: "echo", arguments: {}, catalog_revision: 1 });
    expect(reply.error).toEqual({ code: -32602, message: "tool/call catalog_revision requires negotiated dynamic_tools" });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("host methods without an id and id-less response frames (docs/protocol-0.2.md §8.3, §8.9)", () => {
  for (const [api, dir] of APIS) {
    test(`API ${api}: host methods sent as notifications get no reply, run no handler, log 'ignored unknown notification'`, async () => {
      const host = await ready(dir);
      for (const [method, params] of HOST_METHOD_PARAMS) host.notify(method, params);
      await barrier(host, "after notifications");
      // Only the initialize reply and the barrier's reply were written.
      expect(host.extensionFrames().map((f) => f.id)).toEqual([1, host.peekNextId() - 1]);
      expect(host.extensionFrames().every((f) => !("method" in f))).toBe(true);
      // No handler ran except the barrier's echo.
      expect(handlerRuns(host)).toEqual([{ level: "info", message: "handler ran", method: "tool/call", name: "echo" }]);
      const warnings = host.logs().filter((l) => l.message === "ignored unknown notification");
      expect(warnings).toEqual(HOST_METHOD_PARAMS.map(([method]) => ({ level: "warning", message: "ignored unknown notification", method })));
      // Still serving: the same methods with an id are answered and do run.
      expect(await host.callTool("mark")).toBeDefined();
      expect(await host.executeCommand("mark")).toEqual({ text: "marked", notifications: [], context: [] });
      await waitLog(host, (l) => l.message === "handler ran" && l.method === "command/execute");
      expect(await host.shutdown()).toBe(0);
      expectCleanStreams(host);
    });

    test(`API ${api}: {"jsonrpc":"2.0","result":{}}, {"jsonrpc":"2.0"} and an id-less error frame → -32600 with id null; still serving`, async () => {
      const host = await ready(dir);
      const inputs = ['{"jsonrpc":"2.0","result":{}}', '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","error":{"code":-32000,"message":"x"}}', '{"jsonrpc":"2.0","params":{}}'];
      for (const input of inputs) expect(await nextLine(host, input)).toBe(INVALID_REQUEST_NULL);
      // §8.9: every rejected inbound line is logged at error level with code and error.
      await waitLog(host, (l) => l.message === "invalid protocol input" && host.logs().filter((x) => x.message === "invalid protocol input").length >= inputs.length);
      const rejected = host.logs().filter((l) => l.message === "invalid protocol input");
      expect(rejected.length).toBe(inputs.length);
      for (const record of rejected) expect(record).toMatchObject({ level: "error", code: -32600, error: "invalid JSON-RPC request" });
      expect(await host.callTool("echo", { text: "still serving" })).toBeDefined();
      expect(await host.shutdown()).toBe(0);
      // Judged once stderr is drained: the echo's own record may trail its reply, and an absence means something only at the end.
      expect(handlerRuns(host).map((l) => l.name)).toEqual(["echo"]);
      // No warning about responses: these are not responses (no id).
      expect(host.logs().some((l) => l.message === "ignored late or unknown response")).toBe(false);
      expectCleanStreams(host);
    });
  }

  test("before initialize, an id-less frame without method is also -32600 with id null; initialize still succeeds", async () => {
    const host = await startHost(V01);
    expect(await nextLine(host, '{"jsonrpc":"2.0","result":{}}')).toBe(INVALID_REQUEST_NULL);
    expect(await nextLine(host, '{"jsonrpc":"2.0"}')).toBe(INVALID_REQUEST_NULL);
    host.notify("tool/call", { name: "mark", arguments: {} });
    await host.initialize();
    await barrier(host, "x");
    expect(handlerRuns(host).map((l) => l.name)).toEqual(["echo"]);
    expect(host.extensionFrames().length).toBe(4);
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });
});

describe("non-object params on every host method → -32602 (docs/protocol-0.2.md §5, §8.4)", () => {
  const METHODS = ["command/execute", "hook/run", "context/collect", "status/collect", "tool/render", "tool/call"];
  const BAD_PARAMS: unknown[] = [[], [{ name: "mark" }], "mark", 7, true, false, null];
  for (const [api, dir] of APIS) {
    test(`API ${api}: ${METHODS.join(", ")} with params ${JSON.stringify(BAD_PARAMS)}`, async () => {
      const host = await ready(dir);
      for (const method of METHODS) {
        for (const params of BAD_PARAMS) {
          const reply = await host.request(method, params);
          expect({ method, params, error: reply.error }).toEqual({ method, params, error: { code: -32602, message: `${method} params must be an object` } });
        }
      }
      await barrier(host, "after bad params");
      expect(handlerRuns(host).map((l) => l.name)).toEqual(["echo"]);
      // The same methods with object params still work.
      expect(await host.executeCommand("mark")).toEqual({ text: "marked", notifications: [], context: [] });
      expect(await host.runHook("before_prompt", { prompt: "p" })).toEqual({ disposition: { action: "continue" }, context: [], notifications: [] });
      expect(await host.collectContext("p")).toEqual([]);
      expect(await host.collectStatus("status")).toEqual({ surface: "status", text: "ready", priority: 0 });
      expect(await host.renderTool("echo", {}, "o")).toEqual({ segments: [{ text: "o", style_role: null }] });
      expect(await host.shutdown()).toBe(0);
      expectCleanStreams(host);
    });
  }
});

describe("renderer declared without a handler (docs/protocol-0.2.md §8.4 tool/render)", () => {
  for (const [api, dir] of APIS) {
    test(`API ${api}: tool/render for declared renderer 'mark' with no handler → {segments: []}`, async () => {
      const host = await ready(dir);
      expect(await host.renderTool("mark", {}, "some output")).toEqual({ segments: [] });
      expect(await host.renderTool("mark", { a: 1 }, null, true)).toEqual({ segments: [] });
      expect(JSON.stringify(host.extensionFrames().at(-1))).toBe(`{"jsonrpc":"2.0","id":${host.peekNextId() - 1},"result":{"segments":[]}}`);
      // Contrast: the declared renderer with a handler renders; an undeclared one is -32601.
      expect(await host.renderTool("echo", {}, "plain")).toEqual({ segments: [{ text: "plain", style_role: null }] });
      expect((await host.request("tool/render", { name: "returns", arguments: {}, output: null, is_error: false })).error).toEqual({ code: -32601, message: "returns is not a declared tool_renderer" });
      expect(await host.shutdown()).toBe(0);
      expectCleanStreams(host);
    });
  }
});
