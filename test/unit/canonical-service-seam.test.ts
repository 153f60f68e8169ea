/**
 * The seam part B of issue 27 plugs providers, migration, session lifecycle and
 * the event bus into (`CanonicalService`): selection all-or-nothing, host→extension
 * requests and notifications routed to the service, and extension→host requests
 * (ids, reply checks, local refusals that write nothing). In-process: the
 * connection is fed frames and its writer is read back.
 */
import { describe, expect, test } from "bun:test";
import { RpcError } from "../../src/errors.ts";
import { Logger } from "../../src/log.ts";
import { CanonicalConnection } from "../../src/runtime/v03/canonical-connection.ts";
import { CanonicalRegistry, type HostLink } from "../../src/runtime/v03/canonical-registry.ts";
import { FrameWriter } from "../../src/wire/frame-writer.ts";

const canon = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
  if (v !== null && typeof v === "object") return `{${Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).map((k) => `${JSON.stringify(k)}:${canon((v as any)[k])}`).join(",")}}`;
  return JSON.stringify(v);
};

function setup(offerSessions: boolean) {
  const written: string[] = [];
  const writer = new FrameWriter({ write: (chunk) => (written.push(...String(chunk).split("\n").filter(Boolean)), 0), flush: () => 0 });
  const registry = new CanonicalRegistry();
  let link: HostLink | undefined;
  const seen: unknown[] = [];
  registry.addService({
    selection: (contributes) => (contributes.tools ? { capabilities: ["session_lifecycle"], methods: ["session/create", "session/switch"] } : undefined),
    ready: (l) => (link = l),
    stop: (reason) => seen.push(`stop:${reason}`),
  });
  const connection = new CanonicalConnection({ registry, logger: new Logger(() => {}, "error"), writer, handlersReady: undefined, cancelledReplyMs: 1000, cancellationGraceMs: 50, onStop: () => {} });
  const send = (frame: unknown) => connection.receive({ kind: "line", parts: [new TextEncoder().encode(canon(frame))] });
  const contract = {
    encoding: "octet-canonical-json-v1",
    limits: { max_concurrent_requests: 4, max_frame_bytes: 1048576, max_tools: 256 },
    optional_capabilities: offerSessions ? ["session_lifecycle"] : [],
    optional_methods: offerSessions ? ["session/create", "session/fork", "session/switch"] : [],
    required_capabilities: ["content_parts", "core", "request_cancellation", "tool_call"],
    required_methods: ["$/cancelRequest", "initialize", "shutdown", "tool/call"],
    schema: "octet.extension.api/0.3",
  };
  send({ id: 1, jsonrpc: "2.0", method: "initialize", params: { api_version: "0.3", capabilities: {}, contract, contributes: { tools: [] }, extension: {}, flag_values: [], host: {}, octet_version: "0.8.0", workspace: "/w" } });
  return { written, send, link: () => link, seen, flush: () => writer.drained() };
}

describe("the CanonicalService seam", () => {
  test("a group is selected only when all of it is offered", async () => {
    const { written, link, flush } = setup(false);
    await flush();
    expect(JSON.parse(written[0]!).result.contract.capabilities).toEqual(["content_parts", "core", "request_cancellation", "tool_call"]);
    expect(link()?.methods.has("session/create")).toBeFalsy();
  });

  test("extension→host requests: integer ids, checked replies, errors as RpcError, local refusals write nothing", async () => {
    const { written, send, link, flush } = setup(true);
    await flush();
    expect(JSON.parse(written[0]!).result.contract.methods).toEqual(["$/cancelRequest", "initialize", "session/create", "session/switch", "shutdown", "tool/call"]);
    await Bun.sleep(0);
    const host = link()!;
    const created = host.request("session/create", {});
    const switched = host.request("session/switch", { session_id: "s1" });
    await flush();
    expect(written.slice(1)).toEqual(['{"id":1,"jsonrpc":"2.0","method":"session/create","params":{}}', '{"id":2,"jsonrpc":"2.0","method":"session/switch","params":{"session_id":"s1"}}']);
    send({ id: 1, jsonrpc: "2.0", result: { session_id: "new-1" } });
    send({ error: { code: -32602, data: { why: "no such session" }, message: "invalid params" }, id: 2, jsonrpc: "2.0" });
    expect(await created).toEqual({ session_id: "new-1" });
    const failure = await switched.catch((e) => e);
    expect(failure).toBeInstanceOf(RpcError);
    expect(failure).toMatchObject({ code: -32602, message: "invalid params", data: { why: "no such session" } });

    const malformed = host.request("session/create", {});
    send({ id: 3, jsonrpc: "2.0", result: { session: "x" } });
    expect(await malformed.catch((e) => e)).toMatchObject({ code: -32603 });

    const before = written.length;
    expect(await host.request("session/fork", {}).catch((e) => e)).toMatchObject({ code: -32601 }); // offered, not selected
    expect(await host.request("session/switch", { session_id: "" + "x".repeat(300) }).catch((e) => e)).toMatchObject({ code: -32012 });
    expect(await host.request("session/switch", {}).catch((e) => e)).toMatchObject({ code: -32602 });
    expect(() => host.notify("session/create", {})).toThrow(/not a selected extension→host notification/);
    await flush();
    expect(written.length).toBe(before);
  });

  test("shutdown fails what is still waiting and stops the services", async () => {
    const { written, send, link, seen, flush } = setup(true);
    await Bun.sleep(0);
    const pending = link()!.request("session/create", {});
    send({ id: 9, jsonrpc: "2.0", method: "shutdown", params: {} });
    expect(await pending.catch((e) => e)).toMatchObject({ code: -32800, data: { reason: "shutdown" } });
    await flush();
    await Bun.sleep(10);
    expect(written.at(-1)).toBe('{"id":9,"jsonrpc":"2.0","result":{"terminal":"shutdown"}}');
    expect(seen).toEqual(["stop:shutdown"]);
  });
});
