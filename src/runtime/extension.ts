import { ErrorCode, RpcError } from "../errors.ts";
import { Logger, type LogLevel } from "../log.ts";
import { type FrameSink, FrameWriter } from "../wire/frame-writer.ts";
import type { RequestId } from "../wire/ids.ts";
import {
  CANCELLATION_GRACE_MS,
  CANCELLED_REPLY_MS,
  MAX_CONCURRENT_REQUESTS,
  MAX_MESSAGE_BYTES,
  MAX_PENDING_REQUESTS,
  SHUTDOWN_TIMEOUT_MS,
  U64_MAX,
} from "../wire/limits.ts";
import { LineSplitter } from "../wire/line-splitter.ts";
import { claimStdio, installErrorLogging, routeConsoleWhenHosted, writeStderrLine } from "../wire/stdio.ts";
import { Connection } from "./connection.ts";
import { SUPPORTED_FEATURES } from "./initialize.ts";
import { Registry } from "./registry.ts";
import { isObject } from "./results.ts";
import { currentScope } from "./scope.ts";
import type {
  ApiVersion,
  CommandHandler,
  ContextEntry,
  ContextHandler,
  HookHandler,
  HookName,
  JsonObject,
  LifecycleHandler,
  NotificationParams,
  RendererHandler,
  ResourceOwner,
  ShutdownHandler,
  StatusEntry,
  StatusHandler,
  Surface,
  ToolHandler,
} from "./types.ts";
import type { ArgumentValidator } from "./arguments.ts";
import { checkContextEntry, checkStatusEntry, notificationParams } from "./validate.ts";
import * as agents from "./agents.ts";
import { type CatalogUpdate, MAX_CATALOG_TOOLS } from "./catalog.ts";
import type { ProgressEvent } from "./progress.ts";
import type { ToolEntry } from "./registry.ts";
import * as services from "./services.ts";
import { checkResourceOwner, checkSnapshot, type PresentationSnapshot } from "./presentation.ts";
import { wireId } from "../wire/ids.ts";
import { GarbagePacer, GC_PACING_BYTES } from "./garbage-pacer.ts";

/** Reading stops while this much output waits for the host to read stdout, and resumes below the low mark. */
const WRITE_BACKLOG_HIGH = 4 * 1024 * 1024;
const WRITE_BACKLOG_LOW = 1024 * 1024;

/** Construction options; every default matches octet's Python SDK (spec §8.1). */
export interface ExtensionOptions {
  /** Default: `OCTET_EXTENSION_API_VERSION`, else `"0.1"`. */
  apiVersion?: ApiVersion;
  /** Local worker maximum for API 0.2 (default 8; the host's limit may lower it). */
  maxConcurrentRequests?: number;
  /** Admitted-but-unfinished requests before `-32000 queue is full` (default 64). */
  maxPendingRequests?: number;
  /** Frame limit in bytes (default 1 MiB). */
  maxMessageBytes?: number;
  /** Drain budget for shutdown and EOF in ms (default 2000). */
  shutdownTimeoutMs?: number;
  /** Grace after cancelling leftover work at the drain deadline in ms (default 250). */
  cancellationGraceMs?: number;
  /**
   * This SDK only: after a host cancel, answer `-32800` this many ms later if
   * the handler has not stopped, and leave it running in the background
   * (default 1000; octet ends the process 2 s after a cancel with no reply).
   */
  cancelledReplyMs?: number;
  /** API 0.2 features to accept (default: all the runtime implements). */
  supportedFeatures?: string[];
  /** Lowest log level written to stderr (default `info`). */
  logLevel?: LogLevel;
  /** Where log lines go instead of stderr (one JSON object per call, without the newline); for embedding and tests. */
  logOutput?: (line: string) => void;
  /**
   * This SDK only (no Python counterpart): frame traffic (bytes read + length
   * written, checked after each read) after which the runtime asks Bun for a
   * young-generation collection, keeping peak memory near live data instead of
   * growing with traffic. Default 512 KiB; 0 turns it off. Its cost is capped
   * at 2% of wall time. See docs/performance.md.
   */
  gcPacingBytes?: number;
  /**
   * Log uncaught errors as structured lines, exiting 1 for one raised before
   * `run()` (default true). Turn off when embedding the runtime in another program.
   */
  handleUncaught?: boolean;
}

/** I/O overrides for embedding the runtime (tests); by default it claims stdin/stdout. */
/** Per-tool options of `ext.tool()`. */
export interface ToolOptions {
  /** Checks each call's arguments before the handler runs (`gen` writes these from manifest.toml's schemas). */
  validate?: ArgumentValidator;
}

export interface RunOptions {
  input?: ReadableStream<Uint8Array>;
  output?: FrameSink;
  /** End the process with status 0 once stopped (default true when using stdio). */
  exit?: boolean;
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
  readonly apiVersion: ApiVersion;
  protected readonly registry: Registry;
  private readonly options: Required<Omit<ExtensionOptions, "apiVersion" | "logLevel" | "logOutput" | "handleUncaught">>;
  protected connection: Connection | undefined;
  private running = false;

  constructor(options: ExtensionOptions = {}) {
    this.log = new Logger(options.logOutput ?? writeStderrLine, options.logLevel ?? "info");
    routeConsoleWhenHosted(this.log);
    this.apiVersion = resolveApiVersion(options.apiVersion, this.log);
    if (options.handleUncaught !== false) installErrorLogging(this.log);
    this.registry = new Registry(this.apiVersion);
    this.services = {
      api: this.apiVersion,
      initialized: () => this.requireInitialized(),
      requireFeature: (feature) => this.requireFeature(feature),
      parent: (explicit) => this.parentFor(explicit),
      token: () => currentScope()?.token,
    };
    const supported = options.supportedFeatures ?? [...SUPPORTED_FEATURES];
    const unknown = supported.filter((f) => !(SUPPORTED_FEATURES as readonly string[]).includes(f));
    if (unknown.length > 0) throw new Error(`unsupported API 0.2 features: ${unknown.join(", ")}`);
    this.options = {
      maxConcurrentRequests: positive("maxConcurrentRequests", options.maxConcurrentRequests ?? MAX_CONCURRENT_REQUESTS),
      maxPendingRequests: positive("maxPendingRequests", options.maxPendingRequests ?? MAX_PENDING_REQUESTS),
      maxMessageBytes: positive("maxMessageBytes", options.maxMessageBytes ?? MAX_MESSAGE_BYTES),
      shutdownTimeoutMs: nonNegative("shutdownTimeoutMs", options.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS),
      cancellationGraceMs: nonNegative("cancellationGraceMs", options.cancellationGraceMs ?? CANCELLATION_GRACE_MS),
      cancelledReplyMs: nonNegative("cancelledReplyMs", options.cancelledReplyMs ?? CANCELLED_REPLY_MS),
      supportedFeatures: supported,
      gcPacingBytes: nonNegative("gcPacingBytes", options.gcPacingBytes ?? GC_PACING_BYTES),
    };
  }

  // ---- registration ----------------------------------------------------------

  /**
   * Register a model tool. `parameters` defaults to `{"type":"object"}`;
   * `outputSchema` is API 0.2 only. A thrown `Error` becomes an `is_error`
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
    definition: { name: string; description: string; parameters?: JsonObject; outputSchema?: JsonObject },
    handler: ToolHandler<Args>,
    options: ToolOptions = {},
  ): this {
    this.registry.addTool(definition, handler, options.validate);
    return this;
  }

  /**
   * Register a slash command (name without `/`). The handler gets the argument strings.
   *
   * @example
   * ext.command({ name: "hello", description: "Say hello", usage: "/hello [name]" }, ([name]) => `Hello, ${name ?? "you"}!`);
   */
  command(definition: { name: string; description: string; usage?: string }, handler: CommandHandler): this {
    this.registry.addCommand(definition, handler);
    return this;
  }

  /**
   * Register a hook handler. A hook declared in the manifest without a handler continues by default.
   *
   * @example
   * ext.hook("before_tool_call", ({ name }) => name === "rm" ? { disposition: { action: "deny", reason: "no" } } : null);
   */
  hook<H extends HookName>(name: H, handler: HookHandler<H>): this {
    this.registry.addHook(name, handler as HookHandler<any>);
    return this;
  }

  /** Register the context provider (`context/collect`); needs `contributes.context = true`. */
  context(handler: ContextHandler): this {
    this.registry.setContext(handler);
    return this;
  }

  /** Register a status provider for a declared surface (`status/collect`). */
  status(surface: Surface, handler: StatusHandler): this {
    this.registry.addStatus(surface, handler);
    return this;
  }

  /** Register a semantic renderer for a tool (`tool/render`). */
  renderer(name: string, handler: RendererHandler): this {
    this.registry.addRenderer(name, handler);
    return this;
  }

  /** Observe a lifecycle event (API 0.2): `"turn_settled"` or `"turn/settled"`, etc. */
  onLifecycle(event: string, handler: LifecycleHandler): this {
    this.registry.addLifecycle(event, handler);
    return this;
  }

  /** Run `handler` during `shutdown`, after the drain and before the acknowledgement. */
  onShutdown(handler: ShutdownHandler): this {
    this.registry.setShutdown(handler);
    return this;
  }

  // ---- state -----------------------------------------------------------------

  /** True after a successful `initialize`. */
  get initialized(): boolean {
    return this.connection?.initialized ?? false;
  }

  /** The raw `initialize` params (after a successful initialize). */
  get initialization(): JsonObject | undefined {
    return this.connection?.session?.params;
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
  get negotiatedFeatures(): ReadonlySet<string> {
    return this.connection?.session?.features ?? new Set();
  }

  /** Worker count agreed in `initialize` (1 on API 0.1). */
  get negotiatedConcurrency(): number {
    return this.connection?.session?.concurrency ?? 1;
  }

  // ---- extension → host -------------------------------------------------------

  /**
   * Show a notification to the user. Needs `contributes.notifications = true`.
   *
   * @example
   * await ext.notify("Index rebuilt", { level: "success", title: "search" });
   */
  notify(message: string, options: { level?: NotificationParams["level"]; title?: string } = {}): Promise<void> {
    // Not `async`: a burst of notifications shares its batch's promise instead of one per call.
    try {
      const params = notificationParams(message, options.level ?? "info", options.title);
      const connection = this.requireInitialized();
      if (connection.session!.contributes.notifications !== true) {
        throw new RpcError(ErrorCode.MethodNotFound, "notifications are not declared");
      }
      return connection.hostRequests!.notify("notification", params);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Ask the user to confirm; resolves to the answer (`false` when the frontend cannot ask).
   * Needs `contributes.confirmations = true`. On API 0.2 it is correlated with the
   * handler's request, or with `parentRequestId` outside a handler.
   *
   * @example
   * if (!(await ext.confirm("Delete 3 branches?", { destructive: true }))) return "cancelled";
   */
  async confirm(
    prompt: string,
    options: { detail?: string; destructive?: boolean; default?: boolean; parentRequestId?: RequestId } = {},
  ): Promise<boolean> {
    if (typeof prompt !== "string") throw new Error("confirmation prompt must be a string");
    if (options.detail !== undefined && typeof options.detail !== "string") throw new Error("confirmation detail must be a string");
    for (const key of ["destructive", "default"] as const) {
      if (options[key] !== undefined && typeof options[key] !== "boolean") throw new Error(`confirmation ${key} must be a boolean`);
    }
    const connection = this.requireInitialized();
    if (connection.session!.contributes.confirmations !== true) {
      throw new RpcError(ErrorCode.MethodNotFound, "confirmations are not declared");
    }
    const params: JsonObject = { prompt, destructive: options.destructive ?? false, default: options.default ?? false };
    if (options.detail !== undefined) params.detail = options.detail;
    if (this.apiVersion === "0.2") params.parent_request_id = this.parentFor(options.parentRequestId);
    const reply = await connection.hostRequests!.request("confirmation/request", params, currentScope()?.token);
    if (!isObject(reply) || typeof reply.confirmed !== "boolean") {
      throw new RpcError(ErrorCode.InternalError, "invalid confirmation response");
    }
    return reply.confirmed;
  }

  /** Push a context contribution (`context/contribution`); needs `contributes.context = true`. */
  async contributeContext(entry: ContextEntry): Promise<void> {
    checkContextEntry(entry);
    const connection = this.requireInitialized();
    if (connection.session!.contributes.context !== true) {
      throw new RpcError(ErrorCode.MethodNotFound, "context contributions are not declared");
    }
    await connection.hostRequests!.notify("context/contribution", { ...entry });
  }

  /** Push a status contribution (`status/contribution`) for a surface declared in `contributes.ui`. */
  async contributeStatus(entry: StatusEntry & { surface: Surface; text: string }): Promise<void> {
    this.requireInitialized();
    checkStatusEntry(entry, this.connection!.session!.contributes.ui);
    await this.connection!.hostRequests!.notify("status/contribution", { ...entry });
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
      const connection = this.requireInitialized();
      // The connection checks feature, then parent, then shape, then state (spec §8.11).
      return connection.progress(messageOrEvent, options, currentScope(), options.requestId);
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
  async publishPresentation(snapshot: PresentationSnapshot, options: { resourceOwner?: ResourceOwner } = {}): Promise<void> {
    if (this.apiVersion !== "0.2") throw new RpcError(ErrorCode.MethodNotFound, "semantic presentation requires extension API 0.2");
    const connection = this.requireInitialized();
    const contributes = connection.session!.contributes;
    if (contributes.presentation !== true) throw new RpcError(ErrorCode.MethodNotFound, "presentation are not declared");
    const commands = Array.isArray(contributes.commands) ? (contributes.commands as string[]) : [...this.registry.commands.keys()];
    checkSnapshot(snapshot, commands);
    const params: JsonObject = { snapshot };
    if (options.resourceOwner !== undefined) params.resource_owner = checkResourceOwner(options.resourceOwner);
    if (snapshot.revision <= this.presentationRevision) {
      throw new Error(`presentation revision ${snapshot.revision} must be above the last published one (${this.presentationRevision})`);
    }
    if (options.resourceOwner === undefined) {
      // Inside a handler the request is the parent; once it has settled (a timer the
      // handler left behind), the snapshot is process-scoped, as outside any handler.
      const parent = connection.activeParent(currentScope());
      if (parent !== undefined) params.parent_request_id = wireId(parent);
    }
    this.presentationRevision = snapshot.revision;
    await connection.hostRequests!.notify("presentation/update", params);
  }

  private presentationRevision = -1;

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
    try {
      const connection = this.requireInitialized();
      this.requireFeature("dynamic_tools");
      const entries = checkDynamicDefinitions(definitions, this.apiVersion);
      return connection.catalog.mutate(
        (current) => {
          const next = new Map(current);
          for (const entry of entries) next.set(entry.definition.name, entry);
          return next;
        },
        () => connection.hostRequests!.request("tools/register", { tools: entries.map((e) => e.definition) }),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Register one tool; see {@link Extension.registerTools}. */
  registerTool(definition: DynamicToolDefinition): Promise<CatalogUpdate> {
    return this.registerTools([definition]);
  }

  /** Remove tools (`tools/unregister`, needs `dynamic_tools`); unknown names are harmless. */
  unregisterTools(names: string[]): Promise<CatalogUpdate> {
    try {
      const connection = this.requireInitialized();
      this.requireFeature("dynamic_tools");
      if (!Array.isArray(names) || names.length < 1 || names.length > MAX_CATALOG_TOOLS) throw new Error(`unregister needs 1..${MAX_CATALOG_TOOLS} tool names`);
      if (names.some((n) => typeof n !== "string" || n.trim() === "")) throw new Error("tool names must be non-blank strings");
      if (new Set(names).size !== names.length) throw new Error("tool names must be unique");
      return connection.catalog.mutate(
        (current) => {
          const next = new Map(current);
          for (const name of names) next.delete(name);
          return next;
        },
        () => connection.hostRequests!.request("tools/unregister", { names: [...names] }),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Remove one tool; see {@link Extension.unregisterTools}. */
  unregisterTool(name: string): Promise<CatalogUpdate> {
    return this.unregisterTools([name]);
  }

  /** Last committed tool catalog revision (0 after initialize). */
  get toolCatalogRevision(): number {
    return this.connection?.initialized ? this.connection.catalog.revision : 0;
  }

  /**
   * Send any extension→host request. On API 0.2 the ambient (or explicit)
   * parent is added; `operationScoped` makes a missing parent an error.
   */
  async request(method: string, params: JsonObject = {}, options: { parentRequestId?: RequestId; operationScoped?: boolean } = {}): Promise<unknown> {
    const connection = this.requireInitialized();
    const sent: JsonObject = { ...params };
    if (this.apiVersion === "0.2") {
      const ambient = currentScope() !== undefined || options.parentRequestId !== undefined;
      if (ambient || options.operationScoped) sent.parent_request_id = this.parentFor(options.parentRequestId);
    }
    return connection.hostRequests!.request(method, sent, currentScope()?.token);
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
    this.registry.freeze();
    // Start reading first: the host's initialize arrives while the rest is set up.
    const reader = (io.input ?? Bun.stdin.stream()).getReader();
    const firstRead = reader.read();
    const stdio = io.output === undefined ? claimStdio(this.log) : undefined;
    const exit = io.exit ?? (io.input === undefined && io.output === undefined);
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const writer = new FrameWriter(io.output ?? stdio!.protocol, () => this.log.info("extension protocol stream closed"));
    // Handlers wait until fds 1 and 2 are sealed, which happens once the first frame is out.
    let sealed: () => void = () => {};
    const handlersReady = stdio ? new Promise<void>((resolve) => (sealed = resolve)) : undefined;
    if (stdio) {
      writer.afterFirstFlush(() => {
        const sink = stdio.seal();
        sealed();
        return sink;
      });
    }
    const connection = new Connection({
      handlersReady,
      registry: this.registry,
      logger: this.log,
      writer,
      ...this.options,
      supportedFeatures: new Set(this.options.supportedFeatures),
      onStop: stop,
    });
    this.connection = connection;
    this.attach(connection);
    void this.readLoop(reader, firstRead, connection, writer);
    await stopped;
    if (exit) {
      await stdio?.flushStderr();
      process.exit(0);
    }
  }

  /** Hook for subclasses that extend the connection (API 0.2 services). */
  protected attach(_connection: Connection): void {}

  private async readLoop(
    reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> },
    firstRead: Promise<{ done: boolean; value?: Uint8Array }>,
    connection: Connection,
    writer: FrameWriter,
  ): Promise<void> {
    const splitter = new LineSplitter(this.options.maxMessageBytes);
    const emit = connection.receive.bind(connection);
    const pacer = new GarbagePacer(this.options.gcPacingBytes);
    let received = 0;
    try {
      for (let next = firstRead; ; next = reader.read()) {
        const { done, value } = await next;
        if (done || !value) break;
        splitter.push(value, emit);
        received += value.length;
        pacer.pace(received + writer.handedOver);
        // The host is not reading stdout: read no more requests until it does (spec §8.10).
        if (writer.backlog > WRITE_BACKLOG_HIGH) await writer.whenBelow(WRITE_BACKLOG_LOW);
      }
    } catch (error) {
      this.log.info("extension protocol stream closed", { error: (error as Error).message });
    }
    splitter.end(emit);
    await connection.endOfInput();
  }

  /** `-32601` unless the feature was negotiated (spec §5). */
  protected requireFeature(feature: string): void {
    if (this.apiVersion === "0.1" || !this.negotiatedFeatures.has(feature)) {
      throw new RpcError(ErrorCode.MethodNotFound, `API 0.2 feature is not negotiated: ${feature}`);
    }
  }

  /** The seam the service modules use (not public API). */
  private readonly services: services.ServiceHost;

  protected requireInitialized(): Connection {
    const connection = this.connection;
    if (!connection?.initialized) throw new RpcError(ErrorCode.InvalidRequest, "initialize must be the first request");
    return connection;
  }

  /** Parent of an operation-scoped request (spec §8.11): explicit, else ambient, else `-32602`. */
  protected parentFor(explicit: RequestId | undefined): number | bigint {
    if (explicit !== undefined) {
      if (!isU64(explicit)) throw new RpcError(ErrorCode.InvalidParams, "parent_request_id must be an unsigned 64-bit integer");
      return explicit;
    }
    const ambient = currentScope()?.id;
    if (ambient === undefined) throw new RpcError(ErrorCode.InvalidParams, "operation-scoped host request requires parent_request_id");
    if (!isU64(ambient)) throw new RpcError(ErrorCode.InvalidParams, "parent_request_id must be an unsigned 64-bit integer");
    return ambient;
  }
}

function isU64(id: unknown): id is number | bigint {
  if (typeof id === "number") return Number.isSafeInteger(id) && id >= 0;
  if (typeof id === "bigint") return id >= 0n && id <= U64_MAX;
  return false;
}

function resolveApiVersion(explicit: string | undefined, log: Logger): ApiVersion {
  if (explicit !== undefined) {
    if (explicit !== "0.1" && explicit !== "0.2") throw new Error(`unsupported extension API version ${JSON.stringify(explicit)}; use "0.1" or "0.2"`);
    return explicit;
  }
  const env = process.env.OCTET_EXTENSION_API_VERSION;
  if (env === undefined || env === "") return "0.1";
  if (env === "0.1" || env === "0.2") return env;
  log.warning("unsupported OCTET_EXTENSION_API_VERSION; speaking API 0.1", { requested: env });
  return "0.1";
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a finite non-negative number`);
  return value;
}

/** A tool added at runtime: its definition plus its handler. */
export interface DynamicToolDefinition {
  name: string;
  description: string;
  parameters?: JsonObject | null;
  outputSchema?: JsonObject | null;
  handler: ToolHandler<any>;
}

/** Argument checks for registerTools (spec §8.7): plain errors, nothing sent. */
function checkDynamicDefinitions(definitions: DynamicToolDefinition[], api: ApiVersion): ToolEntry[] {
  if (!Array.isArray(definitions) || definitions.length < 1 || definitions.length > MAX_CATALOG_TOOLS) throw new Error(`register needs 1..${MAX_CATALOG_TOOLS} tool definitions`);
  const seen = new Set<string>();
  const staging = new Registry(api);
  return definitions.map((definition) => {
    if (!definition || typeof definition !== "object") throw new Error("a tool definition must be an object");
    for (const key of Object.keys(definition)) {
      if (!["name", "description", "parameters", "outputSchema", "handler"].includes(key)) throw new Error(`tool definition has unknown field ${key}`);
    }
    if (seen.has(definition.name)) throw new Error(`tool \`${definition.name}\` is listed twice`);
    seen.add(definition.name);
    const base: { name: string; description: string; parameters?: JsonObject; outputSchema?: JsonObject } = {
      name: definition.name,
      description: definition.description,
    };
    if (definition.parameters !== undefined && definition.parameters !== null) base.parameters = definition.parameters;
    if (definition.outputSchema !== undefined && definition.outputSchema !== null) base.outputSchema = definition.outputSchema;
    staging.addTool(base, definition.handler);
    return staging.tools.get(definition.name)!;
  });
}
