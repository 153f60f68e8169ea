/**
 * Optional features selected only when the extension uses them, as octet's
 * SDKs select them (docs/api-0.4.md "Which optional features are selected").
 * Use is read from what is registered before `run()` and from the manifest's
 * `contributes`; every other implemented feature is selected whenever offered.
 */
import type { Feature } from "../protocol.ts";
import type { Registry } from "./registry.ts";
import type { JsonObject, ToolDefinition } from "./types.ts";

/** Whether the registrations or `contributes` use `feature`; true for features selected whenever offered. */
export function usesFeature(feature: Feature, registry: Registry, contributes: JsonObject): boolean {
  switch (feature) {
    case "tool_prompt_metadata_v1":
      return someTool(registry, (t) => t.prompt_snippet !== undefined || t.prompt_guidelines !== undefined);
    case "operation_descriptors_v1":
      return someTool(registry, (t) => t.operation !== undefined);
    case "resource_refs_v1":
      return registry.resourceTypes.size > 0;
    case "lifecycle_events":
      return registry.lifecycle.size > 0;
    case "cache_warming_decision":
    case "compaction_strategy":
      return registry.hooks.has(feature) || (Array.isArray(contributes.hooks) && contributes.hooks.includes(feature));
    default:
      return true;
  }
}

function someTool(registry: Registry, test: (definition: ToolDefinition) => boolean): boolean {
  for (const tool of registry.tools.values()) if (test(tool.definition)) return true;
  return false;
}
