import { describe, expect, test } from "bun:test";
import { until } from "./api02/helpers.ts";
import { ready } from "./helpers.ts";

const FIXTURE = new URL("./fixtures/reverse-bounds", import.meta.url).pathname;
const OFFER = { offer: { optional: ["policy_intents", "secrets"] } };
const REPLIES: Record<string, unknown> = {
  "confirmation/request": { confirmed: true },
  "policy/evaluate": { decision: "allow", reason: "ok" },
  "secret/get": { value: "s3cret" },
};

/** Hold every reply to `method` until released, counting what was sent. */
async function holding(method: string) {
  const host = await ready(FIXTURE, OFFER);
  const held: (() => void)[] = [];
  let released = false;
  host.onRequest(method, () => (released ? REPLIES[method] : new Promise((resolve) => held.push(() => resolve(REPLIES[method])))));
  const sent = () => host.extensionFrames().filter((f) => f.method === method).length;
  // Release what is held and answer every later request at once: requests that were waiting for a
  // slot are written only after these replies arrive, however long that takes on a loaded machine.
  const releaseAll = async () => {
    released = true;
    for (const release of held.splice(0)) release();
  };
  return { host, held, sent, releaseAll };
}

describe("extension → host requests in flight on API 0.2 (docs/protocol-0.2.md §1.4, §1.9, §7)", () => {
  test("at most 128 requests are outstanding: the 129th policy/evaluate waits for a reply", async () => {
    const { host, held, sent, releaseAll } = await holding("policy/evaluate");
    const call = host.callTool("policy_many", { count: 129 });
    await host.waitForFrame((f) => f.method === "policy/evaluate" && f.id === "ts:128");
    await Bun.sleep(100);
    expect(sent()).toBe(128);
    held.shift()!();
    await host.waitForFrame((f) => f.method === "policy/evaluate" && f.id === "ts:129");
    expect(sent()).toBe(129);
    await releaseAll();
    expect(await call).toMatchObject({ content: [{ type: "text", text: "129 decisions" }], is_error: false });
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  for (const [tool, method, done] of [
    ["confirm_many", "confirmation/request", "9 approved"],
    ["secret_many", "secret/get", "9 secrets"],
  ] as const) {
    test(`at most 8 ${method} are outstanding (octet's child workers): the 9th waits`, async () => {
      const { host, held, sent, releaseAll } = await holding(method);
      const call = host.callTool(tool, { count: 9 });
      await host.waitForFrame((f) => f.method === method && f.id === "ts:8");
      await Bun.sleep(100);
      expect(sent()).toBe(8);
      held.shift()!();
      await host.waitForFrame((f) => f.method === method && f.id === "ts:9");
      expect(sent()).toBe(9);
      await releaseAll();
      expect(await call).toMatchObject({ content: [{ type: "text", text: done }], is_error: false });
      expect(host.violations).toEqual([]);
      expect(await host.shutdown()).toBe(0);
    });
  }

  test("child-worker and plain requests share the 128 but only the former count toward 8", async () => {
    const confirms = await holding("confirmation/request");
    const { host } = confirms;
    const policies: (() => void)[] = [];
    host.onRequest("policy/evaluate", () => new Promise((resolve) => policies.push(() => resolve({ decision: "allow", reason: "ok" }))));
    const a = host.callTool("confirm_many", { count: 10 });
    const b = host.callTool("policy_many", { count: 20 });
    const policiesSent = () => host.extensionFrames().filter((f) => f.method === "policy/evaluate").length;
    await until(() => policiesSent() === 20 && confirms.sent() === 8, 5_000, "20 policy requests and 8 confirmations");
    await Bun.sleep(100); // no 9th confirmation follows while the 8 are held
    expect(confirms.sent()).toBe(8);
    expect(policiesSent()).toBe(20);
    for (const release of policies.splice(0)) release();
    await confirms.releaseAll();
    expect(await a).toMatchObject({ content: [{ type: "text", text: "10 approved" }] });
    expect(await b).toMatchObject({ content: [{ type: "text", text: "20 decisions" }] });
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("a call cancelled while it waits for a child-worker slot is answered -32800 at once, and the held requests are untouched", async () => {
    const { host, held, sent, releaseAll } = await holding("secret/get");
    const holder = host.callTool("secret_many", { count: 8 });
    await host.waitForFrame((f) => f.method === "secret/get" && f.id === "ts:8");
    const waiterId = host.peekNextId();
    const waiter = host.request("tool/call", { name: "secret_many", arguments: { count: 1 }, context: host.executionContext() });
    // The waiter's handler is running (and asking for its secret) before it is cancelled.
    await until(() => host.logs().some((l) => l.message === "secret_many started" && l.count === 1), 5_000, "the waiter's handler to start");
    await Bun.sleep(100);
    expect(sent()).toBe(8);
    host.cancel(waiterId, "user");
    const reply = await waiter;
    expect(reply.error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "user" } });
    expect(held).toHaveLength(8); // nothing was released to let it through
    expect(sent()).toBe(8);
    expect(host.extensionFrames().filter((f) => f.method === "$/cancelRequest")).toEqual([]);
    await releaseAll();
    expect(await holder).toMatchObject({ content: [{ type: "text", text: "8 secrets" }] });
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("a request with a free slot is written in the caller's tick: before the reply of a handler that did not await it", async () => {
    const { host, releaseAll } = await holding("secret/get");
    expect(await host.callTool("secret_unawaited")).toMatchObject({ content: [{ type: "text", text: "returned" }] });
    const frames = host.extensionFrames();
    const request = frames.findIndex((f) => f.method === "secret/get");
    const reply = frames.findIndex((f) => f.result !== undefined && JSON.stringify(f.result).includes("returned"));
    expect(request).toBeGreaterThanOrEqual(0);
    expect(request).toBeLessThan(reply);
    await releaseAll();
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});
