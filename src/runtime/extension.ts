import { isObject } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import { type Feature, WIRE_ERRORS } from "../protocol.ts";
import { Logger } from "../log.ts";
import type { RequestId } from "../wire/ids.ts";
import { installErrorLogging, routeConsoleWhenHosted, writeStderrLine } from "../wire/stdio.ts";
import { Connection } from "./connection.ts";
import type { HostAccess, HostSession } from "./host-session.ts";
import { type ExtensionOptions, type ResolvedOptions, resolveApiVersion, resolveOptions } from "./options.ts";
import { Registry, type ToolRegistration } from "./registry.ts";
import { type RunOptions, serve } from "./serve.ts";
import { currentScope } from "./scope.ts";
import type {
  ApiVersion,
  CommandHandler,
  ContextEntry,
  ContextHandler,
  HandlerContext,
  HookHandler,
  HookName,
  JsonObject,
  LifecycleHandler,
  MenuHandler,
  NotificationParams,
  RendererHandler,
  ResourceOwner,
  ShortcutHandler,
  ShutdownHandler,
  StatusEntry,
  StatusHandler,
  Surface,
  ToolHandler,
} from "./types.ts";
import type { ArgumentValidator } from "./arguments.ts";
import * as agents from "./agents.ts";
import type { CatalogUpdate } from "./catalog.ts";
import * as catalogChanges from "./catalog-changes.ts";
import type { DynamicToolDefinition } from "./catalog-changes.ts";
import * as contributions from "./contributions.ts";
import type { ProgressEvent } from "./progress.ts";
import * as services from "./services.ts";
import * as sessionServices from "./session-services.ts";
import * as bulk from "./bulk.ts";
import type { BlobRef } from "./bulk.ts";
import { makeResourceType, type ResourceRef, type ResourceType } from "./resources.ts";
import * as resourceCalls from "./resource-calls.ts";
import type { PresentationSnapshot } from "./presentation.ts";
import { publishPresentation } from "./presentation-publisher.ts";
import type { FlagValue } from "./flags.ts";
import { CanonicalExtension, speaksCanonicalApi } from "./v03/canonical-extension.ts";
import { apiRefusal } from "./v03/refusals.ts";
import type { SessionHookHandler, SessionHookName } from "./v03/types.ts";

export type { RunOptions } from "./serve.ts";
export type { ExtensionOptions } from "./options.ts";
export type { DynamicToolDefinition } from "./catalog-changes.ts";
export type { FlagValue } from "./flags.ts";

/** Longest text part a typed tool's projection may produce. */
const TEXT_PROJECTION_BYTES = 64 * 1024;

const NO_FLAGS: Readonly<Record<string, FlagValue>> = Object.freeze(Object.create(null));

/** Per-tool options of `ext.tool()`. */
export interface ToolOptions {
  /** Checks each call's arguments before the handler runs (`gen` writes these from manifest.toml's schemas). */
  validate?: ArgumentValidator;
}

/**
 * An octet extension: register contributions, then `run()`.
 *
 * @example
 * const ext = new Extension();
 * ext.tool({ name: "hello_world", description: "Greet someone" }, (args) => `Hello, ${args.name}!`);
 * await ext.run();
 */
export class Extension {
  /** Structured stderr logger (one JSON object per line). */
  readonly log: Logger;
  /** `"0.3"` means the canonical wire (docs/api-0.3.md): tools, session hooks and services only. */
  readonly apiVersion: ApiVersion | "0.3";
  private readonly registry: Registry;
  /** Everything API 0.3 does, when the extension speaks it. */
  private readonly v03: CanonicalExtension | undefined;
  private readonly options: ResolvedOptions;
  private connection: Connection | undefined;
  private running = false;
  /** How every host call reaches the session: ambient caller, `-32600` before initialize. */
  private readonly services: HostAccess;

  constructor(options: ExtensionOptions = {}) {
    this.log = new Logger(options.logOutput ?? writeStderrLine, options.logLevel ?? "info");
    routeConsoleWhenHosted(this.log);
    const canonical = speaksCanonicalApi(options.apiVersion);
    // On 0.3 the legacy registry and services are never reached: every legacy call is refused first.
    const legacy = canonical ? "0.4" : resolveApiVersion(options.apiVersion, this.log);
    this.apiVersion = canonical ? "0.3" : legacy;
    if (options.handleUncaught !== false) installErrorLogging(this.log);
    this.registry = new Registry(legacy);
    this.services = { api: legacy, registry: this.registry, session: () => this.hostSession(), caller: currentScope };
    this.options = resolveOptions(options);
    this.v03 = canonical ? new CanonicalExtension(this.log, options, this.options) : undefined;
  }

  /** The legacy registry, or a one-line refusal naming API 0.3 for `call`. */
  private legacy(call: string): Registry {
    if (this.v03) throw new Error(apiRefusal(call));
    return this.registry;
  }

  // ---- registration ----------------------------------------------------------

  /**
   * Register a model tool. `parameters` defaults to `{"type":"object"}`;
   * `outputSchema` needs API 0.2 or 0.4; `promptSnippet` and
   * `promptGuidelines` (text octet adds to the system prompt) need 0.4 and
   * are sent where the host negotiated them. A thrown `Error` becomes an `is_error`
   * result with the error's message; a thrown `RpcError` becomes an error reply.
   * With `options.validate` the arguments are checked first and a mismatch is
   * answered with an `is_error` result naming each path and rule (the handler
   * does not run); `gen` passes one for every tool declared in manifest.toml.
   *
   * @example
   * ext.tool({ name: "hello_world", description: "Greet someone",
   *   parameters: { type: "object", properties: { name: { type: "string" } } } },
   *   (args: { name?: string }) => ({ content: `Hello, ${args.name ?? "world"}!` }));
   */
  tool<Args = JsonObject>(
    definition: ToolRegistration,
    handler: ToolHandler<Args>,
    options: ToolOptions = {},
  ): this {
    if (this.v03) this.v03.tool(definition, handler, options.validate);
    else this.registry.addTool(definition, handler, options.validate);
    return this;
  }

  /**
   * Register a tool whose handler returns a typed value (API 0.2/0.4): the
   * value is checked against `outputSchema` and sent as `structured_content`
   * (at most 256 KiB), and `project(value)` (a string of at most 64 KiB) is
   * its text part for the model. A value that does not match the schema, or a
   * projection that is not such a string, is answered `-32603`.
   *
   * @example
   * ext.typedTool(
   *   { name: "forecast", description: "Forecast", outputSchema: { type: "object", properties: { high: { type: "number" } }, required: ["high"] } },
   *   (args: { city: string }) => ({ high: 21 }),
   *   (value) => `High of ${value.high}°C`,
   * );
   */
  typedTool<Args = JsonObject, Value = unknown>(
    definition: ToolRegistration & { outputSchema: JsonObject },
    handler: (args: Args, ctx: HandlerContext) => Value | Promise<Value>,
    project: (value: Value) => string,
    options: ToolOptions = {},
  ): this {
    if (!definition || typeof definition.outputSchema !== "object" || definition.outputSchema === null) throw new Error(`typed tool \`${definition?.name}\` needs an outputSchema`);
    if (typeof handler !== "function" || typeof project !== "function") throw new Error(`typed tool \`${definition.name}\` needs a handler and a text projection`);
    const typed = async (args: Args, ctx: HandlerContext) => {
      const value = await handler(args, ctx);
      const text = project(value);
      if (typeof text !== "string" || Buffer.byteLength(text) > TEXT_PROJECTION_BYTES) {
        throw new RpcError(ErrorCode.InternalError, `typed tool \`${definition.name}\`: the text projection must be a string of at most ${TEXT_PROJECTION_BYTES} bytes`);
      }
      return { content: text, structured_content: value };
    };
    return this.tool(definition, typed as ToolHandler<Args>, options);
  }

  /**
   * Register a slash command (name without `/`). The handler gets the argument strings.
   *
   * @example
   * ext.command({ name: "hello", description: "Say hello", usage: "/hello [name]" }, ([name]) => `Hello, ${name ?? "you"}!`);
   */
  command(definition: { name: string; description: string; usage?: string }, handler: CommandHandler): this {
    this.legacy("ext.command()").addCommand(definition, handler);
    return this;
  }

  /**
   * Register a hook handler. A hook declared in the manifest without a handler continues by default.
   *
   * @example
   * ext.hook("before_tool_call", ({ name }) => name === "rm" ? { disposition: { action: "deny", reason: "no" } } : null);
   */
  hook<H extends SessionHookName>(name: H, handler: SessionHookHandler<H>): this;
  hook<H extends HookName>(name: H, handler: HookHandler<H>): this;
  hook(name: string, handler: (...args: any[]) => unknown): this {
    if (this.v03) this.v03.hook(name, handler as SessionHookHandler<any>);
    else this.registry.addHook(name as HookName, handler as HookHandler<any>);
    return this;
  }

  /** Register the context provider (`context/collect`); needs `contributes.context = true`. */
  context(handler: ContextHandler): this {
    this.legacy("ext.context()").setContext(handler);
    return this;
  }

  /**
   * Register the options menu (`menu/collect`, API 0.2/0.4); needs
   * `contributes.menu = true` and at least one command. Picking an item runs
   * its command through `command/execute`. The menu is checked against
   * octet's rules before it is sent (`Menu` in `menu.ts`).
   *
   * @example
   * ext.menu(() => ({ title: "Deploy", items: [{ id: "prod", label: "Deploy to prod", command: "deploy", arguments: ["prod"], destructive: true }] }));
   */
  menu(handler: MenuHandler): this {
    this.legacy("ext.menu()").setMenu(handler);
    return this;
  }

  /**
   * Handle a key declared in `contributes.shortcuts` (API 0.2/0.4): octet
   * sends `shortcut/execute` with the shortcut's `name` when the user presses
   * its key. Returns what a command returns.
   *
   * @example
   * ext.shortcut("open_panel", () => "panel opened");
   */
  shortcut(name: string, handler: ShortcutHandler): this {
    this.legacy("ext.shortcut()").addShortcut(name, handler);
    return this;
  }

  /** Register a status provider for a declared surface (`status/collect`). */
  status(surface: Surface, handler: StatusHandler): this {
    this.legacy("ext.status()").addStatus(surface, handler);
    return this;
  }

  /** Register a semantic renderer for a tool (`tool/render`). */
  renderer(name: string, handler: RendererHandler): this {
    this.legacy("ext.renderer()").addRenderer(name, handler);
    return this;
  }

  /** Observe a lifecycle event (API 0.2): `"turn_settled"` or `"turn/settled"`, etc. */
  onLifecycle(event: string, handler: LifecycleHandler): this {
    this.legacy("ext.onLifecycle()").addLifecycle(event, handler);
    return this;
  }

  /** Run `handler` during `shutdown`, after the drain and before the acknowledgement. */
  onShutdown(handler: ShutdownHandler): this {
    if (this.v03) this.v03.onShutdown(handler);
    else this.registry.setShutdown(handler);
    return this;
  }

  // ---- API 0.4 session services ------------------------------------------------------

  /**
   * The user's composer (feature `composer`, API 0.4): read it, replace it,
   * or insert at the cursor. Called from a handler (or with `parentRequestId`).
   *
   * @example
   * await ext.composer.insert("/deploy staging");
   */
  readonly composer = {
    get: (options: { parentRequestId?: RequestId } = {}) => sessionServices.composer.get(this.services, options),
    set: (text: string, options: { parentRequestId?: RequestId } = {}) => sessionServices.composer.set(this.services, text, options),
    insert: (text: string, options: { parentRequestId?: RequestId } = {}) => sessionServices.composer.insert(this.services, text, options),
  };

  /**
   * The session (API 0.4, each behind its feature): entries (`session_entries`),
   * user messages (`message_injection`), the active tool set (`active_tools`),
   * control (`session_control_v1`) and compaction (`session_compaction_v1`).
   *
   * @example
   * const id = await ext.session.appendEntry("todo", { text: "ship it" });
   * void ext.session.compact(); // sent after this handler's successful reply
   */
  readonly session = {
    appendEntry: (entryType: string, data: unknown, options: { parentRequestId?: RequestId } = {}) => sessionServices.entries.append(this.services, entryType, data, options),
    setName: (name: string, options: { parentRequestId?: RequestId } = {}) => sessionServices.entries.setName(this.services, name, options),
    setLabel: (entryId: string, label: string, options: { parentRequestId?: RequestId } = {}) => sessionServices.entries.setLabel(this.services, entryId, label, options),
    sendUserMessage: (text: string, options: { parentRequestId?: RequestId } = {}) => sessionServices.sendUserMessage(this.services, text, options),
    setActiveTools: (names: string[], options: { parentRequestId?: RequestId } = {}) => sessionServices.setActiveTools(this.services, names, options),
    waitForIdle: (options: { parentRequestId?: RequestId } = {}) => sessionServices.controlSession(this.services, "session/wait_for_idle", undefined, options),
    create: (options: { parentRequestId?: RequestId } = {}) => sessionServices.controlSession(this.services, "session/create", undefined, options),
    fork: (options: { parentRequestId?: RequestId } = {}) => sessionServices.controlSession(this.services, "session/fork", undefined, options),
    switchTo: (sessionId: string, options: { parentRequestId?: RequestId } = {}) => sessionServices.controlSession(this.services, "session/switch", sessionId, options),
    reload: (options: { parentRequestId?: RequestId } = {}) => sessionServices.controlSession(this.services, "session/reload", undefined, options),
    compact: (options: { customInstructions?: string } = {}) => sessionServices.compactSession(this.services, options),
  };

  /**
   * Declare a nominal resource type (API 0.4): values of it can be exported
   * as opaque refs that octet tracks (`resource_refs_v1`), and `dispose` runs
   * once when octet retires one. Register types before the tools that name
   * them in `operation`; `type.schema` is the ref's schema for `parameters`
   * and `outputSchema`.
   *
   * @example
   * const Db = ext.resourceType<Database>("db.connection", { dispose: (db) => db.close() });
   */
  resourceType<T>(name: string, options: { dispose?: (value: T) => void | Promise<void> } = {}): ResourceType<T> {
    const type = makeResourceType<T>(name, options.dispose);
    this.legacy("ext.resourceType()").addResourceType(type);
    return type;
  }

  /**
   * Resources (API 0.4, `resource_refs_v1`; see `resourceType`). From a tool
   * handler: `export` registers a value and resolves to its provisional ref
   * (return it at a declared output path; it becomes active when the call
   * succeeds, and is retired otherwise); `resolve` gives the value behind an
   * active ref of a type (undefined for anything else); `release` retires one.
   */
  readonly resources = {
    export: <T>(type: ResourceType<T>, value: T): Promise<ResourceRef> => resourceCalls.exportResource(this.services, type, value),
    resolve: <T>(ref: unknown, type: ResourceType<T>): T | undefined => resourceCalls.resolveResource(this.services, ref, type),
    release: (ref: ResourceRef): Promise<{ retired: true; cleanup: string }> => resourceCalls.releaseResource(this.services, ref),
  };

  /**
   * Bulk objects (feature `bulk_objects_v1`, API 0.4; from a tool handler):
   * `publish` writes bytes into a host transfer file and resolves to a
   * `BlobRef` to return in the result (it becomes usable once the call
   * succeeds); `read` returns a blob's verified bytes (at most `maxBytes`).
   *
   * @example
   * const ref = await ext.bulk.publish(pngBytes, "image/png");
   * return { content: "rendered", structured_content: { image: ref } };
   */
  readonly bulk = {
    publish: (data: Uint8Array | string, mediaType: string): Promise<BlobRef> => bulk.publish(this.services, data, mediaType),
    read: (ref: BlobRef, options: { maxBytes: number }): Promise<Uint8Array> => bulk.read(this.services, ref, options),
  };

  // ---- state -----------------------------------------------------------------

  /** True after a successful `initialize`. */
  get initialized(): boolean {
    if (this.v03) return this.v03.initialized;
    return this.connection?.host !== undefined;
  }

  /** The raw `initialize` params (after a successful initialize). */
  get initialization(): JsonObject | undefined {
    if (this.v03) return this.v03.initialization as JsonObject | undefined;
    return this.connection?.host?.negotiated.params;
  }

  /** Workspace root from `initialize`. */
  get workspace(): string | undefined {
    const ws = this.initialization?.workspace;
    return typeof ws === "string" ? ws : undefined;
  }

  /** Host state (`initialize.host`). */
  get host(): JsonObject | undefined {
    const host = this.initialization?.host;
    return isObject(host) ? host : undefined;
  }

  /** API 0.2 features agreed in `initialize` (empty on 0.1). */
  get negotiatedFeatures(): ReadonlySet<Feature> {
    return this.connection?.host?.negotiated.features ?? new Set();
  }

  /**
   * CLI flag values from `initialize` (API 0.2 and 0.4): every flag declared
   * in the manifest, by name, with its default where the user gave none.
   * Empty before initialize and on 0.1. `gen` adds a typed `flags(ext)`.
   *
   * @example
   * if (ext.flags["dry-run"] === true) return "would delete 3 files";
   */
  get flags(): Readonly<Record<string, FlagValue>> {
    if (this.v03) return (this.v03.flags as Readonly<Record<string, FlagValue>> | undefined) ?? NO_FLAGS;
    return this.connection?.host?.negotiated.flags ?? NO_FLAGS;
  }

  /** Worker count agreed in `initialize` (1 on API 0.1). */
  get negotiatedConcurrency(): number {
    if (this.v03) return this.v03.concurrency ?? 1;
    return this.connection?.host?.negotiated.concurrency ?? 1;
  }

  // ---- extension → host -------------------------------------------------------

  /**
   * Show a notification to the user. Needs `contributes.notifications = true`.
   *
   * @example
   * await ext.notify("Index rebuilt", { level: "success", title: "search" });
   */
  notify(message: string, options: { level?: NotificationParams["level"]; title?: string } = {}): Promise<void> {
    return contributions.notify(this.services, message, options);
  }

  /**
   * Ask the user to confirm; resolves to the answer (`false` when the frontend cannot ask).
   * Needs `contributes.confirmations = true`. On API 0.2 it is correlated with the
   * handler's request, or with `parentRequestId` outside a handler.
   *
   * @example
   * if (!(await ext.confirm("Delete 3 branches?", { destructive: true }))) return "cancelled";
   */
  confirm(prompt: string, options: { detail?: string; destructive?: boolean; default?: boolean; parentRequestId?: RequestId } = {}): Promise<boolean> {
    return services.confirm(this.services, prompt, options);
  }

  /** Push a context contribution (`context/contribution`); needs `contributes.context = true`. */
  contributeContext(entry: ContextEntry): Promise<void> {
    return contributions.contributeContext(this.services, entry);
  }

  /** Push a status contribution (`status/contribution`) for a surface declared in `contributes.ui`. */
  contributeStatus(entry: StatusEntry & { surface: Surface; text: string }): Promise<void> {
    return contributions.contributeStatus(this.services, entry);
  }

  // ---- API 0.2 services ------------------------------------------------------------

  /**
   * Report progress of the request being handled (`$/progress`, needs
   * `request_progress`). Give a status message (with optional `current`,
   * `total`, `unit`) or a full event; outside a handler name the request with
   * `requestId`. Sequences start at 1 per request.
   *
   * @example
   * await ext.progress(`Fetched ${i} of ${n}`, { current: i, total: n, unit: "records" });
   * await ext.progress({ type: "output", stream: "stderr", encoding: "utf8", data: "retrying" });
   */
  progress(
    messageOrEvent: string | ProgressEvent,
    options: { current?: number | null; total?: number | null; unit?: string | null; requestId?: RequestId } = {},
  ): Promise<void> {
    try {
      // The session checks feature, then parent, then shape, then state (spec §8.11).
      return this.services.session().progress(messageOrEvent, options, currentScope(), options.requestId);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A `decoration` progress event (octet, needs `progress_decoration`): label 1..256 bytes, detail 1..4096. */
  progressDecoration(label: string, detail?: string, options: { requestId?: RequestId } = {}): Promise<void> {
    const event: ProgressEvent = detail === undefined ? { type: "decoration", label } : { type: "decoration", label, detail };
    return this.progress(event, options);
  }

  /**
   * Publish a semantic presentation snapshot (`presentation/update`, API 0.2,
   * needs `contributes.presentation = true`). Inside a handler it is tied to
   * that request; a background publisher passes the host-issued
   * `resourceOwner`; otherwise it is process-scoped. Revisions must increase.
   *
   * @example
   * await ext.publishPresentation({ revision: 1, status: { state: "active", label: "1 worker" }, activities: [], actions: [] });
   */
  publishPresentation(snapshot: PresentationSnapshot, options: { resourceOwner?: ResourceOwner } = {}): Promise<void> {
    return publishPresentation(this.services, snapshot, options);
  }

  /** Ask the user for ephemeral input (`input/request`, API 0.2); `null` when cancelled or headless. */
  requestInput(prompt: string, options: { secret?: boolean; parentRequestId?: RequestId } = {}): Promise<string | null> {
    return services.requestInput(this.services, prompt, options);
  }

  /**
   * Publish an image or audio artifact (`artifact/publish`, needs `artifacts`):
   * inline bytes, or a path relative to `OCTET_EXTENSION_SCRATCH` with its size
   * and SHA-256. Resolves to the artifact id.
   *
   * @example
   * const id = await ext.publishArtifact("image/png", { data: pngBytes });
   * return toolResult([textContent("Captured."), imageContent(id, "image/png")]);
   */
  publishArtifact(mimeType: string, source: services.ArtifactSource & { parentRequestId?: RequestId }): Promise<string> {
    return services.publishArtifact(this.services, mimeType, source);
  }

  /** Submit a policy intent (`policy/evaluate`, needs `policy_intents`); retry `ask` with its token. */
  evaluatePolicy(intent: services.PolicyIntent, options: { approvalToken?: string; parentRequestId?: RequestId } = {}): Promise<services.PolicyDecision> {
    return services.evaluatePolicy(this.services, intent, options);
  }

  /** Resolve a brokered secret named in `[capabilities].secrets` (needs `secrets`). Never log it. */
  getSecret(name: string, options: { parentRequestId?: RequestId } = {}): Promise<string> {
    return services.getSecret(this.services, name, options);
  }

  /** Start a bounded child session (`agent/spawn`, needs `agent_sessions`). */
  spawnAgent(options: agents.SpawnAgentOptions): Promise<JsonObject> {
    return agents.spawnAgent(this.services, options);
  }

  /** Steer a child (`agent/message`). */
  sendAgentMessage(target: string, message: string, options: { parentRequestId?: RequestId } = {}): Promise<JsonObject> {
    return agents.sendAgentMessage(this.services, target, message, options);
  }

  /** Give a child a follow-up turn (`agent/follow_up`). */
  followUpAgent(target: string, message: string, options: { parentRequestId?: RequestId } = {}): Promise<JsonObject> {
    return agents.followUpAgent(this.services, target, message, options);
  }

  /** List owned children (`agent/list`). */
  listAgents(options: { parentRequestId?: RequestId } = {}): Promise<JsonObject> {
    return agents.listAgents(this.services, options);
  }

  /** Wait for children to settle (`agent/wait`, 1..60,000 ms, default 30,000). */
  waitAgents(options: { timeoutMs?: number; parentRequestId?: RequestId } = {}): Promise<JsonObject> {
    return agents.waitAgents(this.services, options);
  }

  /** Interrupt a child (`agent/interrupt`). */
  interruptAgent(target: string, options: { parentRequestId?: RequestId } = {}): Promise<JsonObject> {
    return agents.interruptAgent(this.services, target, options);
  }

  /** Models a child may use (`agent/models`, octet, needs `agent_model_selection_v1`). */
  listAgentModels(options: { query?: string; limit?: number; parentRequestId?: RequestId } = {}): Promise<JsonObject> {
    return agents.listAgentModels(this.services, options);
  }

  /**
   * Add or replace tools at runtime (`tools/register`, needs `dynamic_tools`).
   * Transactional: the catalog changes only if the host accepts, and then to
   * exactly the names it published. Resolves to `{revision, tools}`.
   *
   * @example
   * await ext.registerTools([{ name: "search", description: "Search", parameters: schema, handler: search }]);
   */
  registerTools(definitions: DynamicToolDefinition[]): Promise<CatalogUpdate> {
    return catalogChanges.registerTools(this.services, definitions);
  }

  /** Register one tool; see {@link Extension.registerTools}. */
  registerTool(definition: DynamicToolDefinition): Promise<CatalogUpdate> {
    return this.registerTools([definition]);
  }

  /** Remove tools (`tools/unregister`, needs `dynamic_tools`); unknown names are harmless. */
  unregisterTools(names: string[]): Promise<CatalogUpdate> {
    return catalogChanges.unregisterTools(this.services, names);
  }

  /** Remove one tool; see {@link Extension.unregisterTools}. */
  unregisterTool(name: string): Promise<CatalogUpdate> {
    return this.unregisterTools([name]);
  }

  /** Last committed tool catalog revision (0 after initialize). */
  get toolCatalogRevision(): number {
    return this.connection?.host?.catalog.revision ?? 0;
  }

  /**
   * Send any extension→host request. On API 0.2 the ambient (or explicit)
   * parent is added; `operationScoped` makes a missing parent an error.
   */
  request(method: string, params: JsonObject = {}, options: { parentRequestId?: RequestId; operationScoped?: boolean } = {}): Promise<unknown> {
    return services.hostRequest(this.services, method, params, options);
  }

  // ---- running ------------------------------------------------------------------

  /**
   * Serve the host until `shutdown` or stdin EOF, then end the process with
   * status 0. stdout is reserved for frames from here on; `console.*` goes to
   * stderr as structured log lines.
   */
  async run(io: RunOptions = {}): Promise<void> {
    if (this.running) throw new Error("run() was already called");
    this.running = true;
    if (this.v03) return this.v03.run(io);
    this.registry.freeze();
    await serve(io, this.log, this.options, ({ writer, handlersReady, stop }) => {
      const o = this.options;
      this.connection = new Connection({
        handlersReady,
        registry: this.registry,
        logger: this.log,
        writer,
        maxMessageBytes: o.maxMessageBytes,
        maxPendingRequests: o.maxPendingRequests,
        maxConcurrentRequests: o.maxConcurrentRequests,
        supportedFeatures: new Set(o.supportedFeatures),
        shutdownTimeoutMs: o.shutdownTimeoutMs,
        cancellationGraceMs: o.cancellationGraceMs,
        cancelledReplyMs: o.cancelledReplyMs,
        onStop: stop,
      });
      return this.connection;
    });
  }

  /** The session once initialize succeeded; `-32600` before (on API 0.3, a refusal naming it). */
  private hostSession(): HostSession {
    if (this.v03) throw new RpcError(ErrorCode.MethodNotFound, apiRefusal("this host service"));
    const host = this.connection?.host;
    if (!host) throw new RpcError(ErrorCode.InvalidRequest, WIRE_ERRORS.initializeFirst);
    return host;
  }
}
