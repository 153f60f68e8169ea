/** The test host in API 0.3 mode: it speaks the canonical wire and holds an extension to octet's 0.3 rules. */
import { afterEveryTest } from "../setup.ts";
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HostViolation, TestHost, temporaryDirectory } from "octet-extension/testing";
import { V03, V03_NO_HOOKS } from "./raw.ts";

const FAKE = new URL("../fixtures/api03-fake", import.meta.url).pathname;
const BINDING = { extension_instance_id: "0123456789abcdef0123456789abcdef", process_generation: 1, session_id: "session-0123456789abcdef" };

const hosts: TestHost[] = [];
afterEveryTest(() => {
  for (const host of hosts.splice(0)) host.kill();
});

async function start(dir: string, mode?: string): Promise<TestHost> {
  const workspace = temporaryDirectory("octet-v03-host-");
  if (mode) writeFileSync(join(workspace, "mode"), mode);
  const host = await TestHost.start(dir, { workspace, requestTimeoutMs: 10_000 });
  hosts.push(host);
  return host;
}

describe("TestHost with a 0.3 manifest", () => {
  test("initialize sends an offer built like octet's initialize-request.json and checks the selection", async () => {
    const host = await start(V03);
    const result = await host.initialize();
    const sent = host.transcript[0]!;
    expect(sent.from).toBe("host");
    const params = (sent.frame as any).params;
    expect(Object.keys(params)).toEqual(["api_version", "capabilities", "contract", "contributes", "extension", "flag_values", "host", "octet_version", "workspace"]);
    // octet's fixture contract, as in protocol/fixtures/extension-api-v0.3/initialize-request.json
    expect(sent.text).toContain(
      '"contract":{"encoding":"octet-canonical-json-v1","limits":{"max_concurrent_requests":4,"max_frame_bytes":1048576,"max_tools":256},"optional_capabilities":["lifecycle_events","migration.adapter.v1","provider_auth","provider_catalog","provider_stream"],"optional_methods":["hook/run","migration/detect","migration/import","provider/auth/request","provider/auth/revoke","provider/cancel","provider/event","provider/stream","providers/complete","providers/register","providers/unregister","providers/update"],"required_capabilities":["content_parts","core","request_cancellation","tool_call"],"required_methods":["$/cancelRequest","initialize","shutdown","tool/call"],"schema":"octet.extension.api/0.3"}',
    );
    expect(params.contributes).toEqual({ hooks: ["session_start", "session_end"], providers: true, tools: ["echo", "fail_error", "raise", "slow", "structured"] });
    expect(params.extension).toEqual({ manifest_path: host.manifest.path, name: "octet-conformance-fixture", source: "explicit", version: "1.0.0" });
    expect(result.api_version).toBe("0.3");
    expect([...host.contract03!.methods]).toEqual(["$/cancelRequest", "hook/run", "initialize", "provider/cancel", "provider/event", "provider/stream", "providers/complete", "providers/register", "shutdown", "tool/call"]);
    // every host frame is canonical: members sorted, compact
    for (const entry of host.transcript.filter((e) => e.from === "host")) expect(entry.text).toBe(JSON.stringify(sortDeep(JSON.parse(entry.text))));
  });

  test("callTool, runSessionHook and shutdown speak 0.3; the process leaves no violation", async () => {
    const host = await start(V03);
    await host.initialize();
    expect(await host.callTool("echo", { b: 2, a: 1 })).toEqual({ content: [{ text: 'echo:{"a":1,"b":2}', type: "text" }], is_error: false, metadata: null });
    const call = host.transcript.find((e) => e.from === "host" && (e.frame as any)?.method === "tool/call")!;
    expect((call.frame as any).params).toMatchObject({ arguments: { a: 1, b: 2 }, name: "echo" });
    expect(Object.keys((call.frame as any).params)).toEqual(["arguments", "context", "name"]);
    expect(await host.runSessionHook("session_start", { binding: BINDING })).toEqual({ disposition: { kind: "continue" } });
    expect(await host.runSessionHook("session_end", { binding: BINDING, duration_ms: 17, outcome: "shutdown", reason: "shutdown" })).toEqual({ disposition: { kind: "continue" } });
    await expect(host.callTool("raise", {})).rejects.toMatchObject({ code: -32603, message: "internal error" });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("a cancel from the host settles the call with -32800 and the reason", async () => {
    const host = await start(V03_NO_HOOKS);
    await host.initialize();
    const id = host.peekNextId();
    const call = host.callTool("slow", { ms: 10_000 });
    await Bun.sleep(100);
    host.cancel(id, "user");
    await expect(call).rejects.toMatchObject({ code: -32800, message: "request cancelled", data: { reason: "user" } });
    expect(await host.closeStdin()).toBe(0);
  });
});

describe("the test host is as strict as octet's on API 0.3 (a scripted peer breaks one rule each)", () => {
  test("control: a correct peer passes", async () => {
    const host = await start(FAKE, "good");
    await host.initialize();
    expect(await host.callTool("echo")).toEqual({ content: [{ text: "ok", type: "text" }], is_error: false, metadata: null });
    expect(await host.shutdown()).toBe(0);
  });

  const initializeBreaks: [string, RegExp][] = [
    ["whitespace", /stdout not octet-canonical-json-v1 at character \d+/],
    ["cr", /stdout frame contains a CR/],
    ["unoffered", /contract.capabilities selects session_lifecycle, which was not offered/],
    ["raised", /contract.limits.max_concurrent_requests 8 raises the offered 4/],
    ["unpaired-hooks", /hook\/run selected, but the manifest does not declare the session_start\/session_end pair/],
  ];
  for (const [mode, message] of initializeBreaks) {
    test(`initialize reply: ${mode}`, async () => {
      const host = await start(FAKE, mode);
      const error = await host.initialize().catch((e) => e);
      expect(error).toBeInstanceOf(HostViolation);
      expect(host.violations.join("\n")).toMatch(message);
    });
  }

  const callBreaks: [string, RegExp][] = [
    ["bad-error", /error -32601 must carry the message "unknown or unnegotiated method", not "method not found"/],
    ["no-metadata", /tool\/call result needs metadata \(required, nullable\)/],
    ["image", /content part type "image" is not foundation on API 0.3/],
    ["bound-over", /stdout frame exceeds max_frame_bytes 200 \(the LF excluded\)/],
  ];
  for (const [mode, message] of callBreaks) {
    test(`tool/call reply: ${mode}`, async () => {
      const host = await start(FAKE, mode);
      await host.initialize();
      const error = await host.callTool("echo").catch((e) => e);
      expect(error).toBeInstanceOf(Error);
      expect(host.violations.join("\n")).toMatch(message);
    });
  }

  test("a frame exactly at the selected bound is accepted", async () => {
    const host = await start(FAKE, "bound-exact");
    await host.initialize();
    const result = (await host.callTool("echo")) as any;
    expect(Buffer.byteLength(host.transcript.at(-1)!.text)).toBe(200);
    expect(result.is_error).toBe(false);
    expect(host.violations).toEqual([]);
  });

  test('a shutdown acknowledged with {} instead of {"terminal":"shutdown"} is a violation', async () => {
    const host = await start(FAKE, "shutdown-empty");
    await host.initialize();
    await expect(host.shutdown()).rejects.toThrow(/API 0.3 shutdown must be acknowledged with \{"terminal":"shutdown"\}/);
  });
});

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return Object.fromEntries(keys.map((k) => [k, sortDeep((value as Record<string, unknown>)[k])]));
  }
  return value;
}
