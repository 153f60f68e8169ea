/**
 * API 0.3 providers in process: the connection is fed canonical frames and its
 * writer is read back (as in test/unit/canonical-service-seam.test.ts).
 * Selection of the update and auth groups, ext.providers calls, and the
 * runtime's stream bounds: each bad event becomes one terminal error event.
 */
import { describe, expect, test } from "bun:test";
import { Extension } from "../../src/runtime/extension.ts";
import { Logger } from "../../src/log.ts";
import { CanonicalConnection } from "../../src/runtime/v03/canonical-connection.ts";
import type { ProviderDeclaration, ProviderHandlers } from "../../src/runtime/v03/provider-types.ts";
import { CanonicalProviders } from "../../src/runtime/v03/providers.ts";
import { CanonicalRegistry } from "../../src/runtime/v03/canonical-registry.ts";
import { FrameWriter } from "../../src/wire/frame-writer.ts";
import { canon, defaultOffer } from "./raw.ts";

const MODEL = { api_name: "m", capabilities: { parallel_tool_calls: false, reasoning: false, structured_output: false, tools: false }, context_window: 10, id: "m", max_output_tokens: 5, protocol: "openai_chat" as const };
const DECL: ProviderDeclaration = { id: "p", label: "P", models: [MODEL] };

function setup(handlers: ProviderHandlers, declaration: ProviderDeclaration = DECL, offer = defaultOffer()) {
  const frames: any[] = [];
  const writer = new FrameWriter({ write: (chunk) => (frames.push(...String(chunk).split("\n").filter(Boolean).map((l) => JSON.parse(l))), 0), flush: () => 0 });
  const registry = new CanonicalRegistry();
  const providers = new CanonicalProviders(new Logger(() => {}, "error"));
  providers.add(declaration, handlers);
  for (const service of providers.services()) registry.addService(service);
  const connection = new CanonicalConnection({ registry, logger: new Logger(() => {}, "error"), writer, handlersReady: undefined, cancelledReplyMs: 1000, cancellationGraceMs: 50, onStop: () => {} });
  const send = (frame: unknown) => connection.receive({ kind: "line", parts: [new TextEncoder().encode(canon(frame))] });
  send({ id: 1, jsonrpc: "2.0", method: "initialize", params: { api_version: "0.3", capabilities: {}, contract: offer, contributes: { providers: true, tools: [] }, extension: {}, flag_values: [], host: {}, octet_version: "0.8.0", workspace: "/w" } });
  const until = async (predicate: () => boolean) => {
    for (let i = 0; i < 200 && !predicate(); i++) await Bun.sleep(5);
    expect(predicate()).toBe(true);
  };
  const answerRegister = async () => {
    await until(() => frames.some((f) => f.method === "providers/register"));
    send({ id: frames.find((f) => f.method === "providers/register").id, jsonrpc: "2.0", result: { model_ids: ["m"], provider_ids: ["p"], revision: 1 } });
    await until(() => frames.some((f) => f.method === "providers/complete"));
  };
  const events = () => frames.filter((f) => f.method === "provider/event").map((f) => f.params);
  return { frames, send, providers, until, answerRegister, events };
}

const stream = (id: string) => ({ id: 9, jsonrpc: "2.0", method: "provider/stream", params: { model_id: "m", provider_id: "p", request: {}, stream_id: id } });

describe("selection", () => {
  test("updates: true and an auth kind other than none add their groups; without them neither is selected", async () => {
    const plain = setup({ async *stream() {} });
    await plain.until(() => plain.frames.length > 0);
    expect(plain.frames[0].result.contract.methods).toEqual(["$/cancelRequest", "initialize", "provider/cancel", "provider/event", "provider/stream", "providers/complete", "providers/register", "shutdown", "tool/call"]);
    const full = setup({ async *stream() {}, updates: true }, { ...DECL, auth: { kind: "oauth", scopes: ["read"] } });
    await full.until(() => full.frames.length > 0);
    expect(full.frames[0].result.contract.capabilities).toEqual(["content_parts", "core", "provider_auth", "provider_catalog", "provider_stream", "request_cancellation", "tool_call"]);
    expect(full.frames[0].result.contract.methods).toContain("providers/update");
    expect(full.frames[0].result.contract.methods).toContain("provider/auth/revoke");
  });

  test("without a stream handler only the catalog is selected", async () => {
    const { frames, until } = setup({});
    await until(() => frames.length > 0);
    expect(frames[0].result.contract.capabilities).toEqual(["content_parts", "core", "provider_catalog", "request_cancellation", "tool_call"]);
  });
});

describe("ext.providers calls", () => {
  test("update, unregister, authorize and revoke send their requests and return the host's answers", async () => {
    const s = setup({ async *stream() {}, updates: true }, { ...DECL, auth: { kind: "host_credential" } });
    await s.answerRegister();
    const updated = s.providers.update({ ...DECL, auth: { kind: "host_credential" }, label: "P2" });
    await s.until(() => s.frames.some((f) => f.method === "providers/update"));
    const update = s.frames.find((f) => f.method === "providers/update");
    expect(update.params.provider).toEqual({ auth: { kind: "host_credential" }, id: "p", label: "P2" });
    s.send({ id: update.id, jsonrpc: "2.0", result: { model_ids: ["m"], provider_ids: ["p"], revision: 2 } });
    expect(await updated).toEqual({ model_ids: ["m"], provider_ids: ["p"], revision: 2 });
    const auth = s.providers.authorize("p", { interactive: true, scopes: ["x"] });
    await s.until(() => s.frames.some((f) => f.method === "provider/auth/request"));
    const request = s.frames.find((f) => f.method === "provider/auth/request");
    expect(request.params).toEqual({ action: "authorize", interactive: true, provider_id: "p", scopes: ["x"] });
    s.send({ id: request.id, jsonrpc: "2.0", result: { lease: "L", status: "ready" } });
    expect(await auth).toEqual({ lease: "L", status: "ready" });
    const revoked = s.providers.revoke("p");
    await s.until(() => s.frames.some((f) => f.method === "provider/auth/revoke"));
    const revoke = s.frames.find((f) => f.method === "provider/auth/revoke");
    expect(revoke.params).toEqual({ action: "revoke", interactive: false, provider_id: "p" });
    s.send({ id: revoke.id, jsonrpc: "2.0", result: { status: "revoked" } });
    expect(await revoked).toEqual({ status: "revoked" });
    const gone = s.providers.unregister("p");
    await s.until(() => s.frames.some((f) => f.method === "providers/unregister"));
    const unregister = s.frames.find((f) => f.method === "providers/unregister");
    expect(unregister.params).toEqual({ provider_id: "p" });
    s.send({ id: unregister.id, jsonrpc: "2.0", result: { model_ids: [], provider_ids: [], revision: 3 } });
    expect((await gone).revision).toBe(3);
    expect(s.providers.catalog?.revision).toBe(3);
  });

  test("a call whose method was not selected is one line naming what to declare; nothing is written", async () => {
    const s = setup({ async *stream() {} });
    await s.answerRegister();
    const before = s.frames.length;
    await expect(s.providers.update(DECL)).rejects.toThrow("ext.providers.update(): providers/update was not selected in this contract (declare the provider with { updates: true } and contributes.providers = true, and the host must offer it)");
    await expect(s.providers.authorize("p")).rejects.toThrow('provider/auth/request was not selected in this contract (declare a provider whose auth.kind is not "none"');
    expect(s.frames.length).toBe(before);
  });
});

describe("stream bounds: one terminal error event, nothing after", () => {
  const cases: [string, ProviderHandlers["stream"], string][] = [
    ["a payload over 65,536 canonical bytes", async function* () { yield { kind: "text_delta", payload: { delta: "x".repeat(65_536), index: 0 } }; }, "exceeds max_provider_stream_event_bytes 65536"],
    ["an unknown kind", async function* () { yield { kind: "nope" as any, payload: {} }; }, 'unknown provider event kind "nope"'],
    ["a payload member octet does not decode", async function* () { yield { kind: "text_start", payload: { index: 0, extra: 1 } as any }; }, 'payload member "extra" is not one of index'],
    ["a throw", async function* () { yield { kind: "started", payload: {} }; throw new Error("model crashed"); }, "model crashed"],
    ["an end without finished", async function* () { yield { kind: "started", payload: {} }; }, "the stream handler ended without a finished event"],
  ];
  for (const [name, handler, message] of cases) {
    test(name, async () => {
      const s = setup({ stream: handler });
      await s.answerRegister();
      s.send(stream("s"));
      await s.until(() => s.events().some((e) => e.kind === "error"));
      const events = s.events();
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i));
      expect(events.at(-1).payload.message).toContain(message);
      await Bun.sleep(30);
      expect(s.events().length).toBe(events.length);
    });
  }

  test("the 100,000th event must be terminal: a longer stream ends with error at sequence 99,999", async () => {
    const s = setup({
      async *stream() {
        for (let i = 0; i < 100_005; i++) yield { kind: "heartbeat", payload: {} };
      },
    });
    await s.answerRegister();
    s.send(stream("long"));
    await s.until(() => s.events().some((e) => e.kind === "error"));
    const events = s.events();
    expect(events.length).toBe(100_000);
    expect(events.at(-1)).toMatchObject({ kind: "error", sequence: 99_999 });
  }, 30_000);

  test("provider/cancel aborts the handler's signal; no event follows", async () => {
    let aborted: unknown;
    const s = setup({
      async *stream(_req, ctx) {
        yield { kind: "started", payload: {} };
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
        aborted = ctx.signal.reason;
        yield { kind: "text_start", payload: { index: 0 } };
      },
    });
    await s.answerRegister();
    s.send(stream("c"));
    await s.until(() => s.events().length === 1);
    s.send({ jsonrpc: "2.0", method: "provider/cancel", params: { reason: "user", stream_id: "c" } });
    await s.until(() => aborted !== undefined);
    await Bun.sleep(30);
    expect(aborted).toBe("user");
    expect(s.events().map((e) => e.kind)).toEqual(["started"]);
  });
});

describe("registration", () => {
  test("a bad declaration is one line naming the key", () => {
    const ext = new Extension({ apiVersion: "0.3", logOutput: () => {} });
    expect(() => ext.provider({ ...DECL, models: [{ ...MODEL, context_window: 1.5 }] })).toThrow("ext.provider(): models[0].context_window must be an integer from 0 to 2^53−1");
    expect(() => ext.provider({ ...DECL, id: "x".repeat(65) })).toThrow("ext.provider(): provider.id exceeds max_provider_id_bytes (64 bytes)");
    expect(() => ext.provider({ ...DECL, models: [MODEL, MODEL] })).toThrow("ext.provider(): provider `p` declares model `m` twice");
  });

  test("on another API version ext.provider() and ext.providers are refused in one line", () => {
    const ext = new Extension({ apiVersion: "0.4", logOutput: () => {} });
    expect(() => ext.provider(DECL)).toThrow('ext.provider() is available on extension API 0.3 only (this extension speaks 0.4); declare api_version "0.3" to provide models');
    expect(() => ext.providers).toThrow("ext.providers is available on extension API 0.3 only");
  });
});
