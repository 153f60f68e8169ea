/**
 * The host calls are one API reached three ways (issue 26): ext's grouped
 * names, the deprecated flat names kept as one-line aliases, and `ctx.host`,
 * bound to its own request. All three write the same frames; `ctx.host` keeps
 * its request as the parent where the ambient scope is lost.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { CancellationToken } from "../../src/runtime/cancellation.ts";
import { CanonicalHandlerContext } from "../../src/runtime/v03/handler-context.ts";

const DIR = new URL("../fixtures/host-handle/octet-host-handle", import.meta.url).pathname;
type Obj = Record<string, unknown>;

const started: TestHost[] = [];
afterEach(() => {
  for (const host of started.splice(0)) host.kill();
});

async function launch(): Promise<TestHost> {
  const host = await TestHost.start(DIR, { requestTimeoutMs: 10_000 });
  started.push(host);
  await host.initialize();
  host.onRequest("confirmation/request", (params) => ({ confirmed: String(params.prompt).includes("ctx") || String(params.prompt).includes("grouped") || String(params.prompt).includes("flat") }));
  host.onRequest("policy/evaluate", () => ({ decision: "allow" }));
  host.onRequest("fixture/ping", (params) => ({ pong: params.style }));
  return host;
}

/** The frames the extension wrote while `run` ran, with request ids, the call's id and its style made comparable. */
async function framesOf(host: TestHost, style: string, run: (id: number) => Promise<unknown>): Promise<{ result: unknown; frames: Obj[] }> {
  const before = host.extensionFrames().length;
  const id = host.peekNextId();
  const result = await run(id);
  const frames = host
    .extensionFrames()
    .slice(before)
    .map((frame) => {
      const text = JSON.stringify(frame).replaceAll(`"ts:`, `"ts-`).replaceAll(style, "STYLE");
      const copy = JSON.parse(text) as Obj;
      if (typeof copy.id === "string") copy.id = "EXT";
      if (copy.id === id) copy.id = "CALL";
      return JSON.parse(JSON.stringify(copy).replaceAll(`"parent_request_id":${id}`, `"parent_request_id":"CALL"`).replaceAll(`"request_id":${id}`, `"request_id":"CALL"`)) as Obj;
    });
  return { result, frames };
}

describe("API 0.4: one host API, three ways to reach it", () => {
  test("ext's grouped names, the deprecated flat names and ctx.host write the same frames", async () => {
    const host = await launch();
    const runs: Record<string, { result: unknown; frames: Obj[] }> = {};
    for (const style of ["grouped", "flat", "ctx"]) {
      runs[style] = await framesOf(host, style, () => host.callTool("calls", { style }));
    }
    const grouped = runs.grouped!;
    expect((grouped.result as { is_error: boolean }).is_error).toBe(false);
    const text = (grouped.result as { content: { text: string }[] }).content[0]!.text;
    expect(JSON.parse(text)).toEqual({ confirmed: true, registered: true, removed: true, policy: { decision: "allow" }, raw: { pong: "grouped" }, composer: "" });
    const methods = grouped.frames.map((f) => f.method ?? "reply");
    expect(methods).toEqual(["notification", "confirmation/request", "$/progress", "$/progress", "tools/register", "tools/unregister", "policy/evaluate", "fixture/ping", "composer/get", "reply"]);
    // Every request carries the call as its parent, through either name and through ctx.host.
    for (const frame of grouped.frames.filter((f) => ["confirmation/request", "policy/evaluate", "fixture/ping", "composer/get"].includes(f.method as string))) {
      expect((frame.params as Obj).parent_request_id).toBe("CALL");
    }
    expect(runs.flat!.frames).toEqual(grouped.frames);
    expect(runs.ctx!.frames).toEqual(grouped.frames);
    expect(await host.shutdown()).toBe(0);
  });

  test("ctx.host keeps its request as the parent where the ambient scope is lost; ext's ambient call is refused", async () => {
    const host = await launch();
    const id = host.peekNextId();
    const result = (await host.callTool("queued")) as { content: { text: string }[] };
    expect(JSON.parse(result.content[0]!.text)).toEqual({ viaCtx: true, viaExt: "refused: operation-scoped host request requires parent_request_id" });
    const confirmations = host.extensionFrames().filter((f) => f.method === "confirmation/request");
    expect(confirmations.map((f) => f.params)).toEqual([{ prompt: "from the loop, via ctx.host", destructive: false, default: false, parent_request_id: id }]);
    expect(await host.shutdown()).toBe(0);
  });

  test("a helper typed Host takes ext and ctx.host alike", async () => {
    const host = await launch();
    const id = host.peekNextId();
    expect(await host.callTool("helper")).toEqual({ content: [{ type: "text", text: "helped" }], is_error: false, metadata: {} });
    const progress = host.extensionFrames().filter((f) => f.method === "$/progress");
    expect(progress.map((f) => f.params)).toEqual([
      { request_id: id, sequence: 1, event: { type: "status", message: "via ext" } },
      { request_id: id, sequence: 2, event: { type: "status", message: "via ctx.host" } },
    ]);
    expect(await host.shutdown()).toBe(0);
  });

  test("on API 0.3 ctx.host is refused in one line naming the version", () => {
    const ctx = new CanonicalHandlerContext({}, 1, "tool/call", new CancellationToken(), undefined);
    expect(() => ctx.host).toThrow('ctx.host is not available on extension API 0.3');
  });
});
