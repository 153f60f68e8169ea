import { ErrorCode, RpcError } from "../errors.ts";
import { Logger, type LogLevel } from "../log.ts";
import { type FrameSink, FrameWriter } from "../wire/frame-writer.ts";
import type { RequestId } from "../wire/ids.ts";
import {
  CANCELLATION_GRACE_MS,
  MAX_CONCURRENT_REQUESTS,
  MAX_MESSAGE_BYTES,
  MAX_PENDING_REQUESTS,
  SHUTDOWN_TIMEOUT_MS,
  U64_MAX,
} from "../wire/limits.ts";
import { LineSplitter } from "../wire/line-splitter.ts";
import { claimStdio } from "../wire/stdio.ts";
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
  ShutdownHandler,
  StatusEntry,
  StatusHandler,
  Surface,
  ToolHandler,
} from "./types.ts";
import { checkContextEntry, checkStatusEntry, notificationParams } from "./validate.ts";

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
  /** API 0.2 features to accept (default: all the runtime implements). */
  supportedFeatures?: string[];
  /** Lowest log level written to stderr (default `info`). */
  logLevel?: LogLevel;
}

/** I/O overrides for embedding the runtime (tests); by default it claims stdin/stdout. */
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
  private readonly options: Required<Omit<ExtensionOptions, "apiVersion" | "logLevel">>;
  protected connection: Connection | undefined;
  private running = false;

  constructor(options: ExtensionOptions = {}) {
    this.log = new Logger(writeStderrLine, options.logLevel ?? "info");
    this.apiVersion = resolveApiVersion(options.apiVersion, this.log);
    this.registry = new Registry(this.apiVersion);
    const supported = options.supportedFeatures ?? [...SUPPORTED_FEATURES];
    const unknown = supported.filter((f) => !(SUPPORTED_FEATURES as readonly string[]).includes(f));
    if (unknown.length > 0) throw new Error(`unsupported API 0.2 features: ${unknown.join(", ")}`);
    this.options = {
      maxConcurrentRequests: positive("maxConcurrentRequests", options.maxConcurrentRequests ?? MAX_CONCURRENT_REQUESTS),
      maxPendingRequests: positive("maxPendingRequests", options.maxPendingRequests ?? MAX_PENDING_REQUESTS),
      maxMessageBytes: positive("maxMessageBytes", options.maxMessageBytes ?? MAX_MESSAGE_BYTES),
      shutdownTimeoutMs: nonNegative("shutdownTimeoutMs", options.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS),
      cancellationGraceMs: nonNegative("cancellationGraceMs", options.cancellationGraceMs ?? CANCELLATION_GRACE_MS),
      supportedFeatures: supported,
    };
  }

  // ---- registration ----------------------------------------------------------

  /**
   * Register a model tool. `parameters` defaults to `{"type":"object"}`;
   * `outputSchema` is API 0.2 only. A thrown `Error` becomes an `is_error`
   * result with the error's message; a thrown `RpcError` becomes an error reply.
   *
   * @example
   * ext.tool({ name: "hello_world", description: "Greet someone",
   *   parameters: { type: "object", properties: { name: { type: "string" } } } },
   *   (args: { name?: string }) => ({ content: `Hello, ${args.name ?? "world"}!` }));
   */
  tool<Args = JsonObject>(
    definition: { name: string; description: string; parameters?: JsonObject; outputSchema?: JsonObject },
    handler: ToolHandler<Args>,
  ): this {
    this.registry.addTool(definition, handler);
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
    void this.readLoop(reader, firstRead, connection);
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
  ): Promise<void> {
    const splitter = new LineSplitter(this.options.maxMessageBytes);
    const emit = connection.receive.bind(connection);
    try {
      for (let next = firstRead; ; next = reader.read()) {
        const { done, value } = await next;
        if (done || !value) break;
        splitter.push(value, emit);
      }
    } catch (error) {
      this.log.info("extension protocol stream closed", { error: (error as Error).message });
    }
    splitter.end(emit);
    await connection.endOfInput();
  }

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
  if (typeof id === "number") return Number.isInteger(id) && id >= 0;
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
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
}

let stderrSink: ReturnType<typeof Bun.stderr.writer> | undefined;
/** Logger output before `run()` claims stdio (avoids touching the costly `process.stderr`). */
function writeStderrLine(line: string): void {
  stderrSink ??= Bun.stderr.writer();
  stderrSink.write(line + "\n");
  stderrSink.flush();
}
