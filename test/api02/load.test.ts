import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestHost } from "octet-extension/testing";
import { callLine, callRaw, killAll, launch, logsNamed, resultText, until } from "./helpers.ts";

/**
 * Scheduling under load on API 0.2 (docs/protocol-0.2.md §7, §8.3, §8.10): admission is a
 * non-blocking counter of 64 admitted-but-unfinished requests (running +
 * queued); the 65th is answered -32000 "extension request queue is full" at
 * once and its handler never runs; a slot is freed when the reply is handed to
 * the writer, so a host that keeps ≤ 64 in flight never meets a refusal;
 * every id gets exactly one reply. The fixture keeps the SDK defaults (local
 * concurrency 8, 64 pending).
 */

type Obj = Record<string, unknown>;
const QUEUE_FULL = { code: -32000, message: "extension request queue is full" };

afterEach(killAll);

/** Replies per id among the extension's frames. */
function repliesById(host: TestHost): Map<unknown, Obj[]> {
  const map = new Map<unknown, Obj[]>();
  for (const frame of host.extensionFrames()) {
    if ("method" in frame) continue;
    map.set(frame.id, [...(map.get(frame.id) ?? []), frame]);
  }
  return map;
}

describe("API 0.2 scheduling under load", () => {
  test("3000 requests with up to 64 in flight: every one admitted, exactly one correct reply each, no refusal", async () => {
    const host = await launch();
    const total = 3_000;
    const window = 64;
    let next = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const firstId = host.peekNextId();
    const outcomes: string[] = new Array(total);
    const worker = async () => {
      while (next < total) {
        const n = next++;
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const reply = await callRaw(host, "echo", { n, delay_ms: n % 4 });
        inFlight--;
        outcomes[n] = "error" in reply ? JSON.stringify(reply.error) : resultText(reply);
      }
    };
    await Promise.all(Array.from({ length: window }, worker));
    expect(maxInFlight).toBe(window);
    const wrong = outcomes.map((o, n) => [n, o] as const).filter(([n, o]) => o !== `echo:${n}`);
    expect(wrong).toEqual([]);
    await Bun.sleep(50);
    const replies = repliesById(host);
    for (let id = firstId; id < firstId + total; id++) expect(replies.get(id)?.length ?? 0).toBe(1);
    expect([...replies.keys()].filter((id) => typeof id === "number" && (id < firstId || id >= firstId + total))).toEqual([1]); // only initialize
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("3000 requests written in one burst: each id gets exactly one reply — its result, or the specified -32000 — and at least 64 are admitted", async () => {
    const host = await launch();
    const total = 3_000;
    const base = 100_000;
    host.sendRaw(Array.from({ length: total }, (_, i) => callLine(base + i, "echo", { n: i })).join("\n"));
    await until(() => repliesById(host).size >= total + 1, 15_000, "3000 replies");
    await Bun.sleep(50);
    const replies = repliesById(host);
    let admitted = 0;
    for (let i = 0; i < total; i++) {
      const list = replies.get(base + i) ?? [];
      expect(list.length).toBe(1);
      const frame = list[0]!;
      if ("error" in frame) expect(frame.error).toEqual(QUEUE_FULL);
      else {
        expect(frame.result).toEqual({ content: [{ type: "text", text: `echo:${i}` }], is_error: false, metadata: {} });
        admitted++;
      }
    }
    expect(admitted).toBeGreaterThanOrEqual(64);
    // After the burst, admission works again.
    expect(resultText(await callRaw(host, "echo", { n: "after" }))).toBe("echo:after");
    expect(await host.shutdown()).toBe(0);
  });

  test("default admission with blocked handlers: 64 admitted (8 running, 56 queued), the 65th refused at once and never run; then admitted again", async () => {
    const host = await launch();
    const lines = Array.from({ length: 65 }, (_, i) => callLine(200 + i, "gate", { name: "g65" }));
    host.sendRaw(lines.join("\n"));
    expect((await host.waitForReply(264)).error).toEqual(QUEUE_FULL);
    await until(() => logsNamed(host, "fixture gate entered").length === 8, 5_000, "8 running handlers");
    await Bun.sleep(100);
    // Nothing but the refusal has been answered; only the negotiated 8 are running.
    expect([...repliesById(host).keys()].filter((id) => id !== 1)).toEqual([264]);
    expect(logsNamed(host, "fixture gate entered").length).toBe(8);
    // A 66th while all 64 are still pending is refused too; a lifecycle event is dropped (it needs a slot).
    host.sendRaw(callLine(265, "echo", { n: 265 }));
    expect((await host.waitForReply(265)).error).toEqual(QUEUE_FULL);
    host.lifecycle("turn/started", { session_id: "s", run_id: "r", turn_id: "dropped" });
    await until(() => logsNamed(host, "dropped lifecycle event because request queue is full").length === 1, 5_000, "the dropped-event warning");
    writeFileSync(join(host.scratch, "g65"), "");
    for (let i = 0; i < 64; i++) expect(resultText(await host.waitForReply(200 + i))).toBe("gate:g65");
    // stderr is a separate pipe: its lines may trail the replies.
    await until(() => logsNamed(host, "fixture gate entered").length >= 64, 5_000, "64 gate logs");
    await Bun.sleep(50);
    const entered = logsNamed(host, "fixture gate entered").map((l) => l.request_id);
    expect(entered.length).toBe(64);
    expect(new Set(entered)).toEqual(new Set(Array.from({ length: 64 }, (_, i) => 200 + i)));
    expect(Math.max(...logsNamed(host, "fixture gate entered").map((l) => l.running as number))).toBe(8);
    // Once settled, 64 are admitted again.
    host.sendRaw(Array.from({ length: 64 }, (_, i) => callLine(300 + i, "echo", { n: i })).join("\n"));
    for (let i = 0; i < 64; i++) expect(resultText(await host.waitForReply(300 + i))).toBe(`echo:${i}`);
    await Bun.sleep(50);
    for (const [id, list] of repliesById(host)) expect([id, list.length]).toEqual([id, 1]);
    expect(await host.shutdown()).toBe(0);
  });

  test("a 200-request burst against blocked handlers: exactly the first 64 admitted, the other 136 get the specified -32000 at once", async () => {
    const host = await launch();
    host.sendRaw(Array.from({ length: 200 }, (_, i) => callLine(1_000 + i, "gate", { name: "g200" })).join("\n"));
    await until(() => repliesById(host).size === 1 + 136, 5_000, "136 refusals");
    for (let i = 64; i < 200; i++) expect(repliesById(host).get(1_000 + i)).toEqual([{ jsonrpc: "2.0", id: 1_000 + i, error: QUEUE_FULL }]);
    writeFileSync(join(host.scratch, "g200"), "");
    for (let i = 0; i < 64; i++) expect(resultText(await host.waitForReply(1_000 + i))).toBe("gate:g200");
    await Bun.sleep(50);
    expect(repliesById(host).size).toBe(1 + 200);
    for (const [, list] of repliesById(host)) expect(list.length).toBe(1);
    await until(() => logsNamed(host, "fixture gate entered").length >= 64, 5_000, "64 gate logs");
    await Bun.sleep(50);
    expect(logsNamed(host, "fixture gate entered").map((l) => l.request_id)).toEqual(expect.arrayContaining(Array.from({ length: 64 }, (_, i) => 1_000 + i)));
    expect(logsNamed(host, "fixture gate entered").length).toBe(64);
    expect(await host.shutdown()).toBe(0);
  });

  test("3000 requests, 64 in flight, every third cancelled mid-flight: still exactly one reply per id — the result or -32800 with the reason", async () => {
    const host = await launch();
    const total = 3_000;
    let next = 0;
    const firstId = host.peekNextId();
    const outcomes: unknown[] = new Array(total);
    const worker = async () => {
      while (next < total) {
        const n = next++;
        const id = host.peekNextId();
        const pending = callRaw(host, "echo", { n, delay_ms: n % 3 === 0 ? 2 : n % 2 });
        if (n % 3 === 0) host.cancel(id, `load-${n}`);
        const reply = await pending;
        outcomes[n] = "error" in reply ? reply.error : resultText(reply);
      }
    };
    await Promise.all(Array.from({ length: 64 }, worker));
    let cancelledCount = 0;
    for (let n = 0; n < total; n++) {
      const outcome = outcomes[n];
      if (typeof outcome === "string") expect(outcome).toBe(`echo:${n}`);
      else {
        expect(n % 3).toBe(0);
        expect(outcome).toEqual({ code: -32800, message: "request cancelled", data: { reason: `load-${n}` } });
        cancelledCount++;
      }
    }
    expect(cancelledCount).toBeGreaterThan(0);
    await Bun.sleep(50);
    const replies = repliesById(host);
    for (let id = firstId; id < firstId + total; id++) expect(replies.get(id)?.length ?? 0).toBe(1);
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("a queued request cancelled while all workers are blocked keeps its slot, never runs, and is answered -32800 when a worker reaches it", async () => {
    const host = await launch();
    host.sendRaw(Array.from({ length: 64 }, (_, i) => callLine(500 + i, "gate", { name: "gq" })).join("\n"));
    await until(() => logsNamed(host, "fixture gate entered").length === 8, 5_000, "8 running handlers");
    host.cancel(560, "user"); // queued (not among the 8 running)
    await Bun.sleep(100);
    expect(repliesById(host).has(560)).toBe(false); // answered only when a worker picks it up
    host.sendRaw(callLine(600, "echo", { n: 600 }));
    expect((await host.waitForReply(600)).error).toEqual(QUEUE_FULL); // its slot is still taken
    writeFileSync(join(host.scratch, "gq"), "");
    expect((await host.waitForReply(560)).error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "user" } });
    for (let i = 0; i < 64; i++) if (i !== 60) expect(resultText(await host.waitForReply(500 + i))).toBe("gate:gq");
    await until(() => logsNamed(host, "fixture gate entered").length >= 63, 5_000, "63 gate logs");
    await Bun.sleep(50);
    const entered = logsNamed(host, "fixture gate entered").map((l) => l.request_id);
    expect(entered.length).toBe(63);
    expect(entered).not.toContain(560);
    expect(await host.shutdown()).toBe(0);
  });
});
