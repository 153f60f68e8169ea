/**
 * API 0.4 initialize, process level (docs/api-0.4.md "Negotiation"): the
 * version echo rules, tolerance of what octet 0.8.x adds to the offer, and a
 * reply inside the host's closed key sets that never selects a feature this
 * runtime does not implement. Fixture: test/fixtures/dispatch/dispatch-v04.
 */
import { describe, expect, test } from "bun:test";
import { type Obj, V04 } from "../dispatch-fixture.ts";
import { expectCleanStreams, startHost } from "../helpers.ts";
import { temporaryDirectory } from "octet-extension/testing";

/** What the runtime implements of octet 0.8.x's 0.4 offer, in offer order (required first). */
const SELECTED = [
  "request_cancellation",
  "content_parts",
  "request_progress",
  "progress_decoration",
  "artifacts",
  "policy_intents",
  "dynamic_tools",
  "composer",
  "session_entries",
  "message_injection",
  "active_tools",
  // tool_prompt_metadata_v1 is offered but not selected: no tool of this fixture declares prompt metadata.
];

describe("API 0.4 initialize", () => {
  test("octet 0.8.x's full 0.4 offer → version 0.4 echoed, only implemented features selected, closed protocol and limits", async () => {
    const host = await startHost(V04);
    const params = host.initializeParams();
    const protocol = params.protocol as Obj;
    // The double offers what the current host offers a 0.4 manifest: 0.4 features the runtime does not implement among them.
    expect(protocol.version).toBe("0.4");
    expect(protocol.optional_features).toEqual(expect.arrayContaining(["shortcuts", "runtime_commands", "resource_refs_v1", "tool_prompt_metadata_v1", "autocomplete_edit_v1"]));
    expect((protocol.limits as Obj).resource_refs_v1).toEqual({ max_records: 256, max_registrations_per_parent: 32 });
    expect(params.flag_values).toEqual([]);
    const result = (await host.initialize()) as Obj;
    expect(Object.keys(result).sort()).toEqual(["api_version", "commands", "protocol", "tools"]);
    expect(result.api_version).toBe("0.4");
    expect(result.protocol).toEqual({ version: "0.4", features: SELECTED, limits: { max_concurrent_requests: 8 } });
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });

  test("keys octet 0.8.x adds (flag_values, bulk_objects_v1, resource limits, open host state, unknown features) are tolerated", async () => {
    const host = await startHost(V04);
    const base = host.initializeParams();
    const protocol = base.protocol as Obj;
    const params: Obj = {
      ...base,
      flag_values: [
        { name: "depth", value: 3 },
        { name: "verbose", value: true },
        { name: "zone", value: "eu" },
      ],
      host: { ...(base.host as Obj), theme: "dark", context_usage: null, keybindings: {}, project_trusted: true, has_ui: false, mode: "tui", model_view: {}, pi_models: [] },
      capabilities: { ...(base.capabilities as Obj), system_prompt: true, environment: ["DISPLAY"] },
      protocol: {
        ...protocol,
        optional_features: ["future_feature_v9", ...(protocol.optional_features as string[]), "bulk_objects_v1", "session_control_v1"],
        limits: { max_concurrent_requests: 3, resource_refs_v1: { max_records: 256, max_registrations_per_parent: 32 }, future_limit: 1 },
        bulk_objects_v1: {
          profile: "local-file.v1",
          // A usable offer names a private directory of this user's (docs/api-0.4.md "Bulk objects").
          transfer_directory: temporaryDirectory("octet-bulk-"),
          limits: { object_bytes: 268435456, owner_bytes: 536870912, write_tickets_per_generation: 8, read_leases_per_generation: 32, blobs_per_owner: 256 },
        },
      },
    };
    const reply = await host.request("initialize", params);
    expect(reply.error).toBeUndefined();
    // Both extra offers are implemented: bulk_objects_v1 (its offer object is usable) and session_control_v1.
    expect(reply.result).toMatchObject({ api_version: "0.4", protocol: { version: "0.4", features: [...SELECTED, "bulk_objects_v1", "session_control_v1"], limits: { max_concurrent_requests: 3 } } });
    expect(await host.callTool("echo", { text: "after 0.4 init" })).toBeDefined();
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });

  test("a 0.4 extension refuses protocol.version 0.2 and api_version 0.2 with -32000, and stays uninitialised", async () => {
    const host = await startHost(V04);
    const base = host.initializeParams();
    const notYet = { code: -32600, message: "initialize must be the first request" };
    const wrongProtocol = await host.request("initialize", { ...base, protocol: { ...(base.protocol as Obj), version: "0.2" } });
    expect(wrongProtocol.error).toEqual({ code: -32000, message: "unsupported executable-extension protocol version" });
    expect((await host.request("tool/call", { name: "echo", arguments: {} })).error).toEqual(notYet);
    const wrongApi = await host.request("initialize", { ...base, api_version: "0.2", protocol: { ...(base.protocol as Obj), version: "0.2" } });
    expect(wrongApi.error).toEqual({ code: -32000, message: "unsupported API version: the host asked for API 0.2, this extension speaks API 0.4 (new Extension({ apiVersion }) or OCTET_EXTENSION_API_VERSION)" });
    expect((await host.request("tool/call", { name: "echo", arguments: {} })).error).toEqual(notYet);
    expect(await host.initialize()).toMatchObject({ api_version: "0.4" });
    expect(await host.shutdown()).toBe(0);
  });

  test("a 0.2 extension refuses a 0.4 initialize (the version is never upgraded silently)", async () => {
    const host = await startHost(V04.replace("dispatch-v04", "dispatch-v02"));
    const base = host.initializeParams();
    const reply = await host.request("initialize", { ...base, api_version: "0.4", protocol: { ...(base.protocol as Obj), version: "0.4" } });
    expect(reply.error).toEqual({ code: -32000, message: "unsupported API version: the host asked for API 0.4, this extension speaks API 0.2 (new Extension({ apiVersion }) or OCTET_EXTENSION_API_VERSION)" });
    expect(await host.initialize()).toMatchObject({ api_version: "0.2" });
    expect(await host.shutdown()).toBe(0);
  });
});
