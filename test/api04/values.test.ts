/**
 * API 0.4 author values, process level (docs/api-0.4.md): prompt metadata,
 * typed output with a text projection, typed diagnostics (our own cases of
 * the "octet.typed-values.v1" profile, test/data/typed-values.ts), and the
 * 0.4 hooks cache_warming_decision and compaction_strategy.
 * Fixture: test/fixtures/values/.
 */
import { describe, expect, test } from "bun:test";
import { TestHost, temporaryDirectory } from "octet-extension/testing";
import { diagnosticSummary, validateDiagnostics, type Diagnostic } from "octet-extension";
import { INVALID_DIAGNOSTICS, INVALID_RECORDS, VALID_DIAGNOSTICS, VALID_RECORDS } from "../data/typed-values.ts";
import { expectCleanStreams } from "../helpers.ts";

type Obj = Record<string, unknown>;
const DIR = new URL("../fixtures/values/values-v04", import.meta.url).pathname;

async function started(options: Parameters<typeof TestHost.start>[1] = {}): Promise<TestHost> {
  const host = await TestHost.start(DIR, options);
  await host.initialize();
  return host;
}

describe("prompt metadata (tool_prompt_metadata_v1)", () => {
  test("sent in the tool definition where negotiated, for initialize and tools/register tools", async () => {
    const host = await TestHost.start(DIR);
    const result = await host.initialize();
    expect((result.protocol as Obj).features).toContain("tool_prompt_metadata_v1");
    const forecast = (result.tools as Obj[]).find((t) => t.name === "forecast")!;
    expect(forecast.prompt_snippet).toBe("forecast: the weather for one city");
    expect(forecast.prompt_guidelines).toEqual(["Call forecast once per city.", "Quote the high\ttemperature."]);
    expect(await host.callTool("add_tools")).toMatchObject({ content: [{ text: "added" }] });
    const register = host.extensionFrames().find((f) => f.method === "tools/register")!;
    expect((register.params as { tools: Obj[] }).tools[0]).toMatchObject({ name: "late", prompt_snippet: "late: added at runtime" });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
    expectCleanStreams(host);
  });

  test("left out where the host did not offer the feature (the tools still work)", async () => {
    const optional = ["request_progress", "dynamic_tools", "cache_warming_decision", "compaction_strategy"];
    const host = await TestHost.start(DIR, { offer: { optional } });
    const result = await host.initialize();
    for (const tool of result.tools as Obj[]) expect(Object.keys(tool).sort()).toEqual(expect.not.arrayContaining(["prompt_guidelines", "prompt_snippet"]));
    await host.callTool("add_tools");
    const register = host.extensionFrames().find((f) => f.method === "tools/register")!;
    expect(Object.keys((register.params as { tools: Obj[] }).tools[0]!)).not.toContain("prompt_snippet");
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });
});

describe("typed output with a text projection", () => {
  test("the value becomes structured_content, the projection the text part", async () => {
    const host = await started();
    expect(await host.callTool("forecast", { city: "Oslo" })).toEqual({
      content: [{ type: "text", text: "Oslo: high of 21" }],
      is_error: false,
      metadata: {},
      structured_content: { city: "Oslo", high: 21 },
    });
    expect(await host.shutdown()).toBe(0);
  });

  test("a value off its schema, or a projection over 64 KiB, is -32603 and the extension keeps serving", async () => {
    const host = await started();
    const wrong = await host.request("tool/call", { name: "forecast", arguments: { city: "Oslo", mode: "wrong" }, context: host.executionContext() });
    expect(wrong.error).toMatchObject({ code: -32603 });
    const long = await host.request("tool/call", { name: "forecast", arguments: { city: "long" }, context: host.executionContext() });
    expect(long.error).toMatchObject({ code: -32603 });
    expect(await host.callTool("forecast", { city: "Bergen" })).toMatchObject({ structured_content: { city: "Bergen", high: 21 } });
    expect(await host.shutdown()).toBe(0);
  });

  test("the typed-values record cases: valid values come back unchanged, invalid ones are refused", async () => {
    const host = await started();
    for (const [title, value] of VALID_RECORDS) {
      expect({ title, result: await host.callTool("record_echo", { value }) }).toMatchObject({ title, result: { structured_content: value, is_error: false } });
    }
    for (const [title, value] of INVALID_RECORDS) {
      const reply = await host.request("tool/call", { name: "record_echo", arguments: { value }, context: host.executionContext() });
      expect({ title, code: (reply.error as Obj | undefined)?.code }).toEqual({ title, code: -32603 });
    }
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });
});

describe("typed diagnostics (metadata.octet_diagnostics_v1)", () => {
  test("valid cases: metadata carries the list, a summary text part follows the author's text", async () => {
    // With bulk_objects_v1: octet admits blob attachments only then.
    const host = await started({ bulk: true });
    for (const [title, diagnostic] of VALID_DIAGNOSTICS) {
      const result = (await host.callTool("lint", { diagnostics: [diagnostic], is_error: true, text: "Domain failure" })) as Obj;
      const d = diagnostic as Diagnostic;
      expect({ title, result }).toEqual({
        title,
        result: {
          content: [
            { type: "text", text: "Domain failure" },
            { type: "text", text: `${d.severity}[${d.code}]: ${d.message.replace(/[\t\n]/g, " ")}` },
          ],
          is_error: true,
          metadata: { octet_diagnostics_v1: [diagnostic] },
        },
      });
    }
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("invalid cases are refused with -32603 naming the rule, given as diagnostics or as raw metadata", async () => {
    const host = await started();
    for (const [title, diagnostic, rule] of INVALID_DIAGNOSTICS) {
      for (const raw of [false, true]) {
        const reply = await host.request("tool/call", { name: "lint", arguments: { diagnostics: [diagnostic], raw }, context: host.executionContext() });
        expect({ title, raw, code: (reply.error as Obj | undefined)?.code }).toEqual({ title, raw, code: -32603 });
      }
      expect(() => validateDiagnostics([diagnostic])).toThrow(rule);
    }
    // A blob attachment without bulk_objects_v1 negotiated is refused too.
    const withBlob = VALID_DIAGNOSTICS[1]![1];
    expect((await host.request("tool/call", { name: "lint", arguments: { diagnostics: [withBlob] }, context: host.executionContext() })).error).toMatchObject({ code: -32603 });
    const many = Array.from({ length: 33 }, () => VALID_DIAGNOSTICS[0]![1]);
    expect((await host.request("tool/call", { name: "lint", arguments: { diagnostics: many }, context: host.executionContext() })).error).toMatchObject({ code: -32603 });
    expect(() => validateDiagnostics(many)).toThrow("at most 32 diagnostics are allowed");
    expect(await host.callTool("lint", { diagnostics: [] })).toEqual({ content: [{ type: "text", text: "checked" }], is_error: false, metadata: {} });
    expect(await host.shutdown()).toBe(0);
    // The reply says only "internal error"; the author finds the broken rule in the log.
    const logged = host.logs().filter((l) => l.level === "error").map((l) => String(l.error));
    for (const [title, , rule] of INVALID_DIAGNOSTICS) expect({ title, logged: logged.some((e) => e.startsWith("invalid diagnostics: diagnostic 0: ") && e.includes(rule)) }).toEqual({ title, logged: true });
  });

  test("the summary: first eight, one per line, tabs and newlines as spaces, at most 4096 bytes on a character boundary", () => {
    const d = (i: number, message = `m${i}`): Diagnostic => ({ severity: "info", code: `c${i}`, message });
    expect(diagnosticSummary(Array.from({ length: 10 }, (_, i) => d(i)))).toBe(Array.from({ length: 8 }, (_, i) => `info[c${i}]: m${i}`).join("\n"));
    expect(diagnosticSummary([d(0, "a\tb\nc")])).toBe("info[c0]: a b c");
    const long = diagnosticSummary([d(0, "é".repeat(2100))]);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(long)).toBeGreaterThan(4090);
    expect(long.endsWith("é")).toBe(true);
  });
});

describe("API 0.4 hooks", () => {
  const decision = (continuation_probability: number) => ({
    phase: "idle",
    warm_cost_microdollars: 10,
    miss_cost_microdollars: 40,
    continuation_probability,
    expected_savings_microdollars: 5,
    economics_available: true,
    action: "warm",
  });

  test("both hook features are offered for the declared hooks and negotiated", async () => {
    const host = await TestHost.start(DIR);
    const result = await host.initialize();
    expect((result.protocol as Obj).features).toEqual(expect.arrayContaining(["cache_warming_decision", "compaction_strategy"]));
    expect(await host.shutdown()).toBe(0);
  });

  test("cache_warming_decision: the handler's answer is sent; an answer octet does not know is -32603", async () => {
    const host = await started();
    expect(await host.runHook("cache_warming_decision", { decision: decision(0.9), model: "m" })).toMatchObject({ cache_warming_decision: "warm" });
    expect(await host.runHook("cache_warming_decision", { decision: decision(0.1), model: "m" })).toMatchObject({ cache_warming_decision: "stop" });
    const bad = await host.request("hook/run", { hook: "cache_warming_decision", payload: { decision: decision(0.5), model: "bad-answer" }, context: host.executionContext() });
    expect(bad.error).toEqual({ code: -32603, message: 'invalid cache_warming_decision hook result: expected "warm", "stop" or null' });
    expect(await host.shutdown()).toBe(0);
  });

  test("compaction_strategy: frames are sent; none, or frames that are not base64, are -32603", async () => {
    const host = await started();
    expect(await host.runHook("compaction_strategy", { model_id: "vision", text: "hello" })).toMatchObject({ compaction_frames: [Buffer.from("PNG:hello").toString("base64")] });
    const none = await host.request("hook/run", { hook: "compaction_strategy", payload: { model_id: "no-frames", text: "x" }, context: host.executionContext() });
    expect(none.error).toEqual({ code: -32603, message: "invalid compaction_frames hook result: compaction_strategy must return compaction_frames" });
    const notBase64 = await host.request("hook/run", { hook: "compaction_strategy", payload: { model_id: "not-base64", text: "x" }, context: host.executionContext() });
    expect(notBase64.error).toEqual({ code: -32603, message: "invalid compaction_frames hook result: each frame must be standard base64 (A-Z a-z 0-9 + /, padded with =)" });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("bulk objects (bulk_objects_v1, local-file.v1)", () => {
  const call = async (host: TestHost, name: string, args: Obj) => ((await host.callTool(name, args)) as { content: { text: string }[]; is_error: boolean });

  test("publish writes the host's file and commits it; read returns the verified bytes; every ticket and lease is released", async () => {
    const host = await started({ bulk: true });
    expect(host.initializeParams().protocol).toMatchObject({ bulk_objects_v1: { profile: "local-file.v1", transfer_directory: host.bulk!.directory } });
    const text = "ünïcode payload ".repeat(1000);
    const published = await call(host, "blob_publish", { text, media_type: "text/plain; charset=utf-8" });
    expect(published.is_error).toBe(false);
    const ref = JSON.parse(published.content[0]!.text);
    expect(ref).toMatchObject({ bytes: Buffer.byteLength(text), digest: { algorithm: "sha256", value: new Bun.CryptoHasher("sha256").update(text).digest("hex") }, media_type: "text/plain; charset=utf-8" });
    expect(new TextDecoder().decode(host.bulk!.blob(ref.$blob))).toBe(text);
    expect((await call(host, "blob_read", { ref, max: 1 << 20 })).content[0]!.text).toBe(text);
    // Bounded by the reader: a blob over maxBytes is refused before any lease is taken.
    expect((await call(host, "blob_read", { ref, max: 10 })).content[0]!.text).toBe(`blob of ${ref.bytes} bytes exceeds maxBytes 10`);
    expect(host.bulk!.outstanding()).toBe(0);
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("a locator that is a symlink, or not one plain file name, is refused; nothing outside is written; the ticket is released", async () => {
    const host = await started({ bulk: true });
    const { symlinkSync, writeFileSync, readFileSync } = await import("node:fs");
    const outside = `${temporaryDirectory("octet-outside-")}/victim.txt`;
    writeFileSync(outside, "untouched");
    let locator = "";
    const released: unknown[] = [];
    host.onRequest("bulk/write", (params) => {
      if (locator === "link") symlinkSync(outside, `${host.bulk!.directory}/link`);
      return { ticket: "t-evil", profile: "local-file.v1", locator, capacity: params.capacity };
    });
    host.onRequest("bulk/release", (params) => (released.push(params.id), { released: true }));
    for (locator of ["link", "../victim.txt", "a/b", "."]) {
      const result = await call(host, "blob_publish", { text: "overwrite" });
      const why = locator === "link" ? /^storage_unavailable: cannot open the transfer file \(it is a symbolic link\)$/ : /^refusing the transfer locator: not one plain file name$/;
      expect({ locator, is_error: result.is_error, why: why.test(result.content[0]!.text) || result.content[0]!.text }).toEqual({ locator, is_error: true, why: true });
    }
    expect(readFileSync(outside, "utf8")).toBe("untouched");
    expect(released).toEqual(["t-evil", "t-evil", "t-evil", "t-evil"]);
    expect(host.extensionFrames().filter((f) => f.method === "bulk/commit")).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("without the offer (octet without bulk storage) the feature is not negotiated and publish is -32601", async () => {
    const host = await started();
    const result = await call(host, "blob_publish", { text: "x" });
    expect(result).toMatchObject({ is_error: true, content: [{ text: "ext.bulk.publish() needs the bulk_objects_v1 feature, which was not negotiated (API 0.4): the host did not offer it; octet offers it only with bulk storage configured" }] });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("partial results ($/progress partial_result, API 0.4)", () => {
  test("snapshots are sent as tool results under the call, in order, before the reply; a malformed one is refused locally", async () => {
    const host = await started();
    const id = host.peekNextId();
    expect(await host.callTool("partial", { bad: true })).toMatchObject({ content: [{ text: "both halves, done" }] });
    const events = host.notifications("$/progress").map((n) => n.params as Obj);
    expect(events).toEqual([
      { request_id: id, sequence: 1, event: { type: "partial_result", result: { content: [{ type: "text", text: "first half" }], is_error: false, metadata: {} } } },
      { request_id: id, sequence: 2, event: { type: "partial_result", result: { content: [{ type: "text", text: "both halves" }], is_error: false, metadata: {} } } },
    ]);
    expect(await host.shutdown()).toBe(0);
    // stderr is its own pipe: the log is only certain to be read once the process has exited.
    expect(host.logs().find((l) => l.message === "refused")).toMatchObject({ error: "tool result content must not be empty" });
    expect(host.violations).toEqual([]);
  });
});
