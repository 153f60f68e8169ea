import { describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { error, fixture, FULL_OFFER, text, NEGOTIATED } from "./helpers.ts";

const call = (id: number | string, name: string, args: object = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name, arguments: args, context: {} } });
const notification = (method: string, params: object) => JSON.stringify({ jsonrpc: "2.0", method, params });
for (const [api, V] of NEGOTIATED) {
  describe(`API ${api}: conformance fixture: concurrency, admission, cancellation (R4–R6; docs/protocol-0.2.md §10 49–56, 61, 83)`, () => {
    test("rendezvous of 4 parties completes under the negotiated concurrency of 4", async () => {
      const host = await fixture(V);
      const calls = [1, 2, 3, 4].map(() => host.callTool("rendezvous", { key: "k", parties: 4 }));
      for (const result of await Promise.all(calls)) expect(result).toEqual(text("rendezvous:k:4"));
      expect(await host.shutdown()).toBe(0);
    });

    test("with concurrency 4 a fifth party does not run until a slot frees (timeout reported)", async () => {
      const host = await fixture(V);
      const calls = [1, 2, 3, 4, 5].map(() => host.callTool("rendezvous", { key: "five", parties: 5, timeout_ms: 300 }));
      const results = await Promise.all(calls);
      expect(results.filter((r) => JSON.stringify(r).includes("timeout")).length).toBeGreaterThan(0);
      expect(await host.shutdown()).toBe(0);
    });

    test("lifecycle callbacks share the 16 admission slots: with all taken one is dropped with a warning, never run", async () => {
      const host = await fixture(V);
      // One write (under PIPE_BUF, so one read): the event is read while all 16 slots are taken.
      const calls = Array.from({ length: 16 }, (_, i) => call(200 + i, "slow", { ms: 300 }));
      host.sendRaw([...calls, notification("turn/started", { session_id: "s", run_id: "r", turn_id: "dropped" })].join("\n"));
      for (let i = 0; i < 16; i++) expect((await host.waitForReply(200 + i)).result).toEqual(text("slow:300"));
      host.lifecycle("turn/started", { session_id: "s", run_id: "r", turn_id: "kept" });
      const log = (await host.callTool("lifecycle_log", { min: 1 })) as { content: { text: string }[] };
      expect(log.content[0]!.text).toContain('"turn_id":"kept"');
      expect(log.content[0]!.text).not.toContain('"turn_id":"dropped"');
      expect(await host.shutdown()).toBe(0);
      expect(host.logs().filter((l) => l.message === "dropped lifecycle event because request queue is full")).toEqual([
        { level: "warning", message: "dropped lifecycle event because request queue is full", method: "turn/started" },
      ]);
    });

    test("admission: 16 admitted, the 17th is refused at once with -32000 and never runs; later calls are admitted again", async () => {
      const host = await fixture(V);
      const lines = Array.from({ length: 16 }, (_, i) => call(100 + i, "slow", { ms: 300 }));
      lines.push(call(116, "slow", { ms: 0 }));
      host.sendRaw(lines.join("\n"));
      expect((await host.waitForReply(116)).error).toEqual({ code: -32000, message: "extension request queue is full" });
      for (let i = 0; i < 16; i++) expect((await host.waitForReply(100 + i)).result).toEqual(text("slow:300"));
      // Refused at once: the refusal was written before any admitted call (300 ms each) was answered.
      const order = host.extensionFrames().map((f) => f.id);
      for (let i = 0; i < 16; i++) expect(order.indexOf(116)).toBeLessThan(order.indexOf(100 + i));
      expect(await host.callTool("echo", {})).toEqual(text("echo:{}"));
      expect(await host.shutdown()).toBe(0);
    });

    test("cancel a running call: -32800 with the reason; the ambient request id is the call's; repeats change nothing", async () => {
      const host = await fixture(V);
      // `announce` writes a status progress event once the handler runs: the cancel arrives while it waits.
      host.sendRaw(call(10, "slow", { ms: 5_000, announce: true }));
      await host.waitForFrame((f) => f.method === "$/progress" && (f.params as Record<string, unknown>).request_id === 10, 5_000);
      host.cancel(10, "user");
      host.cancel(10, "again");
      expect((await host.waitForReply(10)).error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "user" } });
      await Bun.sleep(50);
      expect(host.extensionFrames().filter((f) => f.id === 10).length).toBe(1);
      expect(await host.shutdown()).toBe(0);
    });

    test("a queued call cancelled before it starts never runs; its reply comes when a worker frees", async () => {
      const host = await fixture(V, { offer: { optional: ["request_progress"], maxConcurrentRequests: 1 } });
      // One write: the cancel is read while 11 still waits behind 10 (300 ms).
      host.sendRaw(
        [call(10, "slow", { ms: 300, announce: true }), call(11, "slow", { ms: 300, announce: true }), notification("$/cancelRequest", { id: 11, reason: "user" })].join("\n"),
      );
      expect((await host.waitForReply(10)).result).toEqual(text("slow:300"));
      expect((await host.waitForReply(11)).error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "user" } });
      const progress = host.notifications("$/progress").map((f) => (f.params as Record<string, unknown>).request_id);
      expect(progress).toEqual([10]);
      expect(await host.shutdown()).toBe(0);
    });

    test("a result committed first wins; late, unknown and malformed cancels write nothing; a cancel with an id gets {}", async () => {
      const host = await fixture(V);
      expect(await host.callTool("echo", {})).toEqual(text("echo:{}"));
      const settledId = host.peekNextId() - 1;
      const before = host.extensionFrames().length;
      host.cancel(settledId, "late");
      host.cancel(999, "unknown");
      host.notify("$/cancelRequest", {});
      host.notify("$/cancelRequest", { id: {} });
      host.sendRaw('{"jsonrpc":"2.0","id":77,"method":"$/cancelRequest","params":{"id":12345}}');
      expect((await host.waitForReply(77)).result).toEqual({});
      expect(host.extensionFrames().length).toBe(before + 1);
      expect(await host.shutdown()).toBe(0);
      expect(host.logs().some((l) => l.message === "ignored malformed cancellation")).toBe(true);
      expect(host.logs().some((l) => l.message === "ignored cancellation with invalid id")).toBe(true);
    });

    test("a duplicate in-flight id → -32600 for the duplicate; ids are echoed type-exact (u64 max, strings)", async () => {
      const host = await fixture(V);
      host.sendRaw(call(10, "slow", { ms: 200 }));
      host.sendRaw(call(10, "echo"));
      expect((await host.waitForFrame((f) => f.id === 10 && "error" in f)).error).toEqual({ code: -32600, message: "duplicate active request id" });
      host.sendRaw('{"jsonrpc":"2.0","id":18446744073709551615,"method":"tool/call","params":{"name":"echo","arguments":{}}}');
      // The test host decodes ids beyond 2^53 as bigint, exactly.
      expect((await host.waitForReply(18446744073709551615n)).result).toEqual(text("echo:{}"));
      expect(host.transcript.some((e) => e.from === "extension" && e.text.startsWith('{"jsonrpc":"2.0","id":18446744073709551615,"result"'))).toBe(true);
      host.sendRaw(call("job-β/7", "echo"));
      expect((await host.waitForReply("job-β/7")).result).toEqual(text("echo:{}"));
      expect(await host.shutdown()).toBe(0);
    });

    test("cancelling a call that waits for input cancels the child first ($/cancelRequest for its id), then -32800", async () => {
      const host = await fixture(V);
      host.onRequest("input/request", () => TestHost.noReply);
      host.sendRaw(call(20, "input", { prompt: "wait" }));
      const child = await host.waitForFrame((f) => f.method === "input/request");
      host.cancel(20, "user");
      expect((await host.waitForReply(20)).error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "user" } });
      const frames = host.extensionFrames();
      const cancel = frames.findIndex((f) => f.method === "$/cancelRequest" && (f.params as Record<string, unknown>).id === child.id);
      expect(cancel).toBeGreaterThan(-1);
      expect((frames[cancel]!.params as Record<string, unknown>).reason).toBe("user");
      expect(cancel).toBeLessThan(frames.findIndex((f) => f.id === 20));
      expect(await host.shutdown()).toBe(0);
    });

    test("late or unknown host responses to extension requests are ignored with a warning", async () => {
      const host = await fixture(V);
      host.sendRaw('{"jsonrpc":"2.0","id":"ts:999","result":{}}');
      expect(await host.callTool("echo", {})).toEqual(text("echo:{}"));
      expect(await host.shutdown()).toBe(0);
      expect(host.logs().some((l) => l.message === "ignored late or unknown response" && l.response_id === "ts:999")).toBe(true);
    });
  });

  describe(`API ${api}: conformance fixture: progress (R7; docs/protocol-0.2.md §10 57, 58)`, () => {
    test("two concurrent calls each get sequences [1,2,…] with exactly the specified events", async () => {
      const host = await fixture(V);
      const [a, b] = await Promise.all([host.callTool("progress", { steps: 2, output: true }), host.callTool("progress", { steps: 2 })]);
      expect(a).toEqual(text("progress:2"));
      expect(b).toEqual(text("progress:2"));
      const byRequest = new Map<unknown, Record<string, unknown>[]>();
      for (const f of host.notifications("$/progress")) {
        const p = f.params as Record<string, unknown>;
        byRequest.set(p.request_id, [...(byRequest.get(p.request_id) ?? []), p]);
      }
      const sequences = [...byRequest.values()].map((list) => list.map((p) => p.sequence));
      expect(sequences.sort((x, y) => y.length - x.length)).toEqual([[1, 2, 3, 4], [1, 2]]);
      const events = [...byRequest.values()].find((l) => l.length === 4)!.map((p) => p.event);
      expect(events).toEqual([
        { type: "status", message: "step 1/2", current: 1, total: 2, unit: "steps" },
        { type: "status", message: "step 2/2", current: 2, total: 2, unit: "steps" },
        { type: "output", stream: "stdout", encoding: "utf8", data: "progress output" },
        { type: "output", stream: "stderr", encoding: "base64", data: "AAEC" },
      ]);
      // Progress precedes the reply of its request.
      const frames = host.extensionFrames();
      for (const [requestId, list] of byRequest) {
        const reply = frames.findIndex((f) => f.id === requestId && "result" in f);
        const last = frames.findIndex((f) => f === host.notifications("$/progress").find((n) => n.params === list.at(-1)));
        expect(last).toBeLessThan(reply);
      }
      expect(await host.shutdown()).toBe(0);
    });

    test("slow announce emits only {type,message}; without request_progress the progress tool maps -32601 and writes nothing", async () => {
      const host = await fixture(V);
      await host.callTool("slow", { ms: 1, announce: true });
      expect(host.notifications("$/progress")[0]!.params).toMatchObject({ sequence: 1, event: { type: "status", message: "slow:started" } });
      expect(await host.shutdown()).toBe(0);
      const bare = await fixture(V, { offer: { optional: [] } });
      expect(await bare.callTool("progress", { steps: 1 })).toEqual(error("progress:error:-32601"));
      expect(bare.notifications("$/progress")).toEqual([]);
      expect(await bare.shutdown()).toBe(0);
    });

    test("after cancellation the progress helper refuses: nothing more is written for the request", async () => {
      const host = await fixture(V);
      host.sendRaw(call(30, "progress", { steps: 1, wait_cancel: true }));
      await host.waitForFrame((f) => f.method === "$/progress");
      host.cancel(30, "user");
      expect((await host.waitForReply(30)).error).toMatchObject({ code: -32800, data: { reason: "user" } });
      const events = host.notifications("$/progress").map((f) => (f.params as { event: { message: string } }).event.message);
      expect(events).toEqual(["step 1/1"]);
      expect(await host.shutdown()).toBe(0);
    });
  });
}
