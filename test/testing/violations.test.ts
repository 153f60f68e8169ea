import { describe, expect, test } from "bun:test";
import { HostViolation, TestHost } from "octet-extension/testing";
import { emit, expectFatal, rejection, startRaw } from "../fixtures/testing/raw.ts";

/** Each case: raw frames the extension writes during a tool call, and the violation octet reports (docs/protocol-0.2.md §1.9). */
type Case = [title: string, lines: string[], message: string | RegExp];

async function fatalCase(lines: string[], message: string | RegExp, options: Parameters<typeof startRaw>[0] = {}, hostOptions: Parameters<typeof startRaw>[1] = {}) {
  const host = await startRaw(options, hostOptions);
  await expectFatal(host, emit(host, lines), message);
  return host;
}

describe("test host: stdout that is not a JSON-RPC 2.0 object is fatal (docs/protocol-0.2.md §1.3, §1.9)", () => {
  const cases: Case[] = [
    ["plain text", ["hello world"], "non-JSON on stdout: hello world"],
    ["truncated JSON", ['{"jsonrpc":"2.0",'], 'non-JSON on stdout: {"jsonrpc":"2.0",'],
    ["an array (batch)", ['[{"jsonrpc":"2.0","method":"notification","params":{"message":"m"}}]'], /^stdout frame is not an object: \[/],
    ["a number", ["42"], "stdout frame is not an object: 42"],
    ["a string", ['"text"'], 'stdout frame is not an object: "text"'],
    ["null", ["null"], "stdout frame is not an object: null"],
    ["no jsonrpc member", ['{"id":$ID,"result":{}}'], /^frame without "jsonrpc":"2.0": \{"id":\d+,"result":\{\}\}$/],
    ["jsonrpc 1.0", ['{"jsonrpc":"1.0","id":$ID,"result":{}}'], /^frame without "jsonrpc":"2.0"/],
    ["jsonrpc as a number", ['{"jsonrpc":2.0,"id":$ID,"result":{}}'], /^frame without "jsonrpc":"2.0"/],
  ];
  for (const [title, lines, message] of cases) test(title, async () => void (await fatalCase(lines, message)));

  test("every pending call rejects with HostViolation, nothing after the bad line is read, the process is killed", async () => {
    const host = await startRaw();
    const silent = rejection(host.callTool("emit", { lines: [], reply: false })); // left unanswered
    const bad = emit(host, ["oops", '{"jsonrpc":"2.0","method":"notification","params":{"message":"after"}}']);
    await expectFatal(host, bad, "non-JSON on stdout: oops");
    expect(await silent).toBeInstanceOf(HostViolation);
    expect(host.notifications()).toEqual([]);
    expect(() => host.assertHealthy()).toThrow(HostViolation);
  });
});

describe("test host: frames before the initialize reply (docs/protocol-0.2.md §1.6)", () => {
  test("a notification written before the initialize response rejects initialize() with HostViolation", async () => {
    const host = await startRaw({ rawCase: "preinit", contributes: ["notifications = true"] }, {}, false);
    await expectFatal(host, host.initialize(), "extension sent notification before its initialize response");
  });

  test("an invalid initialize reply is fatal and initialize() throws", async () => {
    const host = await startRaw({}, {}, false);
    const params = host.initializeParams();
    // The raw extension echoes the offered tools: offering fewer than the manifest declares makes its reply disagree.
    await expectFatal(host, host.initialize({ ...params, contributes: { ...(params.contributes as object), tools: ["emit"] } }), /^invalid initialize response: initialize tools \["emit"\] differ from contributes.tools/);
  });
});

describe("test host: malformed responses to host requests (docs/protocol-0.2.md §1.4, §1.9)", () => {
  const cases: Case[] = [
    ["a string id", ['{"jsonrpc":"2.0","id":"$ID","result":{}}'], "response requires a numeric id"],
    ["a negative id", ['{"jsonrpc":"2.0","id":-1,"result":{}}'], "response requires a numeric id"],
    ["a fractional id", ['{"jsonrpc":"2.0","id":1.5,"result":{}}'], "response requires a numeric id"],
    ["a null id", ['{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}'], "response requires a numeric id"],
    ["neither result nor error", ['{"jsonrpc":"2.0","id":$ID}'], "response must carry exactly one of result and error"],
    ["both result and error", ['{"jsonrpc":"2.0","id":$ID,"result":{},"error":{"code":1,"message":"m"}}'], "response must carry exactly one of result and error"],
    ["an error that is a string", ['{"jsonrpc":"2.0","id":$ID,"error":"boom"}'], "response error must be an object"],
    ["a string error code", ['{"jsonrpc":"2.0","id":$ID,"error":{"code":"-32000","message":"m"}}'], "response error code must be an integer"],
    ["a fractional error code", ['{"jsonrpc":"2.0","id":$ID,"error":{"code":1.5,"message":"m"}}'], "response error code must be an integer"],
    ["an error without message", ['{"jsonrpc":"2.0","id":$ID,"error":{"code":-32000}}'], "response error message must be a string"],
    ["an error with an unknown key", ['{"jsonrpc":"2.0","id":$ID,"error":{"code":-32000,"message":"m","detail":1}}'], "response error has unknown keys detail"],
  ];
  for (const [title, lines, message] of cases) test(title, async () => void (await fatalCase(lines, message)));

  test("a well-formed error reply with data is accepted (control)", async () => {
    const host = await startRaw();
    const id = host.peekNextId();
    // The extension answers the call with an error (its own reply to the same id is then ignored as late).
    const error = await rejection(emit(host, [`{"jsonrpc":"2.0","id":${id},"error":{"code":-32000,"message":"m","data":{"x":1}}}`]));
    expect(error).toMatchObject({ name: "ReplyError", code: -32000, data: { x: 1 } });
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});

describe("test host: notifications the manifest does not allow or that do not match the schema (docs/protocol-0.2.md §4.1, §4.3, §4.4)", () => {
  const note = (method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", method, params });
  test("notification without contributes.notifications", () =>
    fatalCase([note("notification", { message: "hi" })], "notification without contributes.notifications"));

  const malformed: Case[] = [
    ["an invalid level", [note("notification", { level: "loud", message: "m" })], "notification level is invalid"],
    ["an unknown key", [note("notification", { message: "m", icon: "x" })], "notification has unknown keys icon"],
    ["a non-string message", [note("notification", { message: 3 })], "notification message must be a string"],
    ["a non-string title", [note("notification", { title: 1, message: "m" })], "notification title must be a string"],
    ["params that are not an object", ['{"jsonrpc":"2.0","method":"notification","params":["m"]}'], "notification params must be an object"],
  ];
  for (const [title, lines, message] of malformed) {
    test(`notification with ${title}`, () => fatalCase(lines, message, { contributes: ["notifications = true"] }));
  }

  test("context/contribution without contributes.context", () =>
    fatalCase([note("context/contribution", { label: "l", content: "c" })], "context/contribution without contributes.context"));
  test("context/contribution with a bad placement (declared)", () =>
    fatalCase([note("context/contribution", { label: "l", content: "c", placement: "middle" })], "context entry placement is invalid", { contributes: ["context = true"] }));
  test("status/contribution for a surface not in contributes.ui", () =>
    fatalCase([note("status/contribution", { surface: "header", text: "t" })], 'status/contribution for undeclared surface "header"', { contributes: ['ui = ["status"]'] }));
  test("status/contribution with no ui at all", () =>
    fatalCase([note("status/contribution", { surface: "status", text: "t" })], 'status/contribution for undeclared surface "status"'));
  test("status/contribution with a non-i32 priority (declared surface)", () =>
    fatalCase([note("status/contribution", { surface: "status", text: "t", priority: 2 ** 31 })], "status/contribution priority must be an i32", { contributes: ['ui = ["status"]'] }));

  test("declared, well-formed notifications are accepted and an unknown one is only a diagnostic (control)", async () => {
    const host = await startRaw({ contributes: ["notifications = true", "context = true", 'ui = ["status"]'] });
    await emit(host, [
      note("notification", { level: "success", title: null, message: "m" }),
      note("context/contribution", { label: "l", content: "c", placement: "prompt_prefix" }),
      note("status/contribution", { surface: "status", text: "t", style_role: null, priority: -3 }),
      note("custom/whatever", {}),
    ]);
    expect(host.violations).toEqual([]);
    expect(host.diagnostics).toContain("unknown notification custom/whatever ignored");
    expect(await host.shutdown()).toBe(0);
  });
});

describe("test host: confirmation/request rules (docs/protocol-0.2.md §4.2, §1.9)", () => {
  const confirm = (id: unknown, params: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", id, method: "confirmation/request", params });
  test("without contributes.confirmations", () => fatalCase([confirm("c-1", { prompt: "ok?" })], "confirmation/request without contributes.confirmations"));
  test("without an id (sent as a notification)", () =>
    fatalCase(['{"jsonrpc":"2.0","method":"confirmation/request","params":{"prompt":"ok?"}}'], "confirmation/request without an id", { contributes: ["confirmations = true"] }));
  for (const [title, id] of [["a boolean id", true], ["a fractional id", 1.5], ["an object id", { n: 1 }], ["a null id", null]] as const) {
    test(`with ${title}`, () => fatalCase([confirm(id, { prompt: "ok?" })], "confirmation/request request with an invalid id", { contributes: ["confirmations = true"] }));
  }
  test("with a string id over 256 bytes", () =>
    fatalCase([confirm("x".repeat(257), { prompt: "ok?" })], "confirmation/request request id must be a u64 or a string of at most 256 bytes", { contributes: ["confirmations = true"] }));
  test("with unknown params", () =>
    fatalCase([confirm("c-1", { prompt: "ok?", urgent: true })], "confirmation/request has unknown keys urgent", { contributes: ["confirmations = true"] }));
  test("on API 0.1 with parent_request_id", () =>
    fatalCase([confirm("c-1", { prompt: "ok?", parent_request_id: 2 })], "confirmation/request on API 0.1 must not carry parent_request_id", { contributes: ["confirmations = true"] }));
  test("on API 0.2 without parent_request_id", () =>
    fatalCase([confirm("ts:1", { prompt: "ok?" })], "confirmation/request requires parent_request_id", { api: "0.2", contributes: ["confirmations = true"] }));

  test("a valid 0.2 confirmation is answered {confirmed:false} by default (control)", async () => {
    const host = await startRaw({ api: "0.2", contributes: ["confirmations = true"] });
    await emit(host, [confirm("ts:1", { prompt: "ok?", parent_request_id: host.peekNextId() })], { replyAfterAnswerTo: "ts:1" });
    const answer = host.transcript.find((e) => e.from === "host" && e.frame?.id === "ts:1");
    expect(answer?.frame).toEqual({ jsonrpc: "2.0", id: "ts:1", result: { confirmed: false } });
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});

describe("test host: feature-gated messages without the negotiated feature (docs/protocol-0.2.md §1.9, §3.1)", () => {
  const noProgress = { offer: { optional: ["artifacts", "lifecycle_events", "policy_intents", "dynamic_tools"] } };
  test("$/progress on 0.2 when request_progress was not offered", () =>
    fatalCase(['{"jsonrpc":"2.0","method":"$/progress","params":{"request_id":$ID,"sequence":1,"event":{"type":"status","message":"m"}}}'], "$/progress without negotiated request_progress", { api: "0.2" }, noProgress));
  test("$/progress on API 0.1", () =>
    fatalCase(['{"jsonrpc":"2.0","method":"$/progress","params":{"request_id":$ID,"sequence":1,"event":{"type":"status","message":"m"}}}'], "$/progress without negotiated request_progress"));
  test("secret/get without the secrets feature (not offered by default)", () =>
    fatalCase(['{"jsonrpc":"2.0","id":"ts:1","method":"secret/get","params":{"parent_request_id":$ID,"name":"token"}}'], "secret/get without negotiated secrets", { api: "0.2" }));
  test("tools/register on API 0.1", () =>
    fatalCase(['{"jsonrpc":"2.0","id":7,"method":"tools/register","params":{"tools":[]}}'], "tools/register without negotiated dynamic_tools"));
  test("a malformed $/progress with the feature", () =>
    fatalCase(['{"jsonrpc":"2.0","method":"$/progress","params":{"request_id":$ID,"sequence":1,"event":{"type":"status"}}}'], "$/progress status message must be a string", { api: "0.2" }));

  test("with the feature, $/progress for the active request is accepted (control)", async () => {
    const host = await startRaw({ api: "0.2" });
    await emit(host, ['{"jsonrpc":"2.0","method":"$/progress","params":{"request_id":$ID,"sequence":1,"event":{"type":"status","message":"m"}}}']);
    expect(host.features.has("request_progress")).toBe(true);
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});

describe("test host: extension request ids and outstanding bounds (docs/protocol-0.2.md §1.4, §1.9)", () => {
  const hold = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "test/hold", params: {} });

  test("an id reused while outstanding", async () => {
    const host = await startRaw();
    host.onRequest("test/hold", () => TestHost.noReply);
    await expectFatal(host, emit(host, [hold(5), hold(5)]), "extension request id 5 reused");
  });

  test("an id reused after its request was answered (never within a generation); 7 and \"7\" are different ids", async () => {
    const host = await startRaw({ contributes: ["confirmations = true"] });
    host.onRequest("test/hold", () => TestHost.noReply);
    await emit(host, ['{"jsonrpc":"2.0","id":7,"method":"confirmation/request","params":{"prompt":"a"}}', hold("7")], { replyAfterAnswerTo: 7 });
    expect(host.transcript.some((e) => e.from === "host" && e.frame?.id === 7 && "result" in e.frame)).toBe(true);
    expect(host.violations).toEqual([]);
    await expectFatal(host, emit(host, ['{"jsonrpc":"2.0","id":7,"method":"confirmation/request","params":{"prompt":"b"}}']), "extension request id 7 reused");
  });

  test("128 outstanding extension requests are tolerated, the 129th is fatal", async () => {
    const host = await startRaw();
    host.onRequest("test/hold", () => TestHost.noReply);
    await emit(host, Array.from({ length: 128 }, (_, i) => hold(i + 1)));
    expect(host.violations).toEqual([]);
    await expectFatal(host, emit(host, [hold(129)]), "more than 128 outstanding extension requests");
  });

  test("8 outstanding confirmation/request are tolerated; a 9th exceeds octet's child workers and is fatal", async () => {
    const host = await startRaw({ contributes: ["confirmations = true"] });
    host.onRequest("confirmation/request", () => TestHost.noReply);
    const confirm = (n: number) => JSON.stringify({ jsonrpc: "2.0", id: n, method: "confirmation/request", params: { prompt: `q${n}` } });
    await emit(host, Array.from({ length: 8 }, (_, i) => confirm(i + 1)));
    expect(host.violations).toEqual([]);
    await expectFatal(host, emit(host, [confirm(9)]), "extension child worker limit 8 exceeded");
  });

  test("a 9th concurrent secret/get is answered -32000 (not fatal); the parent settling cancels the other 8", async () => {
    const host = await startRaw({ api: "0.2", extraToml: '[capabilities]\nsecrets = ["token"]\n' }, { offer: { optional: ["secrets"] } });
    host.onRequest("secret/get", () => TestHost.noReply);
    const parent = host.peekNextId();
    const secret = (n: number) => JSON.stringify({ jsonrpc: "2.0", id: `ts:${n}`, method: "secret/get", params: { parent_request_id: parent, name: "token" } });
    expect(await emit(host, Array.from({ length: 9 }, (_, i) => secret(i + 1)))).toMatchObject({ content: "emitted" });
    const sent = host.transcript.filter((e) => e.from === "host").map((e) => e.frame);
    expect(sent).toContainEqual({ jsonrpc: "2.0", id: "ts:9", error: { code: -32000, message: "extension child worker limit 8 exceeded" } });
    expect(sent.filter((f) => f?.id !== undefined && String(f.id).startsWith("ts:"))).toHaveLength(1);
    const cancels = sent.filter((f) => f?.method === "$/cancelRequest").map((f) => (f!.params as { id: string }).id);
    expect(cancels.sort()).toEqual(["ts:1", "ts:2", "ts:3", "ts:4", "ts:5", "ts:6", "ts:7", "ts:8"]);
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});

describe("test host: shutdown() health", () => {
  test("an extension that acknowledges shutdown but does not exit within 2 s makes shutdown() throw HostViolation", async () => {
    const host = await startRaw({ rawCase: "linger" });
    const error = await rejection(host.shutdown());
    expect(error).toBeInstanceOf(HostViolation);
    expect(host.violations).toEqual(["process did not exit within 2 s after acknowledging shutdown"]);
  }, 10_000);
});

describe("test host: EOF in the middle of a line (docs/protocol-0.2.md §1.9) and closeStdin() health", () => {
  test("exiting after half a frame rejects the pending call with HostViolation", async () => {
    const host = await startRaw();
    await expectFatal(host, emit(host, ['{"jsonrpc":"2.0","method":"notif'], { newline: false, reply: false, exit: 0 }), "EOF in the middle of a stdout line");
  });

  test("closeStdin() throws HostViolation when the extension exits mid-line on EOF, as shutdown() would", async () => {
    const host = await startRaw({ rawCase: "eof-partial" });
    const error = await rejection(host.closeStdin());
    expect(error).toBeInstanceOf(HostViolation);
    expect(host.violations).toEqual(["EOF in the middle of a stdout line"]);
    expect(await host.exited).toBe(0);
  });

  test("closeStdin() throws on unstructured stderr when strict, and returns the status when not", async () => {
    const strict = await startRaw({ rawCase: "eof-stderr" });
    const error = await rejection(strict.closeStdin());
    expect(error).toBeInstanceOf(HostViolation);
    expect(error.message).toContain("unstructured stderr line: plain text on stderr");
    const lax = await startRaw({ rawCase: "eof-stderr" }, { strictStderr: false });
    expect(await lax.closeStdin()).toBe(0);
    expect(lax.stderr).toContain("plain text on stderr");
  });

  test("closeStdin() returns the exit status of a healthy extension (control)", async () => {
    const host = await startRaw();
    expect(await host.closeStdin()).toBe(0);
    expect(host.violations).toEqual([]);
  });
});
