import { describe, expect, test } from "bun:test";
import { currentCancellation, currentRequestId, persistenceMetadata, postMutationRescan, providerRetryDelay, RpcError } from "octet-extension";
import { inProcess } from "./harness.ts";

/** Run `fn` inside a tool handler and report what it threw (or "ok"). */
const outcome = async (fn: () => Promise<unknown>) => {
  try {
    await fn();
    return "ok";
  } catch (error) {
    return error instanceof RpcError ? `rpc ${error.code}: ${error.message}` : `arg: ${(error as Error).message}`;
  }
};

describe("helper local checks (docs/protocol-0.2.md §8.11): the right error family, nothing written", () => {
  test("ambient request id and cancellation inside a handler; none outside", async () => {
    let seen: unknown[] = [];
    const h = await inProcess((ext) => ext.tool({ name: "ambient", description: "d" }, () => ((seen = [currentRequestId(), currentCancellation() !== undefined]), "ok")));
    await h.callTool("ambient", {}, 10);
    expect(seen).toEqual([10, true]);
    expect(currentRequestId()).toBeUndefined();
  });

  test("progress: gate before shape; decoration needs progress_decoration; bounds on label and detail", async () => {
    const results: string[] = [];
    const h = await inProcess(
      (ext) =>
        ext.tool({ name: "p", description: "d" }, async () => {
          results.push(await outcome(() => ext.progressDecoration("ok-label", "detail")));
          results.push(await outcome(() => ext.progressDecoration("")));
          results.push(await outcome(() => ext.progressDecoration("x".repeat(257))));
          results.push(await outcome(() => ext.progress({ type: "status", message: "m", bogus: 1 } as never)));
          results.push(await outcome(() => ext.progress("fine", { current: 1 })));
          return "done";
        }),
      { features: ["request_progress", "progress_decoration"] },
    );
    await h.callTool("p");
    expect(results).toEqual([
      "ok",
      "arg: progress decoration label must be 1..256 UTF-8 bytes without control characters",
      "arg: progress decoration label must be 1..256 UTF-8 bytes without control characters",
      "arg: progress status event has unknown field bogus",
      "ok",
    ]);
    const events = h.frames.filter((f) => f.method === "$/progress").map((f) => [f.params.sequence, f.params.event]);
    expect(events).toEqual([
      [1, { type: "decoration", label: "ok-label", detail: "detail" }],
      [2, { type: "status", message: "fine", current: 1 }],
    ]);
  });

  test("partial_result progress is API 0.4 only: refused -32601 on 0.2, nothing written", async () => {
    const results: string[] = [];
    const h = await inProcess(
      (ext) => ext.tool({ name: "p", description: "d" }, async () => ((results.push(await outcome(() => ext.progress({ type: "partial_result", result: { content: "x" } })))), "done")),
      { features: ["request_progress"] },
    );
    await h.callTool("p");
    expect(results).toEqual(['rpc -32601: ext.progress({ type: "partial_result" }) needs API 0.4; this extension negotiated API 0.2: set api_version = "0.4" in manifest.toml']);
    expect(h.frames.filter((f) => f.method === "$/progress")).toEqual([]);
  });

  test("progress without the feature, or outside a handler, or after settling", async () => {
    const results: string[] = [];
    const late: string[] = [];
    const bare = await inProcess((ext) => ext.tool({ name: "p", description: "d" }, async () => ((results.push(await outcome(() => ext.progress("x")))), "done")));
    await bare.callTool("p");
    expect(results).toEqual(["rpc -32601: ext.progress() needs the request_progress feature, which was not negotiated (API 0.2): the host did not offer it"]);
    const h = await inProcess(
      (ext) => {
        ext.tool({ name: "p", description: "d" }, () => {
          // A timer keeps the handler's ambient request; it fires after the reply.
          setTimeout(async () => late.push(await outcome(() => ext.progress("late"))), 30);
          return "done";
        });
        ext.tool({ name: "outside", description: "d" }, () => "x");
      },
      { features: ["request_progress"] },
    );
    await h.callTool("p");
    await Bun.sleep(80);
    expect(late).toEqual(["rpc -32000: request has already settled"]);
    expect(await outcome(() => h.ext.progress("x"))).toBe("rpc -32602: progress requires an active parent request");
    expect(await outcome(() => h.ext.progress("x", { requestId: 424242 }))).toBe("rpc -32602: unknown progress request_id");
    expect(h.frames.filter((f) => f.method === "$/progress")).toEqual([]);
  });

  test("API 0.1 refusals: input, presentation; 0.2: presentation needs the manifest flag; outside a handler a parent is required", async () => {
    const old = await inProcess((ext) => ext.tool({ name: "t", description: "d" }, () => "x"), { api: "0.1" });
    expect(await outcome(() => old.ext.requestInput("name?", { parentRequestId: 1 }))).toBe('rpc -32601: ext.user.input() needs API 0.2 or 0.4; this extension speaks API 0.1: set api_version = "0.4" in manifest.toml');
    expect(await outcome(() => old.ext.publishPresentation({ revision: 0, activities: [], actions: [] } as never))).toBe('rpc -32601: ext.presentation.publish() needs API 0.2 or 0.4; this extension speaks API 0.1: set api_version = "0.4" in manifest.toml');
    const h = await inProcess((ext) => ext.tool({ name: "t", description: "d" }, () => "x"), { contributes: { confirmations: true } });
    expect(await outcome(() => h.ext.publishPresentation({ revision: 0, activities: [], actions: [] } as never))).toBe("rpc -32601: ext.presentation.publish() needs presentation = true under [contributes] in manifest.toml");
    expect(await outcome(() => h.ext.confirm("ok?"))).toBe("rpc -32602: operation-scoped host request requires parent_request_id");
    expect(await outcome(() => h.ext.requestInput("   "))).toBe("arg: input prompt must contain non-whitespace text");
    expect(await outcome(() => h.ext.requestInput("x".repeat(16 * 1024 + 1)))).toBe("arg: input prompt exceeds 16 KiB");
    // Exactly 16 KiB passes the size check and reaches the next one (the parent).
    expect(await outcome(() => h.ext.requestInput("x".repeat(16 * 1024)))).toBe("rpc -32602: operation-scoped host request requires parent_request_id");
    expect(h.frames.filter((f) => "method" in f)).toEqual([]);
  });

  test("explicit parent outside a handler is sent as given; string ids never collide with host ids", async () => {
    const h = await inProcess((ext) => ext.tool({ name: "t", description: "d" }, () => "x"), { contributes: { confirmations: true } });
    const answer = h.ext.confirm("ok?", { parentRequestId: 7 });
    const request = await h.waitFor((f) => f.method === "confirmation/request");
    expect(request.params.parent_request_id).toBe(7);
    expect(request.id).toBe("ts:1");
    h.send({ id: request.id, result: { confirmed: true } });
    expect(await answer).toBe(true);
  });

  test("presentation outside a handler: no parent, no owner; revision 0 twice refused; owner must be the full triple", async () => {
    const h = await inProcess((ext) => ext.command({ name: "workers", description: "d" }, () => "x"), { contributes: { presentation: true } });
    await h.ext.publishPresentation({ revision: 0, status: { state: "active", label: "ready" }, activities: [], actions: [] });
    const update = await h.waitFor((f) => f.method === "presentation/update");
    expect(update.params).toEqual({ snapshot: { revision: 0, status: { state: "active", label: "ready" }, activities: [], actions: [] } });
    expect(await outcome(() => h.ext.publishPresentation({ revision: 0, activities: [], actions: [] }))).toStartWith("arg: presentation revision 0 must be above");
    expect(await outcome(() => h.ext.publishPresentation({ revision: 1, activities: [], actions: [] }, { resourceOwner: { session_id: "s", extension_instance_id: "i" } as never }))).toStartWith("arg:");
    expect(await outcome(() => h.ext.publishPresentation({ revision: 2 ** 53, activities: [], actions: [] }))).toContain("portable");
    expect(h.frames.filter((f) => f.method === "presentation/update").length).toBe(1);
  });

  test("agents: wait timeout 0 and bad policies are argument errors; model listing needs agent_model_selection_v1", async () => {
    const h = await inProcess((ext) => ext.tool({ name: "t", description: "d" }, () => "x"), { features: ["agent_sessions"] });
    expect(await outcome(() => h.ext.waitAgents({ timeoutMs: 0, parentRequestId: 1 }))).toBe("arg: agent wait timeout_ms must be an integer in 1..60000");
    const spawn = { taskName: "t", message: "m", idempotencyKey: "k", tools: ["read"], maxDepth: 1, maxConcurrentChildren: 1, maxTurns: null, maxCostMicrodollars: null, maxOutputBytes: 512, timeoutMs: null, parentRequestId: 1 };
    expect(await outcome(() => h.ext.spawnAgent({ ...spawn, maxDepth: 2 }))).toBe("arg: agent policy max_depth must be exactly 1");
    expect(await outcome(() => h.ext.spawnAgent({ ...spawn, tools: ["read", "sudo"] }))).toStartWith("arg: agent policy tools");
    expect(await outcome(() => h.ext.spawnAgent({ ...spawn, maxOutputBytes: 511 }))).toStartWith("arg: agent policy max_output_bytes");
    expect(await outcome(() => h.ext.spawnAgent({ ...spawn, maxTokens: 999 }))).toStartWith("arg: agent policy max_tokens");
    expect(await outcome(() => h.ext.spawnAgent({ ...spawn, modelSelection: { provider: "p" } }))).toBe("arg: agent model_selection: an explicit provider needs an explicit model");
    expect(await outcome(() => h.ext.spawnAgent({ ...spawn, modelSelection: { model: "m" } }))).toBe("rpc -32601: ext.agents.spawn({ modelSelection }) needs the agent_model_selection_v1 feature, which was not negotiated (API 0.2): the host did not offer it; octet offers it only with a child-session service");
    expect(await outcome(() => h.ext.listAgentModels({ parentRequestId: 1 }))).toBe("rpc -32601: ext.agents.models() needs the agent_model_selection_v1 feature, which was not negotiated (API 0.2): the host did not offer it; octet offers it only with a child-session service");
    expect(await outcome(() => h.ext.listAgentModels({ limit: 101, parentRequestId: 1 }))).toBe("arg: agent model limit must be an integer in 1..100");
    expect(h.frames.filter((f) => "method" in f)).toEqual([]);
  });

  test("byte bounds at the edge with two-byte characters: label 256, detail 4096, agent message 128 KiB, canonical intent 32 KiB", async () => {
    const results: string[] = [];
    const h = await inProcess(
      (ext) =>
        ext.tool({ name: "p", description: "d" }, async () => {
          results.push(await outcome(() => ext.progressDecoration("é".repeat(128), "é".repeat(2048))));
          results.push(await outcome(() => ext.progressDecoration("é".repeat(128) + "x")));
          results.push(await outcome(() => ext.progressDecoration("label", "é".repeat(2048) + "x")));
          return "done";
        }),
      { features: ["request_progress", "progress_decoration", "agent_sessions", "policy_intents"] },
    );
    await h.callTool("p");
    expect(results).toEqual([
      "ok",
      "arg: progress decoration label must be 1..256 UTF-8 bytes without control characters",
      "arg: progress decoration detail must be 1..4096 UTF-8 bytes without control characters",
    ]);
    const spawn = { taskName: "t", idempotencyKey: "k", tools: ["read"], maxDepth: 1, maxConcurrentChildren: 1, maxOutputBytes: 512, parentRequestId: 1 };
    void h.ext.spawnAgent({ ...spawn, message: "é".repeat(64 * 1024) }).catch(() => undefined);
    expect(await outcome(() => h.ext.spawnAgent({ ...spawn, message: "é".repeat(64 * 1024) + "x" }))).toBe("arg: agent message exceeds 128 KiB");
    const intent = (text: string) => ({ kind: "k", operation: "o", target: { s: text } });
    const overhead = Buffer.byteLength(JSON.stringify(intent("")));
    void h.ext.evaluatePolicy(intent("é".repeat((32 * 1024 - overhead) / 2)), { parentRequestId: 1 }).catch(() => undefined);
    expect(await outcome(() => h.ext.evaluatePolicy(intent("é".repeat((32 * 1024 - overhead) / 2) + "x"), { parentRequestId: 1 }))).toBe(
      "arg: policy intent exceeds 32 KiB when canonically encoded",
    );
    await h.waitFor((f) => f.method === "policy/evaluate");
    expect(h.frames.filter((f) => f.method === "agent/spawn" || f.method === "policy/evaluate").map((f) => f.method)).toEqual(["agent/spawn", "policy/evaluate"]);
  });

  test("artifacts: source, size, digest and path checks come before the feature gate", async () => {
    const h = await inProcess((ext) => ext.tool({ name: "t", description: "d" }, () => "x"));
    expect(await outcome(() => h.ext.publishArtifact("png", { data: "x", parentRequestId: 1 }))).toStartWith("arg: artifact MIME type");
    expect(await outcome(() => h.ext.publishArtifact("image/png", { data: "png", size: 4, parentRequestId: 1 }))).toStartWith("arg: artifact size 4");
    expect(await outcome(() => h.ext.publishArtifact("image/png", { path: "/etc/passwd", size: 1, sha256: "0".repeat(64), parentRequestId: 1 }))).toStartWith("arg: artifact path must be relative");
    expect(await outcome(() => h.ext.publishArtifact("image/png", { path: "a/../b", size: 1, sha256: "0".repeat(64), parentRequestId: 1 }))).toStartWith("arg: artifact path must be relative");
    expect(await outcome(() => h.ext.publishArtifact("image/png", { data: "png", parentRequestId: 1 }))).toBe("rpc -32601: ext.artifacts.publish() needs the artifacts feature, which was not negotiated (API 0.2): the host did not offer it");
    expect(await outcome(() => h.ext.getSecret("bad name"))).toStartWith("arg: secret name must match");
    expect(await outcome(() => h.ext.getSecret("ok.name"))).toBe("rpc -32601: ext.secrets.get() needs the secrets feature, which was not negotiated (API 0.2): the host did not offer it; octet offers it with a secret broker when [capabilities].secrets in manifest.toml names secrets");
    expect(await outcome(() => h.ext.evaluatePolicy({ kind: "", operation: "x", target: {} }))).toStartWith("arg: policy intent kind");
    expect(await outcome(() => h.ext.evaluatePolicy({ kind: "k", operation: "o", target: {} }))).toBe("rpc -32601: ext.policy.evaluate() needs the policy_intents feature, which was not negotiated (API 0.2): the host did not offer it");
    expect(h.frames.filter((f) => "method" in f)).toEqual([]);
  });

  test("typed hook fields pass through for their own hook only; builders check their bounds", async () => {
    const h = await inProcess(
      (ext) => {
        ext.hook("before_persistence", () => ({ persistence_metadata: persistenceMetadata({ k: 1 }, { public: true }), post_mutation: { action: "no_rescan" } }));
        ext.hook("post_mutation", () => ({ post_mutation: postMutationRescan(["resource:1"]) }));
      },
      { contributes: { hooks: ["before_persistence", "post_mutation"] } },
    );
    h.send({ id: 5, method: "hook/run", params: { hook: "before_persistence", payload: {} } });
    expect((await h.waitFor((f) => f.id === 5)).result).toEqual({
      disposition: { action: "continue" },
      context: [],
      notifications: [],
      persistence_metadata: { public: true, value: { k: 1 } },
    });
    h.send({ id: 6, method: "hook/run", params: { hook: "post_mutation", payload: {} } });
    expect((await h.waitFor((f) => f.id === 6)).result.post_mutation).toEqual({ action: "request_rescan", resource_ids: ["resource:1"] });
    expect(() => postMutationRescan([])).toThrow();
    expect(() => postMutationRescan(Array.from({ length: 33 }, (_, i) => `r${i}`))).toThrow();
    expect(providerRetryDelay(250)).toEqual({ delay: { additional_delay_ms: 250 } });
    expect(() => providerRetryDelay(-1)).toThrow();
  });

  test("structured content that does not match output_schema is -32603", async () => {
    const h = await inProcess((ext) =>
      ext.tool(
        { name: "s", description: "d", outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false } },
        (args: { n: unknown }) => ({ content: "x", structured_content: { n: args.n } }),
      ),
    );
    expect((await h.callTool("s", { n: 2 })).result.structured_content).toEqual({ n: 2 });
    expect((await h.callTool("s", { n: 1.5 })).error).toMatchObject({ code: -32603 });
    expect((await h.callTool("s", { n: 1.5 })).error.message).toContain("does not match output_schema");
  });

  test("registration refuses an output_schema outside the bounded subset", () => {
    const { Extension } = require("octet-extension") as typeof import("octet-extension");
    const ext = new Extension({ apiVersion: "0.2", handleUncaught: false });
    expect(() => ext.tool({ name: "x", description: "d", outputSchema: { type: "object", patternProperties: {} } }, () => "")).toThrow(/patternProperties/);
  });
});

describe("review fixes (API 0.2)", () => {
  test("a handler's RpcError with a malformed code or message still yields a well-formed error object", async () => {
    const h = await inProcess((ext) => ext.tool({ name: "bad", description: "d" }, (args: { code: unknown }) => {
      throw new RpcError(args.code as number, { not: "a string" } as never);
    }));
    for (const code of ["oops", 1.5, null]) {
      const reply = await h.callTool("bad", { code });
      expect(reply.error.code).toBe(-32603);
      expect(typeof reply.error.message).toBe("string");
    }
    // Each failure is logged once, to the logger (the harness keeps the lines out of the runner's output).
    expect(h.logs.filter((l) => l.message === "request failed").map((l) => l.code)).toEqual(["oops", 1.5, null]);
  });

  test("approvals is never advertised without policy_intents (nor decoration without progress)", async () => {
    const h = await inProcess((ext) => ext.tool({ name: "t", description: "d" }, () => "x"), {
      features: ["approvals", "progress_decoration"],
      extension: { supportedFeatures: ["request_cancellation", "content_parts", "approvals", "progress_decoration"] },
    });
    expect([...h.ext.negotiatedFeatures]).toEqual(["request_cancellation", "content_parts"]);
  });

  test("typed hook fields are validated for their hook: bad values are -32603", async () => {
    let field: unknown;
    const h = await inProcess(
      (ext) => {
        ext.hook("provider_retry", () => ({ provider_retry: field }));
        ext.hook("post_mutation", () => ({ post_mutation: field }));
        ext.hook("before_persistence", () => ({ persistence_metadata: field }));
      },
      { contributes: { hooks: ["provider_retry", "post_mutation", "before_persistence"] } },
    );
    let id = 50;
    const run = async (hook: string, value: unknown, payload: object = {}) => {
      field = value;
      h.send({ id: ++id, method: "hook/run", params: { hook, payload } });
      return h.waitFor((f) => f.id === id);
    };
    expect((await run("provider_retry", "retry")).result.provider_retry).toBe("retry");
    expect((await run("provider_retry", { delay: { additional_delay_ms: 250 } })).result.provider_retry).toEqual({ delay: { additional_delay_ms: 250 } });
    expect((await run("provider_retry", "bogus")).error.code).toBe(-32603);
    expect((await run("provider_retry", { delay: { additional_delay_ms: -5 } })).error.code).toBe(-32603);
    expect((await run("post_mutation", { action: "explode" })).error.code).toBe(-32603);
    expect((await run("post_mutation", { action: "request_rescan", resource_ids: ["resource:9"] }, { affected_resources: ["resource:1"] })).error.code).toBe(-32603);
    expect((await run("post_mutation", { action: "request_rescan", resource_ids: ["resource:1"] }, { affected_resources: ["resource:1"] })).result.post_mutation).toEqual({ action: "request_rescan", resource_ids: ["resource:1"] });
    expect((await run("before_persistence", { value: 1, public: "yes" })).error.code).toBe(-32603);
    expect((await run("before_persistence", { value: "x".repeat(20_000) })).error.code).toBe(-32603);
  });

  test("a snapshot published by a timer its handler left behind is process-scoped", async () => {
    const h = await inProcess(
      (ext) =>
        ext.tool({ name: "later", description: "d" }, () => {
          setTimeout(() => void ext.publishPresentation({ revision: 1, activities: [], actions: [] }), 30);
          return "x";
        }),
      { contributes: { presentation: true } },
    );
    await h.callTool("later");
    const update = await h.waitFor((f) => f.method === "presentation/update");
    expect(update.params).toEqual({ snapshot: { revision: 1, activities: [], actions: [] } });
  });

  test("progress checks the parent before the event's shape; explicit parents must be u64", async () => {
    const h = await inProcess((ext) => ext.tool({ name: "t", description: "d" }, () => "x"), { features: ["request_progress"], contributes: { confirmations: true } });
    expect(await outcome(() => h.ext.progress({ type: "bogus" } as never))).toBe("rpc -32602: progress requires an active parent request");
    expect(await outcome(() => h.ext.confirm("?", { parentRequestId: 2 ** 64 }))).toBe("rpc -32602: parent_request_id must be an unsigned 64-bit integer");
  });

  test("spawnAgent sends omitted nullable limits as explicit null", async () => {
    const h = await inProcess((ext) => ext.tool({ name: "t", description: "d" }, () => "x"), { features: ["agent_sessions"] });
    void h.ext.spawnAgent({ taskName: "t", message: "m", idempotencyKey: "k", tools: ["read"], maxDepth: 1, maxConcurrentChildren: 1, maxOutputBytes: 512, parentRequestId: 1 }).catch(() => undefined);
    const spawn = await h.waitFor((f) => f.method === "agent/spawn");
    expect(spawn.params.policy).toEqual({ tools: ["read"], max_depth: 1, max_concurrent_children: 1, max_turns: null, max_tokens: null, max_cost_microdollars: null, max_output_bytes: 512, timeout_ms: null });
  });

  test("catalog mutations carry 1..256 entries: 0 and 257 are refused locally, 256 is sent", async () => {
    const results: string[] = [];
    const names = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);
    const h = await inProcess(
      (ext) =>
        ext.tool({ name: "m", description: "d" }, async () => {
          results.push(await outcome(() => ext.registerTools([])));
          results.push(await outcome(() => ext.unregisterTools([])));
          results.push(await outcome(() => ext.unregisterTools(names(257))));
          void ext.unregisterTools(names(256)).catch(() => undefined);
          return "done";
        }),
      { features: ["dynamic_tools"] },
    );
    await h.callTool("m");
    expect(results).toEqual(["arg: register needs 1..256 tool definitions", "arg: unregister needs 1..256 tool names", "arg: unregister needs 1..256 tool names"]);
    const sent = h.frames.filter((f) => f.method === "tools/register" || f.method === "tools/unregister");
    expect(sent.map((f) => [f.method, f.params.names.length])).toEqual([["tools/unregister", 256]]);
  });

  test("a 257th tool is refused at registration", () => {
    const { Extension } = require("octet-extension") as typeof import("octet-extension");
    const ext = new Extension({ apiVersion: "0.2", handleUncaught: false });
    for (let i = 0; i < 256; i++) ext.tool({ name: `t${i}`, description: "d" }, () => "");
    expect(() => ext.tool({ name: "t256", description: "d" }, () => "")).toThrow(/257th/);
  });
});
