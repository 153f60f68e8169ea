/**
 * Extra process-level wire tests (spec §1.3, §3.1, §5, §8.2, §8.3, §8.4, §8.9):
 * host methods sent as notifications, response-shaped frames without an id,
 * initialize validation on both APIs, non-object params on every host method,
 * renderers without handlers, stray stdio from user code, API 0.1 `is_error`
 * truthiness. Fixtures: test/fixtures/wire-extra/.
 */
import { describe, expect, test } from "bun:test";
import type { TestHost } from "octet-extension/testing";
import { expectCleanStreams, ready, startHost } from "./helpers.ts";

type Obj = Record<string, unknown>;

const fixture = (name: string) => new URL(`./fixtures/wire-extra/${name}`, import.meta.url).pathname;
const V01 = fixture("wire-extra-v01");
const V02 = fixture("wire-extra-v02");
const APIS: [string, string][] = [
  ["0.1", V01],
  ["0.2", V02],
];

/** Registration order of the fixture (spec §8.2 step 9). */
const REGISTERED_TOOLS = ["echo", "returns", "mark", "stdio"];
const REGISTERED_COMMANDS = ["mark", "other"];

const LOG_LEVELS = ["debug", "info", "warning", "error"];

/** Wait until a structured log record matching `predicate` has arrived on stderr. */
async function waitLog(host: TestHost, predicate: (record: Obj) => boolean, timeoutMs = 2_000): Promise<Obj> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = host.logs().find(predicate);
    if (found) return found;
    if (performance.now() > deadline) throw new Error(`no matching log record within ${timeoutMs} ms; stderr:\n${host.stderr.join("\n")}`);
    await Bun.sleep(10);
  }
}

/** Raw stdout lines the extension wrote (each a JSON-RPC frame when healthy). */
function stdoutLines(host: TestHost): string[] {
  return host.transcript.filter((e) => e.from === "extension").map((e) => e.text);
}

/** Send `raw` and return the next stdout line the extension writes. */
async function nextLine(host: TestHost, raw: string): Promise<string> {
  const before = stdoutLines(host).length;
  host.sendRaw(raw);
  await host.waitForFrame(() => stdoutLines(host).length > before, 2_000);
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

function expectStructuredStderr(host: TestHost): void {
  for (const line of host.stderr.filter((l) => l.trim() !== "")) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new Error(`stderr line is not JSON: ${line}`);
    }
    expect(typeof record === "object" && record !== null && !Array.isArray(record)).toBe(true);
    const r = record as Obj;
    expect(LOG_LEVELS).toContain(r.level as string);
    expect(typeof r.message).toBe("string");
  }
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

describe("host methods without an id and id-less response frames (spec §8.3, §8.9)", () => {
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
      // No warning about responses: these are not responses (no id).
      expect(host.logs().some((l) => l.message === "ignored late or unknown response")).toBe(false);
      expect(await host.callTool("echo", { text: "still serving" })).toBeDefined();
      expect(handlerRuns(host).map((l) => l.name)).toEqual(["echo"]);
      expect(await host.shutdown()).toBe(0);
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

describe("initialize validation (spec §3.1, §8.2)", () => {
  /** Reject every initialize in `cases`, checking the process stays uninitialised after each. */
  async function expectInitErrors(host: TestHost, cases: [Obj, Obj][]): Promise<void> {
    for (const [params, expected] of cases) {
      const reply = await host.request("initialize", params);
      expect({ params, error: reply.error }).toEqual({ params, error: expected });
      expect("result" in reply).toBe(false);
      expect((await host.request("tool/call", { name: "echo", arguments: {} })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    }
  }

  const mismatch = (kind: "tools" | "commands", declared: unknown[], registered: string[]) => ({
    code: -32602,
    message: `registered ${kind} do not match manifest declarations`,
    data: { declared, registered },
  });

  /** Sort `data.declared` / `data.registered` so that their order does not matter. */
  function sortedData(error: unknown): unknown {
    const e = error as { data?: { declared?: unknown[]; registered?: unknown[] } };
    if (!e?.data || !Array.isArray(e.data.declared) || !Array.isArray(e.data.registered)) return error;
    return { ...e, data: { ...e.data, declared: [...e.data.declared].sort(), registered: [...e.data.registered].sort() } };
  }

  for (const [api, dir] of APIS) {
    test(`API ${api}: contributes not an object → -32602; uninitialised; later initialize succeeds`, async () => {
      const host = await startHost(dir);
      const base = host.initializeParams();
      for (const contributes of [[], "tools", 5, true, null, [["echo"]]]) {
        const reply = await host.request("initialize", { ...base, contributes });
        expect({ contributes, code: (reply.error as Obj | undefined)?.code }).toEqual({ contributes, code: -32602 });
        expect((await host.request("tool/call", { name: "echo", arguments: {} })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
      }
      // An empty object means no declarations to check.
      expect(await host.initialize({ ...base, contributes: {} })).toMatchObject({ api_version: api });
      expect(await host.callTool("echo", { text: "ok" })).toBeDefined();
      expect(await host.shutdown()).toBe(0);
      expectCleanStreams(host);
    });

    test(`API ${api}: contributes.tools / .commands not an array of strings → -32602 with the specified message`, async () => {
      const host = await startHost(dir);
      const base = host.initializeParams();
      const contributes = base.contributes as Obj;
      const bad = ["echo", {}, null, 7, true, ["echo", 1], [null], [["echo"]], { 0: "echo" }];
      const cases: [Obj, Obj][] = [];
      for (const value of bad) {
        cases.push([{ ...base, contributes: { ...contributes, tools: value } }, { code: -32602, message: "initialize contributes.tools must be an array of strings" }]);
        cases.push([{ ...base, contributes: { ...contributes, commands: value } }, { code: -32602, message: "initialize contributes.commands must be an array of strings" }]);
      }
      // tools are checked before commands.
      cases.push([{ ...base, contributes: { ...contributes, tools: "echo", commands: "mark" } }, { code: -32602, message: "initialize contributes.tools must be an array of strings" }]);
      cases.push([{ ...base, contributes: { ...contributes, tools: ["ghost"], commands: "mark" } }, mismatch("tools", ["ghost"], REGISTERED_TOOLS)]);
      await expectInitErrors(host, cases);
      await host.initialize();
      expect(await host.shutdown()).toBe(0);
      expectCleanStreams(host);
    });

    test(`API ${api}: tools declared but not registered, and command set mismatches → -32602 with data {declared, registered}`, async () => {
      const host = await startHost(dir);
      const base = host.initializeParams();
      const contributes = base.contributes as Obj;
      const toolSets: string[][] = [
        [...REGISTERED_TOOLS, "ghost"], // declared, not registered
        ["echo", "returns", "mark", "ghost"], // same count, one differs
        [], // nothing declared, four registered
        ["echo", "returns", "mark"], // registered, not declared
      ];
      const commandSets: string[][] = [["mark", "other", "ghost"], ["mark"], ["mark", "ghost"], []];
      for (const tools of toolSets) {
        const reply = await host.request("initialize", { ...base, contributes: { ...contributes, tools } });
        expect(Object.keys((reply.error as { data?: object })?.data ?? {}).sort()).toEqual(["declared", "registered"]);
        expect(sortedData(reply.error)).toEqual(sortedData(mismatch("tools", tools, REGISTERED_TOOLS)));
      }
      for (const commands of commandSets) {
        const reply = await host.request("initialize", { ...base, contributes: { ...contributes, commands } });
        expect(Object.keys((reply.error as { data?: object })?.data ?? {}).sort()).toEqual(["declared", "registered"]);
        expect(sortedData(reply.error)).toEqual(sortedData(mismatch("commands", commands, REGISTERED_COMMANDS)));
      }
      // Order is not significant: a permuted declaration is accepted.
      const result = await host.initialize({ ...base, contributes: { ...contributes, tools: [...REGISTERED_TOOLS].reverse(), commands: [...REGISTERED_COMMANDS].reverse() } });
      expect((result.tools as Obj[]).map((t) => t.name)).toEqual(REGISTERED_TOOLS);
      expect(await host.shutdown()).toBe(0);
      expectCleanStreams(host);
    });

    test(`API ${api}: validation order — params, then api_version, then contributes`, async () => {
      const host = await startHost(dir);
      const base = host.initializeParams();
      const other = api === "0.1" ? "0.2" : "0.1";
      const reply = await host.request("initialize", { ...base, api_version: other, contributes: "not an object" });
      expect(reply.error).toEqual({ code: -32000, message: `unsupported API version: host requested '${other}', SDK implements '${api}'` });
      for (const params of [[], "x", 1, null]) expect((await host.request("initialize", params)).error).toMatchObject({ code: -32602 });
      await host.initialize();
      expect(await host.shutdown()).toBe(0);
    });
  }

  test("API 0.2: contributes are validated before protocol, even with dynamic_tools offered", async () => {
    const host = await startHost(V02);
    const base = host.initializeParams();
    const contributes = base.contributes as Obj;
    const protocol = base.protocol as Obj;
    expect(protocol.optional_features).toContain("dynamic_tools");
    const declared = [...REGISTERED_TOOLS, "ghost"];
    const cases: [Obj, Obj][] = [
      // dynamic_tools will be negotiated: the SDK still requires the exact manifest set.
      [{ ...base, contributes: { ...contributes, tools: declared } }, mismatch("tools", declared, REGISTERED_TOOLS)],
      // protocol.version 0.3 alone would be -32000; the contributes error comes first.
      [{ ...base, contributes: { ...contributes, tools: declared }, protocol: { ...protocol, version: "0.3" } }, mismatch("tools", declared, REGISTERED_TOOLS)],
      [{ ...base, contributes: { ...contributes, commands: ["ghost"] }, protocol: { ...protocol, required_features: ["content_parts", "teleport"] } }, mismatch("commands", ["ghost"], REGISTERED_COMMANDS)],
      [{ ...base, contributes: { ...contributes, tools: 1 }, protocol: undefined }, { code: -32602, message: "initialize contributes.tools must be an array of strings" }],
    ];
    for (const [params, expected] of cases) {
      const reply = await host.request("initialize", params);
      expect(sortedData(reply.error)).toEqual(sortedData(expected));
      expect((await host.request("tool/call", { name: "echo", arguments: {} })).error).toEqual({ code: -32600, message: "initialize must be the first request" });
    }
    const contributesReply = await host.request("initialize", { ...base, contributes: [], protocol: { ...protocol, version: "0.3" } });
    expect((contributesReply.error as Obj).code).toBe(-32602);
    // Valid contributes: now the protocol errors surface.
    expect((await host.request("initialize", { ...base, protocol: { ...protocol, version: "0.3" } })).error).toMatchObject({ code: -32000 });
    await host.initialize();
    expect(host.features.has("dynamic_tools")).toBe(true);
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });
});

describe("non-object params on every host method → -32602 (spec §5, §8.4)", () => {
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

describe("renderer declared without a handler (spec §8.4 tool/render)", () => {
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

describe("stray stdio from user code (spec §1.3, §8.9)", () => {
  const STDERR_TEXTS = [
    "raw process.stderr.write line",
    "first of two raw lines",
    "second of two raw lines",
    "raw Bun.write stderr line",
    "child stderr line",
    "sync child stderr line",
    "node child stderr line",
    "late raw stderr line",
  ];
  const STDOUT_TEXTS = ["raw process.stdout.write line", "raw Bun.write stdout line", "child stdout line"];

  for (const [api, dir] of APIS) {
    test(`API ${api}: raw stderr (process.stderr, Bun.write, inherited child stderr) becomes structured log lines; stdout writes never reach stdout`, async () => {
      const host = await ready(dir);
      const reply = await host.callTool("stdio");
      expect(reply).toEqual(api === "0.1" ? { content: "stdio done", is_error: false, metadata: {} } : { content: [{ type: "text", text: "stdio done" }], is_error: false, metadata: {} });
      for (const text of [...STDERR_TEXTS, ...STDOUT_TEXTS]) {
        await waitLog(host, (l) => typeof l.message === "string" && l.message.includes(text)).catch(() => {
          throw new Error(`'${text}' never arrived as a structured log record; stderr:\n${host.stderr.join("\n")}`);
        });
      }
      // Still serving after the stray writes.
      expect(await host.callTool("echo", { text: "after" })).toBeDefined();
      expect(await host.shutdown()).toBe(0);
      // Every stderr line is a JSON object with a string level (one of four) and a string message.
      expectStructuredStderr(host);
      expect(host.stderr.some((l) => STDERR_TEXTS.some((t) => l === t))).toBe(false);
      // stdout: only JSON-RPC frames, none carrying the stray text.
      for (const line of stdoutLines(host)) {
        const frame = JSON.parse(line) as Obj;
        expect(frame.jsonrpc).toBe("2.0");
      }
      for (const text of STDOUT_TEXTS) expect(stdoutLines(host).some((l) => l.includes(text))).toBe(false);
      expect(host.violations).toEqual([]);
      expectCleanStreams(host);
    });
  }
});

describe("API 0.1 is_error normalisation by Python truthiness (spec §8.4)", () => {
  test("falsy: [], {}, \"\", 0, null, false → false; truthy: [0], {a:0}, \"0\", \"false\", -1, 0.5 → true", async () => {
    const host = await ready(V01);
    const cases: [unknown, boolean][] = [
      [[], false],
      [{}, false],
      ["", false],
      [0, false],
      [null, false],
      [false, false],
      [[0], true],
      [{ a: 0 }, true],
      ["0", true],
      ["false", true],
      [-1, true],
      [0.5, true],
      [true, true],
    ];
    const got: [unknown, unknown][] = [];
    for (const [value] of cases) {
      const result = (await host.callTool("returns", { value: { content: "c", is_error: value } })) as Obj;
      expect(Object.keys(result).sort()).toEqual(["content", "is_error", "metadata"]);
      expect(result.content).toBe("c");
      got.push([value, result.is_error]);
    }
    expect(got).toEqual(cases);
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });
});
