/**
 * The test host's 0.4 initialize rules (docs/api-0.4.md "The test host in 0.4
 * mode"), checked directly: each reply octet 0.8.x rejects is named, and what
 * it accepts passes. The process-level side is test/api04/negotiation.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { loadManifest } from "octet-extension/testing";
import { V02, V04 } from "../dispatch-fixture.ts";
import { checkInitializeResult } from "../../src/testing/host-rules.ts";
import { DEFAULT_OPTIONAL_FEATURES_04, REQUIRED_FEATURES } from "../../src/testing/host-params.ts";

type Obj = Record<string, unknown>;

const v04 = loadManifest(V04);
const v02 = loadManifest(V02);
const offered04 = { features: [...REQUIRED_FEATURES, ...DEFAULT_OPTIONAL_FEATURES_04], required: REQUIRED_FEATURES };
const reply = (protocol: Obj, extra: Obj = {}): Obj => ({
  api_version: "0.4",
  tools: v04.contributes.tools.map((name) => ({ name, description: "d", parameters: { type: "object" } })),
  commands: v04.contributes.commands.map((name) => ({ name, description: "d" })),
  protocol: { version: "0.4", features: ["request_cancellation", "content_parts"], limits: { max_concurrent_requests: 4 }, ...protocol },
  ...extra,
});

describe("test host: API 0.4 initialize rules", () => {
  test("a reply octet 0.8.x accepts passes, with or without the exact resource limits", () => {
    expect(checkInitializeResult(reply({}), v04, offered04)).toBeUndefined();
    const limits = { max_concurrent_requests: 4, resource_refs_v1: { max_records: 256, max_registrations_per_parent: 32 } };
    expect(checkInitializeResult(reply({ limits, features: ["request_cancellation", "content_parts", "resource_refs_v1"] }), v04, offered04)).toBeUndefined();
    // The manifest's own renderer list, and no shortcuts when none are declared, are what octet expects.
    expect(checkInitializeResult(reply({}, { tool_renderers: ["echo", "mark"], shortcuts: [] }), v04, offered04)).toBeUndefined();
  });

  test("each reply octet 0.8.x rejects is named", () => {
    const cases: [Obj, string][] = [
      [{ ...reply({}), api_version: "0.2" }, 'initialize api_version "0.2" differs from the manifest\'s 0.4'],
      [reply({ version: "0.2" }), "protocol.version must be 0.4"],
      [{ ...reply({}), protocol: undefined }, "API 0.4 initialize result requires protocol"],
      [reply({ limits: { max_concurrent_requests: 4, resource_refs_v1: { max_records: 128, max_registrations_per_parent: 32 } } }), "unsupported resource registry limits"],
      [reply({ limits: { max_concurrent_requests: 4, resource_refs_v1: { max_records: 256, max_registrations_per_parent: 32, extra: 1 } } }), "unsupported resource registry limits"],
      [reply({ limits: { max_concurrent_requests: 4, max_message_bytes: 1048576 } }), "protocol.limits has unknown keys max_message_bytes"],
      [reply({ limits: { max_concurrent_requests: 0 } }), "protocol.limits.max_concurrent_requests must be a positive integer"],
      [reply({ features: ["request_cancellation", "content_parts", "bulk_objects_v1"] }), "protocol.features names bulk_objects_v1, which was not offered"],
      [reply({ features: ["request_cancellation", "content_parts", "autocomplete_edit_v1"] }), "autocomplete_edit_v1 negotiation requires autocomplete"],
      [reply({ features: ["request_cancellation"] }), "protocol.features lacks required content_parts"],
      [reply({}, { surprise: true }), "initialize result has unknown keys surprise"],
      [reply({}, { tool_renderers: ["mark"] }), "runtime tool renderers require dynamic_tool_renderers negotiation"],
      [reply({}, { shortcuts: [{ key: "ctrl+k", name: "k", description: "K" }] }), "initialized shortcuts do not match manifest declarations"],
    ];
    for (const [result, message] of cases) expect({ result, violation: checkInitializeResult(result, v04, offered04) }).toEqual({ result, violation: message });
  });

  test("on 0.2 the resource limits key is not part of the closed limits", () => {
    const offered02 = { features: [...REQUIRED_FEATURES, "request_progress"], required: REQUIRED_FEATURES };
    const result = { ...reply({ version: "0.2", limits: { max_concurrent_requests: 4, resource_refs_v1: { max_records: 256, max_registrations_per_parent: 32 } } }), api_version: "0.2" };
    expect(checkInitializeResult(result, v02, offered02)).toBe("protocol.limits has unknown keys resource_refs_v1");
  });
});
