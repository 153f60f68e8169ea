import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";
import { error, fixture, FULL_OFFER, text, V02 } from "./helpers.ts";

const FIXTURE_TS = new URL("../fixtures/conformance/fixture.ts", import.meta.url).pathname;
const BUNFIG = new URL("../fixtures/bunfig.toml", import.meta.url).pathname;
const call = (id: number, name: string, args: object = {}) => JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name, arguments: args, context: {} } });

/** Install the 0.2 fixture in a fresh extension directory with extra `[entrypoint].env`. */
function installWithEnv(env: Record<string, string>): string {
  const dir = join(temporaryDirectory("fixture-install-"), "octet-conformance-fixture");
  mkdirSync(dir);
  const manifest = readFileSync(join(V02, "extension.toml"), "utf8").replace(
    'command = "extension"',
    `command = "extension"\nenv = { ${Object.entries(env).map(([k, v]) => `${k} = "${v}"`).join(", ")} }`,
  );
  writeFileSync(join(dir, "extension.toml"), manifest);
  writeFileSync(join(dir, "extension"), `#!/bin/sh\nexec bun --no-env-file --config="${BUNFIG}" "${FIXTURE_TS}" "$@"\n`);
  chmodSync(join(dir, "extension"), 0o755);
  return dir;
}

describe("conformance fixture: lifecycle notifications (R12; docs/protocol-0.2.md §10 76, 77)", () => {
  test("subscribed methods reach the handlers, never answered; others are ignored with a warning", async () => {
    const host = await fixture();
    host.lifecycle("turn/started", { session_id: "s", run_id: "r", turn_id: "t1" });
    host.lifecycle("turn/settled", { session_id: "s", run_id: "r", turn_id: "t1", outcome: "completed", duration_ms: 5, reason: null });
    host.lifecycle("tool/started", { session_id: "s", run_id: "r", turn_id: "t1", tool_call_id: "c", tool_name: "x" });
    const log = (await host.callTool("lifecycle_log", { min: 2 })) as { content: { text: string }[] };
    const records = JSON.parse(log.content[0]!.text.slice("lifecycle:".length));
    expect(records).toEqual([
      { method: "turn/settled", params: { duration_ms: 5, outcome: "completed", reason: null, run_id: "r", session_id: "s", turn_id: "t1" } },
      { method: "turn/started", params: { run_id: "r", session_id: "s", turn_id: "t1" } },
    ]);
    expect(host.extensionFrames().every((f) => !("id" in f) || typeof f.id === "number")).toBe(true);
    expect(await host.shutdown()).toBe(0);
    expect(host.logs().some((l) => l.message === "ignored unnegotiated lifecycle event" && l.method === "tool/started")).toBe(true);
  });

  test("without lifecycle_events negotiated nothing is delivered", async () => {
    const host = await fixture(V02, { offer: { optional: [] } });
    host.lifecycle("turn/started", { session_id: "s", run_id: "r", turn_id: "t1" });
    expect(await host.callTool("lifecycle_log", { min: 1, timeout_ms: 200 })).toEqual(text("lifecycle:[]"));
    expect(await host.shutdown()).toBe(0);
  });
});

describe("conformance fixture: presentation (R11; docs/protocol-0.2.md §10 78)", () => {
  test("inside a handler the snapshot carries the parent; with owner the triple and no parent; revisions must increase", async () => {
    const host = await fixture();
    const id = host.peekNextId();
    expect(await host.callTool("present", { revision: 1, activities: 2, actions: 1, nodes: 2 })).toEqual(text("present:1"));
    const first = host.notifications("presentation/update")[0]!.params as Record<string, unknown>;
    expect(first.parent_request_id).toBe(id);
    expect(first.resource_owner).toBeUndefined();
    expect((first.snapshot as { activities: unknown[] }).activities.length).toBe(2);
    expect(await host.callTool("present", { revision: 1 })).toEqual(error("present:local-error"));
    expect(await host.callTool("present", { revision: 2, owner: true })).toEqual(text("present:2"));
    const second = host.notifications("presentation/update")[1]!.params as Record<string, unknown>;
    expect(second.resource_owner).toEqual(host.resourceOwner);
    expect(second.parent_request_id).toBeUndefined();
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("bounds are refused locally and nothing is written: revision 2^53, 129 activities, 65 actions, 257 nodes, > 256 KiB", async () => {
    const host = await fixture();
    expect(await host.callTool("present", { revision: 2 ** 53 - 1, activities: 128, actions: 64, nodes: 256 })).toEqual(text(`present:${2 ** 53 - 1}`));
    for (const args of [{ revision: 2 ** 53 }, { revision: 2 ** 53, activities: 129 }, { revision: 2 ** 53, actions: 65 }, { revision: 2 ** 53, nodes: 257 }, { revision: 2 ** 53, pad: 300_000 }]) {
      expect(await host.callTool("present", args)).toEqual(error("present:local-error"));
    }
    expect(host.notifications("presentation/update").length).toBe(1);
    expect(await host.shutdown()).toBe(0);
  });
});

describe("conformance fixture: shutdown and EOF on API 0.2 (R13; docs/protocol-0.2.md §10 79–82)", () => {
  test("shutdown with drain_timeout_ms 0 cancels running work with reason shutdown before the ack; the hook runs first", async () => {
    const scratch = temporaryDirectory("fixture-scratch-");
    const host = await fixture(V02, { scratch });
    // `announce` writes a status progress event once the handler runs: shutdown arrives while it waits.
    host.sendRaw(call(10, "slow", { ms: 5_000, announce: true }));
    await host.waitForFrame((f) => f.method === "$/progress" && (f.params as Record<string, unknown>).request_id === 10, 5_000);
    host.sendRaw('{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{"drain_timeout_ms":0}}');
    expect(await host.exited).toBe(0);
    const frames = host.extensionFrames();
    const cancelled = frames.findIndex((f) => f.id === 10);
    expect(frames[cancelled]!.error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "shutdown" } });
    expect(cancelled).toBeLessThan(frames.findIndex((f) => f.id === 90 && "result" in f));
    expect(readFileSync(join(scratch, "fixture-shutdown.marker"), "utf8")).toBe("shutdown\n");
  });

  test("EOF right after shutdown still waits for a slow hook and writes the ack", async () => {
    const scratch = temporaryDirectory("fixture-scratch-");
    const host = await TestHost.start(installWithEnv({ FIXTURE_SHUTDOWN_HOOK_DELAY_MS: "500" }), { scratch });
    await host.initialize();
    host.sendRaw('{"jsonrpc":"2.0","id":9,"method":"shutdown","params":{}}');
    expect(await host.closeStdin()).toBe(0);
    expect(host.extensionFrames().at(-1)).toEqual({ jsonrpc: "2.0", id: 9, result: {} });
    expect(readFileSync(join(scratch, "fixture-shutdown.marker"), "utf8")).toBe("shutdown\n");
  });

  test("EOF while a call waits for input: the child is cancelled on the wire, the call settles -32800 transport_lost", async () => {
    const host = await fixture();
    host.onRequest("input/request", () => TestHost.noReply);
    host.sendRaw(call(20, "input", { prompt: "wait" }));
    const child = await host.waitForFrame((f) => f.method === "input/request");
    const started = performance.now();
    expect(await host.closeStdin()).toBe(0);
    expect(performance.now() - started).toBeLessThan(4_000);
    const frames = host.extensionFrames();
    const cancel = frames.findIndex((f) => f.method === "$/cancelRequest" && (f.params as Record<string, unknown>).id === child.id);
    const reply = frames.findIndex((f) => f.id === 20);
    expect(frames[reply]!.error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "transport_lost" } });
    expect(cancel).toBeGreaterThan(-1);
    expect(cancel).toBeLessThan(reply);
  });

  test("while draining, cancels and host responses are still processed; new requests get -32000", async () => {
    const host = await fixture(V02, { offer: FULL_OFFER });
    // `announce` writes a status progress event once the handler runs: shutdown arrives while it waits.
    host.sendRaw(call(10, "slow", { ms: 5_000, announce: true }));
    await host.waitForFrame((f) => f.method === "$/progress" && (f.params as Record<string, unknown>).request_id === 10, 5_000);
    host.sendRaw('{"jsonrpc":"2.0","id":90,"method":"shutdown","params":{}}');
    host.sendRaw(call(11, "echo"));
    host.cancel(10, "user");
    expect((await host.waitForReply(11)).error).toEqual({ code: -32000, message: "extension is draining" });
    expect((await host.waitForReply(10)).error).toEqual({ code: -32800, message: "request cancelled", data: { reason: "user" } });
    expect((await host.waitForReply(90)).result).toEqual({});
    expect(await host.exited).toBe(0);
  });
});
