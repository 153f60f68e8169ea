/**
 * Optional features are selected as used, by octet's SDKs' rules (docs/api-0.4.md
 * "Which optional features are selected"), process level, against octet 0.8.x's
 * full 0.4 offer. Fixtures: test/fixtures/selection/ (one tool plus one use each),
 * test/fixtures/values/ (prompt metadata and both 0.4 hooks declared and handled),
 * test/fixtures/resources/ (tools with operations).
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_OPTIONAL_FEATURES_04 } from "../../src/testing/host-params.ts";
import { expectCleanStreams, startHost } from "../helpers.ts";

type Obj = Record<string, unknown>;
const fixture = (path: string) => new URL(`../fixtures/${path}`, import.meta.url).pathname;

/** Initialize with the host's offer (octet's full 0.4 offer unless `optional` is given); the selected features and tool definitions. */
async function negotiate(dir: string, optional?: string[], edit: (params: Obj) => Obj = (p) => p) {
  const host = await startHost(dir, optional ? { offer: { optional } } : {});
  const params = edit(host.initializeParams());
  const offered = (params.protocol as Obj).optional_features as string[];
  const result = await host.initialize(params);
  const features = (result.protocol as Obj).features as string[];
  expect(await host.shutdown()).toBe(0);
  expectCleanStreams(host);
  return { offered, features, tools: result.tools as Obj[] };
}

describe("tool_prompt_metadata_v1: selected only when a tool declares prompt metadata", () => {
  test("no tool declares promptSnippet or promptGuidelines → not selected, although octet's full 0.4 offer has it", async () => {
    const { offered, features, tools } = await negotiate(fixture("selection/nothing"));
    expect(offered).toEqual(DEFAULT_OPTIONAL_FEATURES_04);
    expect(offered).toContain("tool_prompt_metadata_v1");
    expect(features).not.toContain("tool_prompt_metadata_v1");
    expect(tools).toEqual([{ name: "probe", description: "Answer ok", parameters: { type: "object" } }]);
  });

  test("a tool declaring promptSnippet → selected, and the snippet is sent", async () => {
    const { features, tools } = await negotiate(fixture("selection/snippet"));
    expect(features).toContain("tool_prompt_metadata_v1");
    expect(tools).toEqual([{ name: "probe", description: "Answer ok", parameters: { type: "object" }, prompt_snippet: "probe: answers ok" }]);
  });

  test("a tool declaring promptGuidelines, even empty → selected (octet counts a declared field, not its content)", async () => {
    const { features, tools } = await negotiate(fixture("selection/guidelines"));
    expect(features).toContain("tool_prompt_metadata_v1");
    expect(tools[0]!.prompt_guidelines).toEqual([]);
  });
});

describe("cache_warming_decision and compaction_strategy: selected only for a declared or handled hook", () => {
  const HOOK_FEATURES = ["cache_warming_decision", "compaction_strategy"];
  const withHooks = [...DEFAULT_OPTIONAL_FEATURES_04, ...HOOK_FEATURES];

  test("offered, but the hook is neither declared in contributes.hooks nor handled → not selected", async () => {
    const { offered, features } = await negotiate(fixture("selection/nothing"), withHooks);
    expect(offered).toEqual(expect.arrayContaining(HOOK_FEATURES));
    expect(features).toEqual(expect.not.arrayContaining(HOOK_FEATURES));
  });

  test("declared in contributes.hooks without a handler → selected (octet will call it)", async () => {
    const declare = (params: Obj) => ({ ...params, contributes: { ...(params.contributes as Obj), hooks: HOOK_FEATURES } });
    const { features } = await negotiate(fixture("selection/nothing"), withHooks, declare);
    expect(features).toEqual(expect.arrayContaining(HOOK_FEATURES));
  });

  test("declared and handled (what octet offers them for) → selected", async () => {
    const { offered, features } = await negotiate(fixture("values/values-v04"));
    expect(offered).toEqual(expect.arrayContaining(HOOK_FEATURES));
    expect(features).toEqual(expect.arrayContaining(HOOK_FEATURES));
  });
});

describe("operation_descriptors_v1: selected only when a tool declares an operation", () => {
  test("a resource type but no tool with an operation → resource_refs_v1 selected, operation_descriptors_v1 not", async () => {
    const { offered, features } = await negotiate(fixture("selection/resource-type"));
    expect(offered).toEqual(expect.arrayContaining(["resource_refs_v1", "operation_descriptors_v1"]));
    expect(features).toContain("resource_refs_v1");
    expect(features).not.toContain("operation_descriptors_v1");
  });

  test("tools with operations → both selected", async () => {
    const { features } = await negotiate(fixture("resources/resources-v04"));
    expect(features).toEqual(expect.arrayContaining(["resource_refs_v1", "operation_descriptors_v1"]));
  });

  test("neither → neither selected", async () => {
    const { features } = await negotiate(fixture("selection/nothing"));
    expect(features).toEqual(expect.not.arrayContaining(["resource_refs_v1", "operation_descriptors_v1"]));
  });
});
