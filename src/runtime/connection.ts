import { ErrorCode, RpcError, cancelledError, errorText } from "../errors.ts";
import { type Feature, LIFECYCLE_METHODS } from "../protocol.ts";
import type { Logger } from "../log.ts";
import { decodeLine } from "../wire/decode.ts";
import { FrameEncodeError, type WireLine, encodeWireFrame } from "../wire/encode.ts";
import type { FrameWriter } from "../wire/frame-writer.ts";
import { type RequestId, readId, wireId } from "../wire/ids.ts";
import { readInteger } from "../wire/json.ts";
import type { SplitEvent } from "../wire/line-splitter.ts";
import { CancellationToken } from "./cancellation.ts";
import { scratchDirectory, workspaceOf } from "./handler-paths.ts";
import { HostRequests } from "./host-requests.ts";
import { type Negotiated, negotiate } from "./initialize.ts";
import type { LiveSession } from "./live-session.ts";
import { ToolCatalog } from "./catalog.ts";
import { METHODS, type MethodEnv, isThenable } from "./methods.ts";
import { checkProgressEvent, type ProgressEvent, statusEventJson } from "./progress.ts";
import { apiRefusal, featureRefusal, progressCall } from "./refusals.ts";
import type { LifecycleMethod, Registry, ToolEntry } from "./registry.ts";
import { isObject, toolResult02 } from "./results.ts";
import { Scheduler } from "./scheduler.ts";
import { runInScope } from "./scope.ts";
import { SHUTDOWN_HANDLER_MS, SHUTDOWN_HANDLER_SHARE_MS, SHUTDOWN_REPLY_MS, within } from "./shutdown-budget.ts";
import type { HandlerContext, JsonObject } from "./types.ts";

export interface ConnectionOptions {
  registry: Registry;
  logger: Logger;
  writer: FrameWriter;
  maxMessageBytes: number;
  maxPendingRequests: number;
  maxConcurrentRequests: number;
  supportedFeatures: ReadonlySet<Feature>;
  shutdownTimeoutMs: number;
  cancellationGraceMs: number;
  /** See `ExtensionOptions.cancelledReplyMs`. */
  cancelledReplyMs: number;
  /** Called once, after the last frame was flushed: the process should end (status 0). */
  onStop(): void;
  /** No author code (handlers, hooks) runs before this resolves. */
  handlersReady?: Promise<void>;
}

/**
 * An admitted host request, from admission until its one reply is handed to
 * the writer. It is its own cancellation token and its own ambient scope
 * (one object per request on the hot path).
 */
class ActiveRequest extends CancellationToken {
  settled = false;
  /** The handler was called. */
  started = false;
  /** Answered -32800 while its handler kept running; its worker slot was lent out (see `abandonStuck`). */
  abandoned = false;
  /** Last `$/progress` sequence sent for it (sequences start at 1). */
  progressSequence = 0;
  /** Callbacks for after the reply (see `RequestScope.afterReply`); rare, so made on first use. */
  replied: ((succeeded: boolean, result: unknown) => void)[] | undefined;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly params: unknown,
  ) {
    super();
  }

  afterReply(callback: (succeeded: boolean, result: unknown) => void): void {
    if (this.settled) throw new Error("the request has already been answered");
    (this.replied ??= []).push(callback);
  }

  /** The ambient-scope shape (`RequestScope`): the request is its own token. */
  get token(): CancellationToken {
    return this;
  }
}

type Outcome = { result: unknown } | { error: RpcError };

const JSONRPC = "2.0";
/** How long the final flush may take before the process ends anyway (spec §8.8 step 6). */
const FINAL_FLUSH_MS = 2_000;

/**
 * One protocol session over stdin/stdout: routes every decoded frame (spec
 * §8.3), runs admitted requests on the worker pool, writes exactly one reply
 * per request, and drains on shutdown or EOF (spec §1.7, §8.8).
 * Routing is synchronous: the reader never runs or waits for handler code.
 */
export class Connection {
  private state: "uninitialized" | "ready" | "draining" | "stopped" = "uninitialized";
  /** Set by a successful initialize. */
  private liveSession: LiveSession | undefined;
  private readonly active = new Map<RequestId, ActiveRequest>();
  private readonly scheduler: Scheduler;
  private shutdownDone: Promise<void> | undefined;
  private stopped = false;

  private handlersGate: Promise<void> | undefined;

  constructor(private readonly options: ConnectionOptions) {
    this.scheduler = new Scheduler(1, options.maxPendingRequests);
    this.handlersGate = options.handlersReady?.then(() => {
      this.handlersGate = undefined;
    });
  }

  /** The session, host channel and catalog; `undefined` until a successful initialize. */
  get live(): LiveSession | undefined {
    return this.liveSession;
  }

  /** {@link Connection.live}, or `-32600` before a successful initialize. */
  requireLive(): LiveSession {
    if (!this.liveSession) throw new RpcError(ErrorCode.InvalidRequest, "initialize must be the first request");
    return this.liveSession;
  }

  get session(): Negotiated | undefined {
    return this.liveSession?.session;
  }

  get initialized(): boolean {
    return this.liveSession !== undefined;
  }

  get draining(): boolean {
    return this.state === "draining" || this.state === "stopped";
  }

  /** The tool catalog with its epochs; exists once initialized. */
  get catalog(): ToolCatalog {
    return this.requireLive().catalog;
  }

  /**
   * Send `$/progress` for the ambient or named host request (spec §4.6, §8.11):
   * feature, then parent, then (checked by the caller) shape, then state.
   */
  progress(
    input: string | ProgressEvent,
    status: { current?: number | null; total?: number | null; unit?: string | null },
    scope: unknown,
    explicit: RequestId | undefined,
  ): Promise<void> {
    const live = this.requireLive();
    const features = live.session.features;
    if (!features.has("request_progress")) throw featureRefusal(progressCall(input), "request_progress", live.session, this.options.supportedFeatures);
    let request: ActiveRequest | undefined;
    if (explicit !== undefined) {
      request = this.active.get(explicit);
      if (!request) throw new RpcError(ErrorCode.InvalidParams, "unknown progress request_id");
    } else if (scope instanceof ActiveRequest) {
      request = scope;
    } else {
      throw new RpcError(ErrorCode.InvalidParams, "progress requires an active parent request");
    }
    if (typeof request.id === "string") throw new RpcError(ErrorCode.InvalidParams, "progress requires a numeric parent request id");
    // A status message is written straight to JSON text; an event object is checked and encoded.
    const event = typeof input === "string" ? statusEventJson(input, status) : checkProgressEvent(input);
    if (typeof event !== "string" && event.type === "decoration" && !features.has("progress_decoration")) {
      throw featureRefusal("ext.progressDecoration()", "progress_decoration", live.session, this.options.supportedFeatures);
    }
    let sent: string | ProgressEvent = event;
    if (typeof event !== "string" && event.type === "partial_result") {
      // octet 0.8.x takes a result snapshot only under a tool call; octet 0.8.0's 0.2 has no such event, so only 0.4 sends it.
      if (live.session.api !== "0.4") throw apiRefusal('ext.progress({ type: "partial_result" })', "0.4", live.session.api);
      if (request.method !== "tool/call") throw new RpcError(ErrorCode.InvalidParams, "partial_result progress belongs to a tool call");
      sent = { type: "partial_result", result: toolResult02(event.result, { api: live.session.api, outputSchema: undefined, artifacts: features.has("artifacts"), bulk: features.has("bulk_objects_v1") }) };
    }
    if (request.cancelled) throw cancelledError(request.reason!);
    if (request.settled) throw new RpcError(ErrorCode.ServerError, "request has already settled");
    request.progressSequence++;
    const id = request.id as number | bigint;
    const sequence = request.progressSequence;
    return live.hostRequests.sendProgress(id, sequence, sent);
  }

  /** The id of `scope` when it is a host request that is still unanswered (a valid parent). */
  activeParent(scope: unknown): RequestId | undefined {
    if (!(scope instanceof ActiveRequest)) return undefined;
    return this.active.get(scope.id) === scope && !scope.settled ? scope.id : undefined;
  }

  /** Extension→host requests; exists once initialized. */
  get hostRequests(): HostRequests | undefined {
    return this.liveSession?.hostRequests;
  }

  // ---- inbound -----------------------------------------------------------

  /** Handle one event from the line splitter. */
  receive(event: SplitEvent): void {
    if (event.kind === "oversize") {
      this.rejectInput(ErrorCode.ParseError, `JSON-RPC message exceeds ${this.options.maxMessageBytes} bytes`);
      return;
    }
    const decoded = decodeLine(event.parts);
    if (decoded.ok === "blank") return;
    if (decoded.ok === false) {
      this.rejectInput(ErrorCode.ParseError, decoded.message);
      return;
    }
    this.route(decoded.value);
  }

  private route(value: unknown): void {
    if (!isObject(value)) return this.rejectInput(ErrorCode.InvalidRequest, "JSON-RPC message must be an object");
    if (value.jsonrpc !== JSONRPC) return this.rejectInput(ErrorCode.InvalidRequest, "JSON-RPC message must set jsonrpc to 2.0");
    const id = readId(value);
    const echo = id.kind === "valid" ? wireId(id.id) : id.kind === "invalid" ? id.echo : null;
    if (!("method" in value)) {
      if (id.kind !== "absent" && ("result" in value || "error" in value)) return this.routeResponse(value, id);
      return this.rejectInput(ErrorCode.InvalidRequest, "invalid JSON-RPC request", echo);
    }
    const method = value.method;
    if (typeof method !== "string" || method === "") {
      return this.rejectInput(ErrorCode.InvalidRequest, "method must be a string", echo);
    }
    const params = value.params === undefined ? {} : value.params;
    if (id.kind === "absent") return this.routeNotification(method, params);
    if (id.kind === "invalid") {
      return this.rejectInput(ErrorCode.InvalidRequest, "JSON-RPC id must be an integer or string", echo);
    }
    this.routeRequest(id.id, method, params);
  }

  private routeResponse(message: JsonObject, id: ReturnType<typeof readId>): void {
    if (id.kind !== "valid") {
      this.options.logger.warning("ignored response with invalid id");
      return;
    }
    if (!this.liveSession?.hostRequests.settle(id.id, message)) {
      this.options.logger.warning("ignored late or unknown response", { response_id: id.id });
    }
  }

  private routeNotification(method: string, params: unknown): void {
    const logger = this.options.logger;
    if (method === "initialize") return logger.warning("ignored initialize notification");
    if (method === "shutdown") return logger.warning("ignored shutdown notification");
    if (method === "$/cancelRequest") return this.cancelFromHost(params);
    if (this.state === "uninitialized" || this.draining) return;
    if (this.isLifecycleMethod(method)) return this.runLifecycle(method as LifecycleMethod, params);
    logger.warning("ignored unknown notification", { method });
  }

  private routeRequest(id: RequestId, method: string, params: unknown): void {
    if (method === "initialize") return this.initialize(id, params);
    if (method === "$/cancelRequest") {
      this.cancelFromHost(params);
      return this.writeReply(id, { result: {} });
    }
    if (method === "shutdown") return this.beginShutdown(id, params);
    if (this.state === "uninitialized") {
      return this.writeReply(id, { error: new RpcError(ErrorCode.InvalidRequest, "initialize must be the first request") });
    }
    if (this.draining) {
      return this.writeReply(id, { error: new RpcError(ErrorCode.ServerError, "extension is draining") });
    }
    if (!this.scheduler.admit()) {
      return this.writeReply(id, { error: new RpcError(ErrorCode.ServerError, "extension request queue is full") });
    }
    if (this.active.has(id)) {
      this.scheduler.release();
      return this.writeReply(id, { error: new RpcError(ErrorCode.InvalidRequest, "duplicate active request id") });
    }
    const request = new ActiveRequest(id, method, params);
    this.active.set(id, request);
    this.scheduler.run(() => this.execute(request));
  }

  // ---- initialize ----------------------------------------------------------

  private initialize(id: RequestId, params: unknown): void {
    if (this.state !== "uninitialized") {
      return this.writeReply(id, { error: new RpcError(ErrorCode.InvalidRequest, "initialize must be the first request") });
    }
    let negotiated: ReturnType<typeof negotiate>;
    try {
      negotiated = negotiate(params, this.options.registry, {
        maxConcurrentRequests: this.options.maxConcurrentRequests,
        supportedFeatures: this.options.supportedFeatures,
        warn: (message, fields) => this.options.logger.warning(message, fields),
      });
    } catch (error) {
      const rpc = error instanceof RpcError ? error : new RpcError(ErrorCode.InternalError, errorText(error));
      this.options.logger.error("initialize failed", { code: rpc.code, error: rpc.message });
      return this.writeReply(id, { error: rpc });
    }
    const { result, negotiated: session } = negotiated;
    // The reply is queued before the state changes, so nothing can precede it; a reply that
    // cannot be encoded is answered -32603 and leaves the process uninitialised.
    if (!this.writeReplyChecked(id, { result })) return;
    this.liveSession = {
      session,
      hostRequests: new HostRequests(session.api, this.options.writer, this.options.logger, this.options.maxMessageBytes),
      catalog: new ToolCatalog(this.options.registry.tools, session.features.has("dynamic_tools")),
      connection: this,
    };
    this.state = "ready";
    this.scheduler.setConcurrency(session.concurrency);
  }

  // ---- request execution --------------------------------------------------

  /**
   * Run one admitted request to its reply. Synchronous when the handler is, so
   * the common path spends no promise; a promise otherwise (the scheduler waits).
   */
  private execute(request: ActiveRequest): void | Promise<void> {
    if (this.handlersGate) return this.handlersGate.then(() => this.execute(request));
    if (request.settled) return;
    if (request.cancelled) return this.settle(request, { error: cancelledError(request.reason!) });
    const method = Object.hasOwn(METHODS, request.method) ? METHODS[request.method] : undefined;
    if (!method) return this.conclude(request, { error: new RpcError(ErrorCode.MethodNotFound, `unknown method: ${request.method}`) });
    const ctx = this.handlerContext(request);
    request.started = true;
    let result: unknown;
    try {
      // The request itself is the ambient scope (it has id, method and token).
      result = runInScope(request, method, this.methodEnv(), request.params, ctx);
    } catch (error) {
      return this.conclude(request, this.failure(request, error));
    }
    if (!isThenable(result)) return this.conclude(request, { result });
    return Promise.resolve(result).then(
      (value) => this.conclude(request, { result: value }),
      (error) => this.conclude(request, this.failure(request, error)),
    );
  }

  private failure(request: ActiveRequest, error: unknown): Outcome {
    if (error instanceof RpcError) return { error };
    this.options.logger.error("request handler failed", { method: request.method, error: errorText(error) });
    return { error: new RpcError(ErrorCode.InternalError, "internal error") };
  }

  /** Commit the outcome, unless a cancel was seen first (spec §8.5). */
  private conclude(request: ActiveRequest, outcome: Outcome): void {
    if (request.abandoned) {
      // Answered long ago (abandonStuck): give the lent worker slot back, write nothing.
      request.abandoned = false;
      this.scheduler.unlend();
      this.options.logger.info("cancelled handler finished after its reply", { method: request.method });
      return;
    }
    if (request.cancelled) outcome = { error: cancelledError(request.reason!) };
    if ("error" in outcome && outcome.error.code !== ErrorCode.RequestCancelled) {
      this.options.logger.error("request failed", { method: request.method, code: outcome.error.code, error: outcome.error.message });
    }
    this.settle(request, outcome);
  }

  private handlerContext(request: ActiveRequest): HandlerContext {
    const params = request.params;
    const context = isObject(params) && isObject(params.context) ? params.context : {};
    return new RequestContext(context, request.id, request.method, request, this.session?.params);
  }

  private env: MethodEnv | undefined;

  /** What host-method handlers see; built once per session. */
  private methodEnv(): MethodEnv {
    if (this.env) return this.env;
    const registry = this.options.registry;
    return (this.env = {
      registry,
      session: this.requireLive().session,
      logger: this.options.logger,
      lookupTool: (params) => this.catalog.lookup(params),
    });
  }

  /** Commit the one reply of `request` and free its admission slot. */
  private settle(request: ActiveRequest, outcome: Outcome): void {
    if (request.settled) return;
    request.settled = true;
    this.active.delete(request.id);
    const replied = request.replied;
    if (!replied) {
      this.writeReply(request.id, outcome);
      this.scheduler.release();
      return;
    }
    const encoded = this.writeReplyChecked(request.id, outcome);
    this.scheduler.release();
    // A tool result with is_error is a failure of the operation, like an error reply.
    const succeeded = encoded && "result" in outcome && !(isObject(outcome.result) && outcome.result.is_error === true);
    const result = "result" in outcome ? outcome.result : undefined;
    for (const callback of replied.splice(0)) callback(succeeded, result);
  }

  /** Like {@link writeReply}; false when the outcome could not be encoded (-32603 was sent instead). */
  private writeReplyChecked(id: RequestId, outcome: Outcome): boolean {
    let encoded = true;
    this.writeReply(id, outcome, () => (encoded = false));
    return encoded;
  }

  /** Encode and queue a reply; an unencodable result becomes `-32603` (never `-32800`). */
  private writeReply(id: RequestId, outcome: Outcome, onEncodeFailure?: () => void): void {
    const frame: JsonObject = { jsonrpc: JSONRPC, id: wireId(id) };
    if ("result" in outcome) frame.result = outcome.result;
    else frame.error = outcome.error.toJSON();
    let line: WireLine;
    try {
      line = encodeWireFrame(frame, this.options.maxMessageBytes);
    } catch (error) {
      const message = error instanceof FrameEncodeError ? error.message : `cannot serialize JSON-RPC message: ${errorText(error)}`;
      this.options.logger.error("request failed", { code: ErrorCode.InternalError, error: message });
      onEncodeFailure?.();
      line = encodeWireFrame({ jsonrpc: JSONRPC, id: wireId(id), error: { code: ErrorCode.InternalError, message } }, this.options.maxMessageBytes);
    }
    this.options.writer.send(line);
  }

  /** Answer input the runtime cannot route (error replies with `id` null unless echoed). */
  private rejectInput(code: number, message: string, echo: unknown = null): void {
    this.options.logger.error("invalid protocol input", { code, error: message });
    const frame = { jsonrpc: JSONRPC, id: echo, error: { code, message } };
    this.options.writer.send(encodeWireFrame(frame, this.options.maxMessageBytes));
  }

  // ---- cancellation ----------------------------------------------------------

  private cancelFromHost(params: unknown): void {
    const logger = this.options.logger;
    if (!isObject(params) || !("id" in params)) return logger.warning("ignored malformed cancellation");
    const target = readId(params);
    if (target.kind !== "valid") return logger.warning("ignored cancellation with invalid id");
    const reason = params.reason === undefined || params.reason === null ? "cancelled" : String(params.reason);
    const request = this.active.get(target.id);
    if (request && !request.settled) {
      if (!request.cancelled) setTimeout(() => this.abandonStuck(request), this.options.cancelledReplyMs).unref();
      request.cancel(reason);
      return;
    }
    this.liveSession?.hostRequests.cancel(target.id, reason);
  }

  /**
   * A cancelled request still unanswered after `cancelledReplyMs`: answer
   * `-32800` now, before octet's 2 s grace ends and it restarts the process,
   * and let the handler finish in the background. Its worker slot is lent to
   * the pool meanwhile, so one stuck tool does not stall the others.
   */
  private abandonStuck(request: ActiveRequest): void {
    if (request.settled || this.active.get(request.id) !== request) return;
    this.options.logger.warning("handler did not stop after cancellation: answered -32800, still running", { method: request.method, ms: this.options.cancelledReplyMs });
    if (request.started) {
      request.abandoned = true;
      this.scheduler.lend();
    }
    this.settle(request, { error: cancelledError(request.reason!) });
  }

  // ---- lifecycle notifications (API 0.2) ------------------------------------

  private isLifecycleMethod(method: string): boolean {
    return (LIFECYCLE_METHODS as readonly string[]).includes(method);
  }

  private runLifecycle(method: LifecycleMethod, params: unknown): void {
    const logger = this.options.logger;
    const { session } = this.requireLive();
    const handler = this.options.registry.lifecycle.get(method);
    if (!session.features.has("lifecycle_events") || !handler || !session.lifecycleEvents.includes(method)) {
      return logger.warning("ignored unnegotiated lifecycle event", { method });
    }
    if (!this.scheduler.admit()) return logger.warning("dropped lifecycle event because request queue is full", { method });
    this.scheduler.run(async () => {
      try {
        if (this.handlersGate) await this.handlersGate;
        await handler(isObject(params) ? params : {});
      } catch (error) {
        logger.error("lifecycle handler failed", { method, error: errorText(error) });
      } finally {
        this.scheduler.release();
      }
    });
  }

  // ---- shutdown and EOF ------------------------------------------------------

  private beginShutdown(id: RequestId, params: unknown): void {
    if (this.state === "uninitialized") {
      return this.writeReply(id, { error: new RpcError(ErrorCode.InvalidRequest, "initialize must be the first request") });
    }
    if (this.draining) {
      return this.writeReply(id, { error: new RpcError(ErrorCode.ServerError, "extension is already draining") });
    }
    this.state = "draining";
    let budget = this.options.shutdownTimeoutMs;
    if (isObject(params)) {
      const requested = readInteger(params, "drain_timeout_ms");
      if (requested !== undefined && requested >= 0 && requested < budget) budget = Number(requested);
    }
    this.shutdownDone = this.shutdown(id, isObject(params) ? params : {}, budget, performance.now() + SHUTDOWN_REPLY_MS);
  }

  /** Drain, run the handler, reply: the reply is written by `replyBy` whatever they do (`shutdown-budget.ts`). */
  private async shutdown(id: RequestId, params: JsonObject, budget: number, replyBy: number): Promise<void> {
    const handler = this.options.registry.shutdownHandler;
    await this.drain("shutdown", budget, replyBy - (handler ? SHUTDOWN_HANDLER_SHARE_MS : 0));
    const outcome = handler ? await this.runShutdownHandler(handler, id, params, Math.min(SHUTDOWN_HANDLER_MS, replyBy - performance.now())) : { result: {} };
    this.writeReply(id, outcome);
    await this.stop("extension stopped");
  }

  /** Run `onShutdown` for at most `boundMs`; one still running then is cancelled, logged and left behind. */
  private async runShutdownHandler(handler: NonNullable<Registry["shutdownHandler"]>, id: RequestId, params: JsonObject, boundMs: number): Promise<Outcome> {
    const token = new CancellationToken();
    const ctx = new RequestContext({}, id, "shutdown", token, this.session?.params);
    const run = async () => {
      if (this.handlersGate) await this.handlersGate;
      await runInScope({ id, method: "shutdown", token }, () => handler(params, ctx));
    };
    try {
      if ((await within(run(), boundMs)) === "timeout") {
        token.cancel("shutdown");
        this.options.logger.warning("shutdown handler did not settle: acknowledged without it", { ms: Math.round(Math.max(0, boundMs)) });
      }
      return { result: {} };
    } catch (error) {
      this.options.logger.error("shutdown handler failed", { error: errorText(error) });
      return { error: new RpcError(ErrorCode.InternalError, "shutdown failed") };
    }
  }

  /** stdin reached EOF: the transport is gone (spec §1.7). */
  async endOfInput(): Promise<void> {
    this.options.logger.info("extension stdin closed");
    const budget = this.options.shutdownTimeoutMs;
    if (this.shutdownDone) {
      // Let an admitted shutdown finish and acknowledge within a bounded budget: its own
      // drain, grace and force-settling fit; a stuck shutdown hook does not extend it.
      await Promise.race([this.shutdownDone, sleep(budget + 2 * this.options.cancellationGraceMs)]);
      for (const request of [...this.active.values()]) this.settle(request, { error: cancelledError(request.reason ?? "shutdown") });
      return this.stop("stdin closed while waiting for host response");
    }
    this.state = "draining";
    await this.drain("transport_lost", budget);
    await this.stop("stdin closed while waiting for host response");
  }

  /**
   * Wait for admitted work; at the deadline cancel it, allow the grace, then
   * answer what is left. Budget and grace both end by `endBy` (a
   * `performance.now()` time) when given.
   */
  private async drain(reason: string, budget: number, endBy = Infinity): Promise<void> {
    const grace = this.options.cancellationGraceMs;
    const left = () => Math.max(0, endBy - performance.now());
    if (await this.scheduler.whenIdle(Math.max(0, Math.min(budget, left() - grace)))) return;
    for (const request of this.active.values()) request.cancel(reason);
    if (await this.scheduler.whenIdle(Math.min(grace, left()))) return;
    for (const request of [...this.active.values()]) this.settle(request, { error: cancelledError(request.reason ?? reason) });
    // What still holds a slot is lifecycle callbacks: the stop goes on without them.
    if (this.scheduler.pending > 0) this.options.logger.warning("lifecycle handlers still running at the drain deadline: stopping without them", { count: this.scheduler.pending, reason });
  }

  private async stop(failOutstandingWith: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.state = "stopped";
    for (const request of this.active.values()) request.cancel("shutdown");
    this.liveSession?.hostRequests.failAll(failOutstandingWith);
    // A host that stopped reading cannot keep the process alive: flush for at most 2 s.
    await Promise.race([this.options.writer.drained(), sleep(FINAL_FLUSH_MS)]);
    this.options.onStop();
  }
}

/** The handler's second argument; `signal` is created only when read. */
class RequestContext implements HandlerContext {
  constructor(
    readonly context: JsonObject,
    readonly requestId: RequestId,
    readonly method: string,
    readonly cancellation: CancellationToken,
    private readonly initializeParams: JsonObject | undefined,
  ) {}

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  get workspace(): string {
    return workspaceOf(this.context, this.initializeParams);
  }

  get scratch(): string {
    return scratchDirectory();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
