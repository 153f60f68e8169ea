import { isObject } from "../check.ts";
import { ErrorCode, RpcError, errorText } from "../errors.ts";
import { type Feature, LIFECYCLE_METHODS, type LifecycleMethod, oversizeText, WIRE_ERRORS } from "../protocol.ts";
import type { Logger } from "../log.ts";
import { decodeLine, decodeText } from "../wire/decode.ts";
import type { FrameWriter } from "../wire/frame-writer.ts";
import { type RequestId, readId, wireId } from "../wire/ids.ts";
import { parseJson, readInteger } from "../wire/json.ts";
import type { LineEvent } from "../wire/line-splitter.ts";
import { CancellationToken } from "./cancellation.ts";
import { initializeFailureReply, shutdownFailureReply } from "./failure.ts";
import type { HostSession } from "./host-session.ts";
import { hostSessionModule } from "./lazy-modules.ts";
import { type Negotiated, negotiate } from "./initialize.ts";
import type { RequestSide } from "./lazy-host-calls.ts";
import type { Registry } from "./registry.ts";
import { type Outcome, Replies } from "./replies.ts";
import type { RequestTable } from "./request-table.ts";
import type { Scheduler } from "./scheduler.ts";
import { runInScope } from "./scope.ts";
import type { Endpoint } from "./serve.ts";
import { SHUTDOWN_HANDLER_MS, SHUTDOWN_HANDLER_SHARE_MS, SHUTDOWN_REPLY_MS, within } from "./shutdown-budget.ts";
import type { JsonObject } from "./types.ts";

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
  /**
   * The request side (request table, method layer, worker pool), loaded once the initialize reply is
   * out and stdio is sealed: requests are served from then on, so no handler or hook runs before.
   */
  engine: Promise<RequestSide>;
}

const JSONRPC = "2.0";
/**
 * Frames held while the request side loads, at most (characters or bytes). The load takes
 * milliseconds once the initialize reply is flushed; only a host that never reads that reply and
 * keeps writing reaches this, and its further requests are refused as a full queue.
 */
const HELD_FRAMES_MAX = 4 * 1024 * 1024;
/** How long the final flush may take before the process ends anyway (docs/protocol-0.2.md §8.8 step 6). */
const FINAL_FLUSH_MS = 2_000;

/**
 * One protocol session over stdin/stdout, as the router and state machine:
 * every decoded frame is routed (docs/protocol-0.2.md §8.3) — responses to the host session,
 * requests to the request table, `initialize`, `$/cancelRequest`, lifecycle
 * notifications and `shutdown` handled here — and the session drains on
 * shutdown or EOF (docs/protocol-0.2.md §1.7, §8.8). Routing is synchronous: the reader
 * never runs or waits for handler code.
 */
export class Connection implements Endpoint {
  private state: "uninitialized" | "ready" | "draining" | "stopped" = "uninitialized";
  /** The terms of a successful initialize. */
  private negotiated: Negotiated | undefined;
  /** Made from them on first use, after the initialize reply went out (see `host`). */
  private hostSession: HostSession | undefined;
  private readonly replies: Replies;
  /** The request side, once `options.engine` has loaded (the initialize reply needs none of it). */
  private engine: RequestSide | undefined;
  private scheduler: Scheduler | undefined;
  private requests: RequestTable | undefined;
  /** Why the request side could not be loaded; requests are then refused. */
  private engineError: string | undefined;
  /** Frames that arrived after a successful initialize and before the request side: served, in order, once it is there. */
  private waiting: LineEvent[] | undefined;
  private waitingSize = 0;
  private readonly engineLoaded: Promise<void>;
  private shutdownDone: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: ConnectionOptions) {
    this.replies = new Replies(options.writer, options.logger, options.maxMessageBytes);
    this.engineLoaded = options.engine.then(
      (engine) => this.startEngine(engine),
      (error: unknown) => this.engineFailed(error),
    );
  }

  /** The terms of a successful initialize (`undefined` before): what the state getters read, without the outbound engine. */
  get agreed(): Negotiated | undefined {
    return this.negotiated;
  }

  /** The outbound engine of the session; `undefined` until a successful initialize. */
  get host(): HostSession | undefined {
    if (this.hostSession === undefined && this.negotiated !== undefined) {
      const { writer, maxMessageBytes, logger, registry, supportedFeatures } = this.options;
      // Host calls work from the initialize reply on, also before the request side is loaded (no request is live then).
      const live = { get: (id: RequestId) => this.requests?.get(id) };
      this.hostSession = new (hostSessionModule().HostSession)(this.negotiated, { writer, logger, maxMessageBytes, registry, supportedFeatures, live });
    }
    return this.hostSession;
  }

  private startEngine(engine: RequestSide): void {
    const { maxPendingRequests, logger, cancelledReplyMs } = this.options;
    this.engine = engine;
    this.scheduler = new engine.scheduler.Scheduler(1, maxPendingRequests);
    this.requests = new engine.requestTable.RequestTable(this.scheduler, this.replies, logger, cancelledReplyMs);
    if (this.negotiated !== undefined) this.openRequests(this.negotiated);
    this.serveWaiting();
  }

  private engineFailed(error: unknown): void {
    this.engineError = errorText(error);
    this.options.logger.error("the request side of the runtime could not be loaded", { error: this.engineError });
    this.serveWaiting();
  }

  /** Hold a frame until the request side is there; past {@link HELD_FRAMES_MAX}, a request is refused as a full queue and anything else dropped. */
  private hold(event: LineEvent): void {
    const size = event.kind === "text" ? event.text.length : event.kind === "oversize" ? 0 : event.parts.reduce((sum, part) => sum + part.length, 0);
    if (this.waitingSize + size <= HELD_FRAMES_MAX) {
      this.waitingSize += size;
      this.waiting!.push(event);
      return;
    }
    const decoded = event.kind === "text" ? decodeText(event.text) : event.kind === "oversize" ? undefined : decodeLine(event.parts);
    const id = decoded?.ok === true && isObject(decoded.value) && "method" in decoded.value ? readId(decoded.value) : undefined;
    if (id?.kind === "valid") return this.refuse(id.id, ErrorCode.ServerError, WIRE_ERRORS.queueFull);
    this.options.logger.warning("dropped a frame: the host keeps writing while the initialize reply is not read");
  }

  private serveWaiting(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    this.waitingSize = 0;
    if (waiting) for (const event of waiting) this.receive(event);
  }

  /** Serve requests under the terms of a successful initialize. */
  private openRequests(negotiated: Negotiated): void {
    const { registry, logger } = this.options;
    this.requests!.open(() => {
      const host = this.host!;
      return { registry, negotiated, logger, catalog: host.catalog, host };
    });
    this.scheduler!.setConcurrency(negotiated.concurrency);
  }

  private get draining(): boolean {
    return this.state === "draining" || this.state === "stopped";
  }

  // ---- inbound -----------------------------------------------------------

  /** Handle one event from the line splitter: the usual one (a decoded line holding an object) here, any other out of line. */
  receive(event: LineEvent): void {
    if (this.waiting === undefined && event.kind === "text" && event.text.charCodeAt(0) === 123) {
      let value: unknown;
      try {
        value = parseJson(event.text);
      } catch {
        return this.receiveOther(event);
      }
      return this.route(value);
    }
    this.receiveOther(event);
  }

  /** {@link receive} for a line held while the request side loads, one of bytes, a blank one or one that is not JSON. */
  private receiveOther(event: LineEvent): void {
    if (this.waiting !== undefined) return this.hold(event);
    if (event.kind !== "text") return this.receiveBytes(event);
    const decoded = decodeText(event.text);
    if (decoded.ok === true) this.route(decoded.value);
    else if (decoded.ok === false) this.replies.reject(ErrorCode.ParseError, decoded.message);
  }

  /** A line the splitter could not decode as ASCII text, or an oversize one. */
  private receiveBytes(event: Exclude<LineEvent, { kind: "text" }>): void {
    if (event.kind === "oversize") return this.replies.reject(ErrorCode.ParseError, oversizeText(this.options.maxMessageBytes));
    const decoded = decodeLine(event.parts);
    if (decoded.ok === "blank") return;
    if (decoded.ok === false) return this.replies.reject(ErrorCode.ParseError, decoded.message);
    this.route(decoded.value);
  }

  /**
   * Route a request or notification with a string method and a valid or absent id; anything else
   * takes {@link routeOther} (out of line: this runs per frame, and the JIT compiles what it holds).
   */
  private route(value: unknown): void {
    // An array has no `method`: it takes routeOther with the other non-objects.
    if (typeof value !== "object" || value === null || (value as JsonObject).jsonrpc !== JSONRPC || !("method" in value)) return this.routeOther(value);
    const method = (value as JsonObject).method;
    const id = readId(value as JsonObject);
    if (typeof method !== "string" || method === "" || id.kind === "invalid") return this.routeOther(value);
    const params = (value as JsonObject).params === undefined ? {} : (value as JsonObject).params;
    if (id.kind === "absent") return this.routeNotification(method, params);
    // The common case first: a method served by the request side of a ready session.
    if (this.state === "ready" && this.requests !== undefined && method !== "initialize" && method !== "$/cancelRequest" && method !== "shutdown") {
      return this.requests.admit(id.id, method, params);
    }
    this.routeControl(id.id, method, params);
  }

  /** Every check of a frame in order (docs/protocol-0.2.md §8.3): responses, and what is answered as invalid. */
  private routeOther(value: unknown): void {
    if (!isObject(value)) return this.replies.reject(ErrorCode.InvalidRequest, WIRE_ERRORS.notObject);
    if (value.jsonrpc !== JSONRPC) return this.replies.reject(ErrorCode.InvalidRequest, WIRE_ERRORS.notJsonRpc2);
    const id = readId(value);
    if (!("method" in value)) {
      if (id.kind !== "absent" && ("result" in value || "error" in value)) return this.routeResponse(value, id);
      return this.replies.reject(ErrorCode.InvalidRequest, WIRE_ERRORS.notRequest, echoOf(id));
    }
    const method = value.method;
    if (typeof method !== "string" || method === "") return this.replies.reject(ErrorCode.InvalidRequest, WIRE_ERRORS.methodNotString, echoOf(id));
    const params = value.params === undefined ? {} : value.params;
    if (id.kind === "absent") return this.routeNotification(method, params);
    if (id.kind === "invalid") return this.replies.reject(ErrorCode.InvalidRequest, WIRE_ERRORS.badId, echoOf(id));
    this.routeControl(id.id, method, params);
  }

  private routeResponse(message: JsonObject, id: ReturnType<typeof readId>): void {
    if (id.kind !== "valid") return this.options.logger.warning("ignored response with invalid id");
    if (!this.hostSession?.outbound.settle(id.id, message)) {
      this.options.logger.warning("ignored late or unknown response", { response_id: id.id });
    }
  }

  private routeNotification(method: string, params: unknown): void {
    const logger = this.options.logger;
    if (method === "initialize") return logger.warning("ignored initialize notification");
    if (method === "shutdown") return logger.warning("ignored shutdown notification");
    if (method === "$/cancelRequest") return this.cancelFromHost(params);
    if (this.state === "uninitialized" || this.draining) return;
    if ((LIFECYCLE_METHODS as readonly string[]).includes(method)) return this.runLifecycle(method as LifecycleMethod, params);
    logger.warning("ignored unknown notification", { method });
  }

  /** Session control (`initialize`, `$/cancelRequest`, `shutdown`) and the refusals by session state. */
  private routeControl(id: RequestId, method: string, params: unknown): void {
    if (method === "initialize") return this.initialize(id, params);
    if (method === "$/cancelRequest") {
      this.cancelFromHost(params);
      return this.reply(id, { result: {} });
    }
    if (method === "shutdown") return this.beginShutdown(id, params);
    if (this.state === "uninitialized") return this.refuse(id, ErrorCode.InvalidRequest, WIRE_ERRORS.initializeFirst);
    if (this.draining) return this.refuse(id, ErrorCode.ServerError, WIRE_ERRORS.draining);
    if (this.requests === undefined) return this.refuse(id, ErrorCode.InternalError, `the request side of the runtime could not be loaded: ${this.engineError}`);
    this.requests.admit(id, method, params);
  }

  private reply(id: RequestId, outcome: Outcome): void {
    this.replies.write(id, outcome);
  }

  private refuse(id: RequestId, code: number, message: string): void {
    this.replies.write(id, { error: new RpcError(code, message) });
  }

  // ---- initialize ----------------------------------------------------------

  private initialize(id: RequestId, params: unknown): void {
    if (this.state !== "uninitialized") return this.refuse(id, ErrorCode.InvalidRequest, WIRE_ERRORS.initializeFirst);
    const { registry, logger, supportedFeatures } = this.options;
    let agreed: ReturnType<typeof negotiate>;
    try {
      agreed = negotiate(params, registry, {
        maxConcurrentRequests: this.options.maxConcurrentRequests,
        supportedFeatures,
        warn: (message, fields) => logger.warning(message, fields),
      });
    } catch (error) {
      return this.reply(id, { error: initializeFailureReply(error, logger) });
    }
    const { result, negotiated } = agreed;
    // The reply is queued before the state changes, so nothing can precede it; a reply that
    // cannot be encoded is answered -32603 and leaves the process uninitialised.
    if (!this.replies.write(id, { result })) return;
    this.adoptInitialized(negotiated);
  }

  /** Enter the ready state on `negotiated`, the initialize reply queued or already out (first-reply.ts wrote it before this connection existed). */
  adoptInitialized(negotiated: Negotiated): void {
    // The session is made when first used (a request runs after the seal, so after the reply is out).
    this.negotiated = negotiated;
    this.state = "ready";
    if (this.requests !== undefined) this.openRequests(negotiated);
    else if (this.engineError === undefined) this.waiting = [];
  }

  // ---- cancellation ----------------------------------------------------------

  private cancelFromHost(params: unknown): void {
    const logger = this.options.logger;
    if (!isObject(params) || !("id" in params)) return logger.warning("ignored malformed cancellation");
    const target = readId(params);
    if (target.kind !== "valid") return logger.warning("ignored cancellation with invalid id");
    const reason = params.reason === undefined || params.reason === null ? "cancelled" : String(params.reason);
    if (this.requests?.cancel(target.id, reason)) return;
    this.hostSession?.outbound.cancel(target.id, reason);
  }

  // ---- lifecycle notifications (API 0.2) ------------------------------------

  private runLifecycle(method: LifecycleMethod, params: unknown): void {
    const logger = this.options.logger;
    const negotiated = this.negotiated!;
    const handler = this.options.registry.lifecycle.get(method);
    if (!negotiated.features.has("lifecycle_events") || !handler || !negotiated.lifecycleEvents.includes(method)) {
      return logger.warning("ignored unnegotiated lifecycle event", { method });
    }
    const scheduler = this.scheduler;
    if (scheduler === undefined) return logger.warning("ignored lifecycle event: the request side of the runtime could not be loaded", { method });
    if (!scheduler.admit()) return logger.warning("dropped lifecycle event because request queue is full", { method });
    scheduler.run(async () => {
      try {
        await handler(isObject(params) ? params : {});
      } catch (error) {
        logger.error("lifecycle handler failed", { method, error: errorText(error) });
      } finally {
        scheduler.release();
      }
    });
  }

  // ---- shutdown and EOF ------------------------------------------------------

  private beginShutdown(id: RequestId, params: unknown): void {
    if (this.state === "uninitialized") return this.refuse(id, ErrorCode.InvalidRequest, WIRE_ERRORS.initializeFirst);
    if (this.draining) return this.refuse(id, ErrorCode.ServerError, WIRE_ERRORS.alreadyDraining);
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
    this.reply(id, outcome);
    await this.stop("extension stopped");
  }

  /** Run `onShutdown` for at most `boundMs`; one still running then is cancelled, logged and left behind. */
  private async runShutdownHandler(handler: NonNullable<Registry["shutdownHandler"]>, id: RequestId, params: JsonObject, boundMs: number): Promise<Outcome> {
    const host = this.host;
    if (this.engine === undefined || host === undefined) return { result: {} };
    const scope = { id, method: "shutdown", token: new CancellationToken() };
    const ctx = new this.engine.requestContext.RequestContext(scope, host);
    const run = async () => {
      await runInScope(scope, () => handler(params, ctx));
    };
    try {
      if ((await within(run(), boundMs)) === "timeout") {
        scope.token.cancel("shutdown");
        this.options.logger.warning("shutdown handler did not settle: acknowledged without it", { ms: Math.round(Math.max(0, boundMs)) });
      }
      return { result: {} };
    } catch (error) {
      return { error: shutdownFailureReply(error, this.options.logger) };
    }
  }

  /** stdin reached EOF: the transport is gone (docs/protocol-0.2.md §1.7). */
  async endOfInput(): Promise<void> {
    // What arrived before the request side is served first (the reader has already stopped), unless
    // the protocol stream is closed: then nothing can be answered, and a first reply that could not be
    // written sealed nothing, so the request side never loads (the process would never end).
    if (this.waiting !== undefined && !this.options.writer.closed) await this.engineLoaded;
    this.options.logger.info("extension stdin closed");
    const budget = this.options.shutdownTimeoutMs;
    if (this.shutdownDone) {
      // Let an admitted shutdown finish and acknowledge within a bounded budget: its own
      // drain, grace and force-settling fit; a stuck shutdown hook does not extend it.
      await Promise.race([this.shutdownDone, sleep(budget + 2 * this.options.cancellationGraceMs)]);
      this.requests?.settleAll("shutdown");
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
    const { scheduler, requests } = this;
    // Nothing was admitted before the request side was there.
    if (scheduler === undefined || requests === undefined) return;
    const grace = this.options.cancellationGraceMs;
    const left = () => Math.max(0, endBy - performance.now());
    if (await scheduler.whenIdle(Math.max(0, Math.min(budget, left() - grace)))) return;
    requests.cancelAll(reason);
    if (await scheduler.whenIdle(Math.min(grace, left()))) return;
    requests.settleAll(reason);
    // What still holds a slot is lifecycle callbacks: the stop goes on without them.
    if (scheduler.pending > 0) this.options.logger.warning("lifecycle handlers still running at the drain deadline: stopping without them", { count: scheduler.pending, reason });
  }

  private async stop(failOutstandingWith: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.state = "stopped";
    this.requests?.cancelAll("shutdown");
    this.hostSession?.outbound.failAll(failOutstandingWith);
    // A host that stopped reading cannot keep the process alive: flush for at most 2 s.
    await Promise.race([this.options.writer.drained(), sleep(FINAL_FLUSH_MS)]);
    this.options.onStop();
  }
}

/** The id an error reply to an unroutable message carries: its own when valid or echoable, else null. */
function echoOf(id: ReturnType<typeof readId>): unknown {
  return id.kind === "valid" ? wireId(id.id) : id.kind === "invalid" ? id.echo : null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
