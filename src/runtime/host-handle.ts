/**
 * `Host`: every extension→host call, grouped by the wire method's namespace
 * (`agent/*` → `agents`, `tools/*` → `tools`, …). Two things implement it:
 * `ext` (the calling request is the ambient one) and `ctx.host` (bound to
 * its own request, so it works wherever the context is passed). Each call
 * checks its arguments (plain `Error`), then the session and feature
 * (`-32600`, `-32601`), then its parent, before anything is written.
 */
import type { RequestId } from "../wire/ids.ts";
import * as bulk from "./bulk.ts";
import type { BlobRef } from "./bulk.ts";
import type { CatalogUpdate } from "./catalog.ts";
import type { DynamicToolDefinition } from "./catalog-changes.ts";
import type * as agents from "./agents.ts";
import type * as services from "./services.ts";
import type * as sessionServices from "./session-services.ts";
import * as contributions from "./contributions.ts";
import { withHostServices as later } from "./lazy-host-calls.ts";
import type { HostAccess } from "./host-session.ts";
import type { PresentationSnapshot } from "./presentation/snapshot-types.ts";
import type { ProgressEvent } from "./progress.ts";
import { ActiveRequest } from "./active-request.ts";
import type { ResourceRef, ResourceType } from "./resources.ts";
import type { ContextEntry, JsonObject, NotificationParams, ResourceOwner, StatusEntry, Surface } from "./types.ts";

type Parent = { parentRequestId?: RequestId };
/** What `progress` takes besides the message or event. */
export type ProgressOptions = { current?: number | null; total?: number | null; unit?: string | null; requestId?: RequestId };

/**
 * The host, as a handler reaches it: `ctx.host` in a handler, or `ext` itself.
 *
 * @example
 * ext.tool({ name: "deploy", description: "Deploy" }, async (args, ctx) => {
 *   if (!(await ctx.host.user.confirm("Deploy to prod?", { destructive: true }))) return "cancelled";
 *   await ctx.host.progress("Uploading");
 *   return "deployed";
 * });
 */
export interface Host {
  /** The user (`notification`, `confirmation/request`, API 0.2 `input/request`). */
  readonly user: {
    /** Show a notification; needs `contributes.notifications = true`. */
    notify(message: string, options?: { level?: NotificationParams["level"]; title?: string }): Promise<void>;
    /** Ask to confirm; `false` when the frontend cannot ask. Needs `contributes.confirmations = true`. */
    confirm(prompt: string, options?: { detail?: string; destructive?: boolean; default?: boolean } & Parent): Promise<boolean>;
    /** Ask for ephemeral input (API 0.2/0.4); `null` when cancelled or headless. */
    input(prompt: string, options?: { secret?: boolean } & Parent): Promise<string | null>;
  };
  /** Pushed contributions: `context/contribution` (needs `contributes.context = true`) and `status/contribution` (a declared ui surface). */
  readonly contribute: {
    context(entry: ContextEntry): Promise<void>;
    status(entry: StatusEntry & { surface: Surface; text: string }): Promise<void>;
  };
  /**
   * `$/progress` for the calling request (needs `request_progress`): a status
   * message (with optional `current`, `total`, `unit`) or a full event; name
   * another live request with `requestId`.
   */
  progress(messageOrEvent: string | ProgressEvent, options?: ProgressOptions): Promise<void>;
  /** A `decoration` progress event (needs `progress_decoration`): label 1..256 bytes, detail 1..4096. */
  progressDecoration(label: string, detail?: string, options?: { requestId?: RequestId }): Promise<void>;
  /** `presentation/update` (API 0.2/0.4, `contributes.presentation = true`): revisions must increase. */
  readonly presentation: {
    publish(snapshot: PresentationSnapshot, options?: { resourceOwner?: ResourceOwner }): Promise<void>;
  };
  /** `artifact/publish` (needs `artifacts`): inline bytes or a scratch path; resolves to the artifact id. */
  readonly artifacts: {
    publish(mimeType: string, source: services.ArtifactSource & Parent): Promise<string>;
  };
  /** `policy/evaluate` (needs `policy_intents`); retry `ask` with its token. */
  readonly policy: {
    evaluate(intent: services.PolicyIntent, options?: { approvalToken?: string } & Parent): Promise<services.PolicyDecision>;
  };
  /** `secret/get` (needs `secrets`): a secret named in `[capabilities].secrets`. Never log it. */
  readonly secrets: {
    get(name: string, options?: Parent): Promise<string>;
  };
  /** Child sessions (`agent/*`, needs `agent_sessions`). */
  readonly agents: {
    spawn(options: agents.SpawnAgentOptions): Promise<JsonObject>;
    message(target: string, message: string, options?: Parent): Promise<JsonObject>;
    followUp(target: string, message: string, options?: Parent): Promise<JsonObject>;
    list(options?: Parent): Promise<JsonObject>;
    /** Wait for children to settle (1..60,000 ms, default 30,000). */
    wait(options?: { timeoutMs?: number } & Parent): Promise<JsonObject>;
    interrupt(target: string, options?: Parent): Promise<JsonObject>;
    /** Models a child may use (needs `agent_model_selection_v1`). */
    models(options?: { query?: string; limit?: number } & Parent): Promise<JsonObject>;
  };
  /**
   * The live tool catalog (`tools/register`, `tools/unregister`, needs
   * `dynamic_tools`). Transactional: the catalog changes only if the host
   * accepts, and then to exactly the names it published.
   */
  readonly tools: {
    register(definitions: DynamicToolDefinition[]): Promise<CatalogUpdate>;
    unregister(names: string[]): Promise<CatalogUpdate>;
    /** Last committed catalog revision (0 after initialize). */
    readonly revision: number;
  };
  /** The user's composer (API 0.4, `composer`). */
  readonly composer: {
    get(options?: Parent): Promise<string>;
    set(text: string, options?: Parent): Promise<void>;
    insert(text: string, options?: Parent): Promise<void>;
  };
  /** The octet session (API 0.4): entries, user messages, active tools, control, compaction. */
  readonly session: {
    appendEntry(entryType: string, data: unknown, options?: Parent): Promise<string>;
    setName(name: string, options?: Parent): Promise<void>;
    setLabel(entryId: string, label: string, options?: Parent): Promise<void>;
    sendUserMessage(text: string, options?: Parent): Promise<void>;
    setActiveTools(names: string[], options?: Parent): Promise<void>;
    waitForIdle(options?: Parent): Promise<string>;
    create(options?: Parent): Promise<string>;
    fork(options?: Parent): Promise<string>;
    switchTo(sessionId: string, options?: Parent): Promise<string>;
    reload(options?: Parent): Promise<string>;
    /** Sent after the calling request's successful reply: do not await it in the handler. */
    compact(options?: { customInstructions?: string }): Promise<sessionServices.CompactionResult>;
  };
  /** Native resources (API 0.4, `resource_refs_v1`), from a tool handler. */
  readonly resources: {
    export<T>(type: ResourceType<T>, value: T): Promise<ResourceRef>;
    resolve<T>(ref: unknown, type: ResourceType<T>): T | undefined;
    release(ref: ResourceRef): Promise<{ retired: true; cleanup: string }>;
  };
  /** Bulk objects (API 0.4, `bulk_objects_v1`), from a tool handler. */
  readonly bulk: {
    publish(data: Uint8Array | string, mediaType: string): Promise<BlobRef>;
    read(ref: BlobRef, options: { maxBytes: number }): Promise<Uint8Array>;
  };
  /** Any extension→host request, as Python's raw `request` (no feature gate); on 0.2/0.4 the parent is added. */
  request(method: string, params?: JsonObject, options?: { operationScoped?: boolean } & Parent): Promise<unknown>;
}

/** `user.notify` and `progress` without options (shared: both are called in loops). */
const NO_NOTIFY_OPTIONS: { level?: NotificationParams["level"]; title?: string } = Object.freeze({});
export const NO_PROGRESS_OPTIONS: ProgressOptions = Object.freeze({});

/** The `Host` over `access`: the caller it names is the one every call is made from. */
export function hostHandle(access: HostAccess): Host {
  const progress = (messageOrEvent: string | ProgressEvent, options: ProgressOptions = NO_PROGRESS_OPTIONS): Promise<void> => {
    const caller = access.caller();
    if (typeof messageOrEvent === "string" && caller instanceof ActiveRequest && caller.progressSession !== undefined) {
      const sent = caller.progressSession.statusProgress(caller, messageOrEvent, options);
      if (sent !== undefined) return sent;
    }
    try {
      // The session checks feature, then parent, then shape, then state (docs/protocol-0.2.md §8.11).
      return access.session().progress(messageOrEvent, options, access.caller(), options.requestId);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return {
    user: {
      notify: (message, options = NO_NOTIFY_OPTIONS) => {
        // A plain message from a burst: one call to the session; anything else is checked in full.
        const sent = typeof message === "string" && options.title === undefined ? access.current()?.notification(message, options.level ?? "info") : undefined;
        return sent ?? contributions.notify(access, message, options);
      },
      confirm: (prompt, options = {}) => later((m) => m.services.confirm(access, prompt, options)),
      input: (prompt, options = {}) => later((m) => m.services.requestInput(access, prompt, options)),
    },
    contribute: {
      context: (entry) => contributions.contributeContext(access, entry),
      status: (entry) => contributions.contributeStatus(access, entry),
    },
    progress,
    progressDecoration: (label, detail, options = {}) => progress(detail === undefined ? { type: "decoration", label } : { type: "decoration", label, detail }, options),
    presentation: { publish: (snapshot, options = {}) => later((m) => m.presentation.publishPresentation(access, snapshot, options)) },
    artifacts: { publish: (mimeType, source) => later((m) => m.services.publishArtifact(access, mimeType, source)) },
    policy: { evaluate: (intent, options = {}) => later((m) => m.services.evaluatePolicy(access, intent, options)) },
    secrets: { get: (name, options = {}) => later((m) => m.services.getSecret(access, name, options)) },
    agents: {
      spawn: (options) => later((m) => m.agents.spawnAgent(access, options)),
      message: (target, message, options = {}) => later((m) => m.agents.sendAgentMessage(access, target, message, options)),
      followUp: (target, message, options = {}) => later((m) => m.agents.followUpAgent(access, target, message, options)),
      list: (options = {}) => later((m) => m.agents.listAgents(access, options)),
      wait: (options = {}) => later((m) => m.agents.waitAgents(access, options)),
      interrupt: (target, options = {}) => later((m) => m.agents.interruptAgent(access, target, options)),
      models: (options = {}) => later((m) => m.agents.listAgentModels(access, options)),
    },
    tools: {
      register: (definitions) => later((m) => m.catalogChanges.registerTools(access, definitions)),
      unregister: (names) => later((m) => m.catalogChanges.unregisterTools(access, names)),
      get revision() {
        return access.current()?.catalog.revision ?? 0;
      },
    },
    composer: {
      get: (options = {}) => later((m) => m.sessionServices.composer.get(access, options)),
      set: (text, options = {}) => later((m) => m.sessionServices.composer.set(access, text, options)),
      insert: (text, options = {}) => later((m) => m.sessionServices.composer.insert(access, text, options)),
    },
    session: {
      appendEntry: (entryType, data, options = {}) => later((m) => m.sessionServices.entries.append(access, entryType, data, options)),
      setName: (name, options = {}) => later((m) => m.sessionServices.entries.setName(access, name, options)),
      setLabel: (entryId, label, options = {}) => later((m) => m.sessionServices.entries.setLabel(access, entryId, label, options)),
      sendUserMessage: (text, options = {}) => later((m) => m.sessionServices.sendUserMessage(access, text, options)),
      setActiveTools: (names, options = {}) => later((m) => m.sessionServices.setActiveTools(access, names, options)),
      waitForIdle: (options = {}) => later((m) => m.sessionServices.controlSession(access, "session/wait_for_idle", undefined, options)),
      create: (options = {}) => later((m) => m.sessionServices.controlSession(access, "session/create", undefined, options)),
      fork: (options = {}) => later((m) => m.sessionServices.controlSession(access, "session/fork", undefined, options)),
      switchTo: (sessionId, options = {}) => later((m) => m.sessionServices.controlSession(access, "session/switch", sessionId, options)),
      reload: (options = {}) => later((m) => m.sessionServices.controlSession(access, "session/reload", undefined, options)),
      compact: (options = {}) => later((m) => m.sessionServices.compactSession(access, options)),
    },
    resources: {
      export: (type, value) => later((m) => m.resourceCalls.exportResource(access, type, value)),
      resolve: (ref, type) => access.registry.resources.resolve(ref, type),
      release: (ref) => later((m) => m.resourceCalls.releaseResource(access, ref)),
    },
    bulk: {
      publish: (data, mediaType) => bulk.publish(access, data, mediaType),
      read: (ref, options) => bulk.read(access, ref, options),
    },
    request: (method, params = {}, options = {}) => later((m) => m.services.hostRequest(access, method, params, options)),
  };
}
