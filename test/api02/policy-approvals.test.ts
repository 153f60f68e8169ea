import { afterEach, describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { callRaw, DEFAULT_OPTIONAL, killAll, launch, payload, requestsOf } from "./helpers.ts";

/**
 * policy/evaluate approval tokens (docs/protocol-0.2.md §4.9, §8.11): checks in order — intent
 * shape (arg); policy_intents (rpc -32601); token 64 lowercase hex (arg) and
 * approvals negotiated (rpc -32601); parent. A returned token must be 64
 * lowercase hex (rpc -32603), needs negotiated approvals (rpc -32601) and an
 * `ask` decision (rpc -32603). Nothing is written when a local check fails.
 */

type Obj = Record<string, unknown>;
const TOKEN = "0123456789abcdef".repeat(4);
const MALFORMED = {
  uppercase: TOKEN.toUpperCase(),
  "63 chars": TOKEN.slice(1),
  "65 chars": `${TOKEN}a`,
  "non-hex": "g".repeat(64),
  empty: "",
  "leading space": ` ${TOKEN.slice(1)}`,
  "one uppercase hex digit": `${TOKEN.slice(0, 63)}F`,
};
const WITH_APPROVALS = { optional: [...DEFAULT_OPTIONAL, "approvals"] };
/** The local refusal of `call` for want of `feature`, which this host does not offer (docs/api-0.4.md "Refusal texts"). */
const notNegotiated = (feature: string, call = "ext.policy.evaluate()") => ({ code: -32601, message: `${call} needs the ${feature} feature, which was not negotiated (API 0.2): the host did not offer it` });
const argError = { content: [{ type: "text", text: expect.any(String) }], is_error: true, metadata: {} };
const policyFrames = (host: TestHost) => requestsOf(host, "policy/evaluate");

afterEach(killAll);

describe("approval tokens sent by the extension", () => {
  test("approvals negotiated: a 64-lowercase-hex token is sent with the intent and the parent; without one no approval_token key", async () => {
    const host = await launch({ offer: WITH_APPROVALS });
    expect(host.features.has("approvals")).toBe(true);
    host.onRequest("policy/evaluate", (params) => (params.approval_token ? { decision: "allow" } : { decision: "deny" }));
    const first = host.peekNextId();
    expect(payload(await callRaw(host, "policy", {}), "policy")).toEqual({ decision: "deny" });
    const second = host.peekNextId();
    expect(payload(await callRaw(host, "policy", { token: TOKEN }), "policy")).toEqual({ decision: "allow" });
    const [plain, retry] = policyFrames(host).map((f) => f.params as Obj);
    expect(Object.keys(plain!)).not.toContain("approval_token");
    expect(plain!.parent_request_id).toBe(first);
    expect(retry!.approval_token).toBe(TOKEN);
    expect(retry!.parent_request_id).toBe(second);
    expect(retry!.intent).toEqual(plain!.intent);
    expect(await host.shutdown()).toBe(0);
  });

  test.each(Object.entries(MALFORMED))("approvals negotiated: a malformed token (%s) is an argument error; nothing is written", async (_kind, token) => {
    const host = await launch({ offer: WITH_APPROVALS });
    expect((await callRaw(host, "policy", { token })).result).toEqual(argError);
    expect(policyFrames(host)).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("approvals not negotiated: a well-formed token → -32601 naming approvals; a malformed one is still an argument error; nothing written", async () => {
    const host = await launch(); // octet's default offer: policy_intents, no approvals
    expect(host.features.has("policy_intents")).toBe(true);
    expect(host.features.has("approvals")).toBe(false);
    expect((await callRaw(host, "policy", { token: TOKEN })).error).toEqual(notNegotiated("approvals", "ext.policy.evaluate({ approvalToken })"));
    for (const token of Object.values(MALFORMED)) expect((await callRaw(host, "policy", { token })).result).toEqual(argError);
    expect(policyFrames(host)).toEqual([]);
    // Without a token the same intent goes out.
    expect(payload(await callRaw(host, "policy", {}), "policy")).toEqual({ decision: "deny" });
    expect(policyFrames(host).length).toBe(1);
    expect(await host.shutdown()).toBe(0);
  });

  test("policy_intents not negotiated: -32601 names policy_intents, before the token is looked at; a malformed intent is an argument error first", async () => {
    const host = await launch({ offer: { optional: [] } });
    expect((await callRaw(host, "policy", {})).error).toEqual(notNegotiated("policy_intents"));
    expect((await callRaw(host, "policy", { token: TOKEN })).error).toEqual(notNegotiated("policy_intents"));
    expect((await callRaw(host, "policy", { token: "nope" })).error).toEqual(notNegotiated("policy_intents"));
    expect((await callRaw(host, "policy", { intent: { kind: "x", operation: " ", target: {} } })).result).toEqual(argError);
    expect((await callRaw(host, "policy", { intent: { kind: "x", operation: "y", target: {}, extra: 1 } })).result).toEqual(argError);
    expect(policyFrames(host)).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });
});

describe("approval tokens returned by the host", () => {
  test("approvals negotiated: ask + token is returned to the caller; ask without token too", async () => {
    const host = await launch({ offer: WITH_APPROVALS });
    host.onRequest("policy/evaluate", () => ({ decision: "ask", approval_token: TOKEN }));
    expect(payload(await callRaw(host, "policy", {}), "policy")).toEqual({ decision: "ask", approval_token: TOKEN });
    host.onRequest("policy/evaluate", () => ({ decision: "ask" }));
    expect(payload(await callRaw(host, "policy", {}), "policy")).toEqual({ decision: "ask" });
    expect(await host.shutdown()).toBe(0);
  });

  test("approvals negotiated: a malformed returned token, or a token with allow/deny → -32603", async () => {
    const host = await launch({ offer: WITH_APPROVALS });
    const replies: Obj[] = [
      { decision: "ask", approval_token: TOKEN.toUpperCase() },
      { decision: "ask", approval_token: TOKEN.slice(1) },
      { decision: "ask", approval_token: 42 },
      { decision: "allow", approval_token: TOKEN },
      { decision: "deny", approval_token: TOKEN },
    ];
    for (const reply of replies) {
      host.onRequest("policy/evaluate", () => reply);
      expect(((await callRaw(host, "policy", {})).error as Obj | undefined)?.code).toBe(-32603);
    }
    expect(policyFrames(host).length).toBe(replies.length);
    expect(await host.shutdown()).toBe(0);
  });

  test("approvals NOT negotiated: a well-formed returned token → -32601 naming approvals (even with ask); a malformed one → -32603", async () => {
    const host = await launch();
    host.onRequest("policy/evaluate", () => ({ decision: "ask", approval_token: TOKEN }));
    expect((await callRaw(host, "policy", {})).error).toEqual(notNegotiated("approvals", "ext.policy.evaluate() receiving an approval token"));
    host.onRequest("policy/evaluate", () => ({ decision: "allow", approval_token: TOKEN }));
    expect((await callRaw(host, "policy", {})).error).toEqual(notNegotiated("approvals", "ext.policy.evaluate() receiving an approval token"));
    host.onRequest("policy/evaluate", () => ({ decision: "ask", approval_token: "B".repeat(64) }));
    expect(((await callRaw(host, "policy", {})).error as Obj | undefined)?.code).toBe(-32603);
    // A plain decision is fine, and host errors are re-raised with their code and message.
    host.onRequest("policy/evaluate", () => ({ decision: "ask" }));
    expect(payload(await callRaw(host, "policy", {}), "policy")).toEqual({ decision: "ask" });
    host.onRequest("policy/evaluate", () => TestHost.errorReply(-32602, "approval token requires negotiated approvals"));
    expect((await callRaw(host, "policy", {})).error).toEqual({ code: -32602, message: "approval token requires negotiated approvals" });
    expect(await host.shutdown()).toBe(0);
  });
});
