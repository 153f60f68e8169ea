import { isObject } from "../check.ts";
import { ErrorCode, RpcError, errorText } from "../errors.ts";
import { type Feature, WIRE_ERRORS } from "../protocol.ts";
import { Logger } from "../log.ts";
import type { RequestId } from "../wire/ids.ts";
import { installErrorLogging, routeConsoleWhenHosted, writeStderrLine } from "../wire/stdio.ts";
import type { ArgumentValidator } from "./arguments.ts";
import type { Connection } from "./connection.ts";
import { DeprecatedNames } from "./deprecated-names.ts";
import type { FlagValue } from "./flags.ts";
import { type OffPathModules, offPathModules } from "./lazy-host-calls.ts";
import { hostHandleModule } from "./lazy-modules.ts";
import type { Host, ProgressOptions } from "./host-handle.ts";
import type { HostAccess, HostSession } from "./host-session.ts";
import { type ExtensionOptions, type ResolvedOptions, resolveApiVersion, resolveOptions } from "./options.ts";
import type { ProgressEvent } from "./progress.ts";
import { Registry, type ToolRegistration } from "./registry.ts";
import type { ResourceType } from "./resources.ts";
import { ActiveRequest } from "./active-request.ts";
import { currentScope, running } from "./scope.ts";
import type { RunOptions } from "./serve.ts";
import { openStdio } from "./first-reply.ts";
import { typedToolHandler } from "./typed-tool.ts";
import type {
  ApiVersion,
  CommandHandler,
  ContextHandler,
  HandlerContext,
  HookHandler,
  HookName,
  JsonObject,
  LifecycleHandler,
  MenuHandler,
  RendererHandler,
  ShortcutHandler,
  ShutdownHandler,
  StatusHandler,
  Surface,
  ToolHandler,
} from "./types.ts";
import type { CanonicalExtension } from "./v03/canonical-extension.ts";
import { apiRefusal } from "./v03/canonical-refusals.ts";
import type { SessionHookName } from "./v03/canonical-protocol.ts";
import type { SessionHookHandler } from "./v03/canonical-types.ts";
import type { EventBus } from "./v03/bus.ts";
import type { MigrationAdapter } from "./v03/migration.ts";
import type { SessionLifecycle } from "./v03/sessions.ts";
import type { ProviderCalls, ProviderDeclaration, ProviderHandlers } from "./v03/provider-types.ts";

const NO_FLAGS: Readonly<Record<string, FlagValue>> = Object.freeze(Object.create(null));

/** Per-tool options of `ext.tool()`. */
export interface ToolOptions {
  /** Checks each call's arguments before the handler runs (`gen` writes these from manifest.toml's schemas). */
  validate?: ArgumentValidator;
}

/**
 * An octet extension: register contributions, then `run()`. Its host calls
 * (`ext.user`, `ext.agents`, `ext.tools`, …; the `Host` interface) are made
 * from the handler that is running; `ctx.host` is the same, bound to its
 * own request.
 *
 * @example
 * const ext = new Extension();
 * ext.tool({ name: "hello_world", description: "Greet someone" }, (args) => `Hello, ${args.name}!`);
 * await ext.run();
 */
export class Extension extends DeprecatedNames implements Host {
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
  private readonly access: HostAccess;
  private callsMade: Host | undefined;
  /** The host calls, made from the ambient request (`currentScope`); made on first use (nothing before the initialize reply needs them). */
  private get calls(): Host {
    return (this.callsMade ??= hostHandleModule().hostHandle(this.access));
  }

  constructor(options: ExtensionOptions = {}) {
    super();
    this.log = new Logger(options.logOutput ?? writeStderrLine, options.logLevel ?? "info");
    routeConsoleWhenHosted(this.log);
    const canonical = (options.apiVersion ?? process.env.OCTET_EXTENSION_API_VERSION) === "0.3";
    // On 0.3 the legacy registry and services are never reached: every legacy call is refused first.
    const legacy = canonical ? "0.4" : resolveApiVersion(options.apiVersion, this.log);
    this.apiVersion = canonical ? "0.3" : legacy;
    if (options.handleUncaught !== false) installErrorLogging(this.log);
    this.registry = new Registry(legacy);
    this.access = { api: legacy, registry: this.registry, session: () => this.hostSession(), current: () => this.connection?.host, caller: currentScope };
    this.options = resolveOptions(options);
    // The canonical engine is loaded only on API 0.3: the other versions do not pay its start-up.
    this.v03 = canonical ? new (canonicalEngine())(this.log, options, this.options) : undefined;
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
    return this.tool(definition, typedToolHandler(definition, handler, project), options);
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

  /** Declare a model provider (API 0.3 only; docs/api-0.3.md "Providers"): registered at initialize, streamed by `handlers.stream`. */
  provider(declaration: ProviderDeclaration, handlers?: ProviderHandlers): this {
    if (!this.v03) throw new Error(`ext.provider() is available on extension API 0.3 only (this extension speaks ${this.apiVersion}); declare api_version "0.3" to provide models`);
    this.v03.provider(declaration, handlers);
    return this;
  }

  /** Provider calls after initialize (API 0.3 only): update, unregister, authorize, revoke. */
  get providers(): ProviderCalls {
    if (!this.v03) throw new Error(`ext.providers is available on extension API 0.3 only (this extension speaks ${this.apiVersion}); declare api_version "0.3" to provide models`);
    return this.v03.providers;
  }

  /** Register the migration adapter (API 0.3 only; docs/api-0.3.md "Migration adapters"). */
  migration(adapter: MigrationAdapter): this {
    this.only03("ext.migration()").migration(adapter);
    return this;
  }

  /** Session lifecycle calls (API 0.3 only; docs/api-0.3.md "Session lifecycle"): `enable()` before run, then create/fork/reload/switch. */
  get sessions(): SessionLifecycle {
    return this.only03("ext.sessions").sessions;
  }

  /** The event bus (API 0.3 only; docs/api-0.3.md "Event bus"): declare, publish, subscribe, lifecycle notices. */
  get bus(): EventBus {
    return this.only03("ext.bus").bus;
  }

  private only03(call: string): CanonicalExtension {
    if (!this.v03) throw new Error(`${call} is available on extension API 0.3 only (this extension speaks ${this.apiVersion}); declare api_version "0.3" to use it`);
    return this.v03;
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
    // Resources are in the off-path chunk (lazy-host-calls.ts): only extensions that declare a type load it this early.
    const type = offPathModules().resources.makeResourceType<T>(name, options.dispose);
    this.legacy("ext.resourceType()").addResourceType(type);
    return type;
  }

  // ---- the host (`Host` in host-handle.ts documents each call) ---------------------

  get user(): Host["user"] { return this.calls.user; }
  get contribute(): Host["contribute"] { return this.calls.contribute; }
  /** `$/progress` for the request being handled (needs `request_progress`); outside a handler name it with `requestId`. */
  progress(messageOrEvent: string | ProgressEvent, options?: ProgressOptions): Promise<void> {
    // The common case (a status line from the running handler) without the general checks' calls.
    const scope = running;
    if (typeof messageOrEvent === "string" && scope instanceof ActiveRequest && scope.progressSession !== undefined) {
      const sent = scope.progressSession.statusProgress(scope, messageOrEvent, options);
      if (sent !== undefined) return sent;
    }
    return this.progressFromStore(messageOrEvent, options);
  }

  /** {@link progress} outside a handler's synchronous part (the store's request), or with an event or checks to make. */
  private progressFromStore(messageOrEvent: string | ProgressEvent, options?: ProgressOptions): Promise<void> {
    const scope = currentScope();
    if (typeof messageOrEvent === "string" && scope instanceof ActiveRequest && scope.progressSession !== undefined) {
      const sent = scope.progressSession.statusProgress(scope, messageOrEvent, options);
      if (sent !== undefined) return sent;
    }
    return this.calls.progress(messageOrEvent, options);
  }
  progressDecoration(label: string, detail?: string, options: { requestId?: RequestId } = {}): Promise<void> { return this.calls.progressDecoration(label, detail, options); }
  get presentation(): Host["presentation"] { return this.calls.presentation; }
  get artifacts(): Host["artifacts"] { return this.calls.artifacts; }
  get policy(): Host["policy"] { return this.calls.policy; }
  get secrets(): Host["secrets"] { return this.calls.secrets; }
  get agents(): Host["agents"] { return this.calls.agents; }
  get tools(): Host["tools"] { return this.calls.tools; }
  get composer(): Host["composer"] { return this.calls.composer; }
  get session(): Host["session"] { return this.calls.session; }
  get resources(): Host["resources"] { return this.calls.resources; }
  get bulk(): Host["bulk"] { return this.calls.bulk; }
  /** Any extension→host request, as Python's raw `request`: on API 0.2/0.4 the ambient (or explicit) parent is added. */
  request(method: string, params: JsonObject = {}, options: { parentRequestId?: RequestId; operationScoped?: boolean } = {}): Promise<unknown> { return this.calls.request(method, params, options); }

  // ---- state -----------------------------------------------------------------

  /** True after a successful `initialize`. */
  get initialized(): boolean {
    if (this.v03) return this.v03.initialized;
    return this.connection?.agreed !== undefined;
  }

  /** The raw `initialize` params (after a successful initialize). */
  get initialization(): JsonObject | undefined {
    if (this.v03) return this.v03.initialization as JsonObject | undefined;
    return this.connection?.agreed?.params;
  }

  /** Workspace root from `initialize`. */
  get workspace(): string | undefined {
    const ws = this.initialization?.workspace;
    return typeof ws === "string" ? ws : undefined;
  }

  /** Host state from `initialize` (`initialize.host`: session id and name, model, active skills). */
  get hostState(): JsonObject | undefined {
    const host = this.initialization?.host;
    return isObject(host) ? host : undefined;
  }

  /** Features agreed in `initialize` on API 0.2 and 0.4 (empty on 0.1). */
  get negotiatedFeatures(): ReadonlySet<Feature> {
    return this.connection?.agreed?.features ?? new Set();
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
    return this.connection?.agreed?.flags ?? NO_FLAGS;
  }

  /** Worker count agreed in `initialize` (1 on API 0.1). */
  get negotiatedConcurrency(): number {
    if (this.v03) return this.v03.concurrency ?? 1;
    return this.connection?.agreed?.concurrency ?? 1;
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
    const options = { ...this.options, supportedFeatures: new Set(this.options.supportedFeatures), registry: this.registry, logger: this.log };
    // On stdio the host's initialize is answered before the session machinery loads (cold start, first-reply.ts).
    const opening = io.input === undefined && io.output === undefined ? await openStdio(this.log, this.registry, options) : undefined;
    let session: OffPathModules["session"];
    try {
      session = offPathModules().session;
    } catch (error) {
      // Only a broken installation gets here (every build holds the chunk): nothing can serve the session.
      this.log.error("the session code of the runtime could not be loaded", { error: errorText(error) });
      if (opening === undefined) throw error;
      await opening.stdio.flushStderr();
      process.exit(1);
    }
    await session.serveConnection(io, opening, options, (connection) => {
      this.connection = connection;
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

/**
 * API 0.3's engine (src/runtime/v03/), required when an `Extension` is made for 0.3. A literal
 * `require` is a chunk of its own under `--splitting` (as `octet-extension build` compiles), so
 * the start-up code of the other versions holds none of it; it works from source and compiled. (A
 * top-level `await import()` did the same but made every module that imports this one an async
 * module: ~0.08 ms of every cold start, docs/performance.md.)
 */
let canonicalModule: typeof import("./v03/canonical-extension.ts") | undefined;

function canonicalEngine(): typeof CanonicalExtension {
  canonicalModule ??= require("./v03/canonical-extension.ts") as typeof import("./v03/canonical-extension.ts");
  return canonicalModule.CanonicalExtension;
}
