import type { DynamicToolDefinition } from "./catalog-changes.ts";
import type { Host } from "./host-handle.ts";
import type { JsonObject } from "./types.ts";

/**
 * The flat names the host calls had before they were grouped by wire
 * namespace (`Host`, host-handle.ts). `Extension` inherits them so existing
 * extensions run unchanged; each is one line calling its grouped name.
 * Refusals name the grouped call either way (`ext.agents.list() needs …`).
 */
export abstract class DeprecatedNames {
  abstract get user(): Host["user"];
  abstract get contribute(): Host["contribute"];
  abstract get presentation(): Host["presentation"];
  abstract get artifacts(): Host["artifacts"];
  abstract get policy(): Host["policy"];
  abstract get secrets(): Host["secrets"];
  abstract get agents(): Host["agents"];
  abstract get tools(): Host["tools"];
  abstract get hostState(): JsonObject | undefined;

  /** @deprecated `ext.user.notify()` */ notify(...a: Parameters<Host["user"]["notify"]>) { return this.user.notify(...a); }
  /** @deprecated `ext.user.confirm()` */ confirm(...a: Parameters<Host["user"]["confirm"]>) { return this.user.confirm(...a); }
  /** @deprecated `ext.user.input()` */ requestInput(...a: Parameters<Host["user"]["input"]>) { return this.user.input(...a); }
  /** @deprecated `ext.contribute.context()` */ contributeContext(...a: Parameters<Host["contribute"]["context"]>) { return this.contribute.context(...a); }
  /** @deprecated `ext.contribute.status()` */ contributeStatus(...a: Parameters<Host["contribute"]["status"]>) { return this.contribute.status(...a); }
  /** @deprecated `ext.presentation.publish()` */ publishPresentation(...a: Parameters<Host["presentation"]["publish"]>) { return this.presentation.publish(...a); }
  /** @deprecated `ext.artifacts.publish()` */ publishArtifact(...a: Parameters<Host["artifacts"]["publish"]>) { return this.artifacts.publish(...a); }
  /** @deprecated `ext.policy.evaluate()` */ evaluatePolicy(...a: Parameters<Host["policy"]["evaluate"]>) { return this.policy.evaluate(...a); }
  /** @deprecated `ext.secrets.get()` */ getSecret(...a: Parameters<Host["secrets"]["get"]>) { return this.secrets.get(...a); }
  /** @deprecated `ext.agents.spawn()` */ spawnAgent(...a: Parameters<Host["agents"]["spawn"]>) { return this.agents.spawn(...a); }
  /** @deprecated `ext.agents.message()` */ sendAgentMessage(...a: Parameters<Host["agents"]["message"]>) { return this.agents.message(...a); }
  /** @deprecated `ext.agents.followUp()` */ followUpAgent(...a: Parameters<Host["agents"]["followUp"]>) { return this.agents.followUp(...a); }
  /** @deprecated `ext.agents.list()` */ listAgents(...a: Parameters<Host["agents"]["list"]>) { return this.agents.list(...a); }
  /** @deprecated `ext.agents.wait()` */ waitAgents(...a: Parameters<Host["agents"]["wait"]>) { return this.agents.wait(...a); }
  /** @deprecated `ext.agents.interrupt()` */ interruptAgent(...a: Parameters<Host["agents"]["interrupt"]>) { return this.agents.interrupt(...a); }
  /** @deprecated `ext.agents.models()` */ listAgentModels(...a: Parameters<Host["agents"]["models"]>) { return this.agents.models(...a); }
  /** @deprecated `ext.tools.register()` */ registerTools(...a: Parameters<Host["tools"]["register"]>) { return this.tools.register(...a); }
  /** @deprecated `ext.tools.register([definition])` */ registerTool(definition: DynamicToolDefinition) { return this.tools.register([definition]); }
  /** @deprecated `ext.tools.unregister()` */ unregisterTools(...a: Parameters<Host["tools"]["unregister"]>) { return this.tools.unregister(...a); }
  /** @deprecated `ext.tools.unregister([name])` */ unregisterTool(name: string) { return this.tools.unregister([name]); }
  /** @deprecated `ext.tools.revision` */ get toolCatalogRevision(): number { return this.tools.revision; }
  /** @deprecated `ext.hostState` (`host` names the host handle, `ctx.host`) */ get host(): JsonObject | undefined { return this.hostState; }
}
