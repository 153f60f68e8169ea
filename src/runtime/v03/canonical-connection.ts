import { isObject } from "../../check.ts";
import { errorText } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { CanonicalFrameError, decodeCanonicalFrame } from "../../wire/canonical-decode.ts";
import { CanonicalBoundError, CanonicalValueError, encodeCanonicalFrame, MAX_CANONICAL_FRAME_BYTES } from "../../wire/canonical-frame.ts";
import { CanonicalFramer } from "../../wire/canonical-framer.ts";
import type { FrameWriter } from "../../wire/frame-writer.ts";
import { lineBytes } from "../../wire/line-bytes.ts";
import type { SplitEvent } from "../../wire/line-splitter.ts";
import { invalidArgumentsText } from "../arguments.ts";
import { CancellationToken } from "../cancellation.ts";
import { runInScope } from "../scope.ts";
import type { Endpoint } from "../serve.ts";
import { SHUTDOWN_HANDLER_MS, within } from "../shutdown-budget.ts";
import type { ExecutionContext } from "../types.ts";
import { EnvelopeError, type Envelope, parseEnvelope } from "./envelope.ts";
import { type ErrorObject, errorObject, failureObject, WireError } from "./canonical-errors.ts";
import { CanonicalHandlerContext } from "./handler-context.ts";
import { HostCalls } from "./host-calls.ts";
import { METHOD_MODELS } from "./models.ts";
import { type Negotiated, negotiate03, type ServiceSelection } from "./negotiation.ts";
import { METHODS } from "./canonical-protocol.ts";
import type { CanonicalRegistry, CanonicalService, HostLink, ToolEntry03 } from "./canonical-registry.ts";
import { sessionHookService } from "./canonical-session-hooks.ts";
import { toolResult03 } from "./tool-result.ts";
import { checkModel } from "./validate.ts";

type Id = string | number;
type Outcome = { result: unknown } | { error: ErrorObject };

/** An admitted host request until its one reply. */
interface Call {
  id: Id;
  method: string;
  token: CancellationToken;
  settled: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

export interface CanonicalConnectionOptions {
  registry: CanonicalRegistry;
  logger: Logger;
  writer: FrameWriter;
  /** No author code runs before this resolves (stdio is sealed once the first frame is out). */
  handlersReady: Promise<void> | undefined;
  /** Limits the author set explicitly; the selection never exceeds the offer. */
  maxConcurrentRequests?: number;
  maxFrameBytes?: number;
  /** After a host cancel, answer `-32800` this long after if the handler has not stopped. */
  cancelledReplyMs: number;
  /** How long EOF waits for cancelled handlers before answering them itself. */
  cancellationGraceMs: number;
  onStop(): void;
}

/** A host that does not read stdout cannot keep the process: the final flush waits at most this long. */
const FINAL_FLUSH_MS = 2_000;

/**
 * The API 0.3 endpoint `serve` drives (docs/api-0.3.md): canonical frames in
 * and out, `initialize` → contract, admission up to the selected
 * `max_concurrent_requests`, exactly one reply per admitted request,
 * `$/cancelRequest` → `-32800 request cancelled` with `data.reason`,
 * `shutdown` → `{"terminal":"shutdown"}`, EOF → cancel and exit. A frame
 * that is not canonical or over the bound ends the stream before dispatch.
 */
export class CanonicalConnection implements Endpoint {
  readonly framer = new CanonicalFramer(MAX_CANONICAL_FRAME_BYTES);
  private state: "new" | "ready" | "stopping" | "ended" = "new";
  private session: Negotiated | undefined;
  /** The bound frames written are held to: 1 MiB, the offer's for the initialize reply, then the selection's. */
  private bound = MAX_CANONICAL_FRAME_BYTES;
  private active = new Map<Id, Call>();
  private hostCalls: HostCalls | undefined;
  private readonly services: CanonicalService[];
  private readonly serviceOf = new Map<string, CanonicalService>();
  private shutdownDone: Promise<void> | undefined;
  private stopped = false;
  private gate: Promise<void> | undefined;

  constructor(private readonly options: CanonicalConnectionOptions) {
    this.services = [sessionHookService(options.registry.sessionHooks), ...options.registry.services];
    this.gate = options.handlersReady?.then(() => {
      this.gate = undefined;
    });
  }

  /** The negotiated session, after a successful initialize. */
  get negotiated(): Negotiated | undefined {
    return this.session;
  }

  receive(event: SplitEvent): void {
    if (this.state === "ended") return;
    if (event.kind === "oversize") return this.end(`a frame exceeds max_frame_bytes ${this.framer.bound} (the LF excluded)`);
    if (event.kind === "unterminated") return this.end("input ended inside a frame (no LF)");
    let envelope: Envelope;
    try {
      envelope = parseEnvelope(decodeCanonicalFrame(lineBytes(event.parts)));
    } catch (error) {
      if (error instanceof CanonicalFrameError) return this.end(error.message);
      if (!(error instanceof EnvelopeError)) throw error;
      this.options.logger.warning("invalid JSON-RPC envelope", { code: error.error.code, detail: error.error.detail });
      if (error.id !== undefined) this.reply(error.id, { error: error.error.toObject() });
      if (this.state === "new") this.end("an invalid envelope before initialize");
      return;
    }
    if (envelope.kind === "request") return this.request(envelope.id, envelope.method, envelope.params);
    if (envelope.kind === "notification") return this.notification(envelope.method, envelope.params);
    if (this.state === "new") return this.end("a response before initialize");
    const outcome = envelope.kind === "result" ? { result: envelope.result } : { error: envelope.error };
    if (!this.hostCalls?.settle(envelope.id, outcome)) this.options.logger.warning("reply for an unknown or settled request ignored", { id: envelope.id });
  }

  async endOfInput(): Promise<void> {
    if (this.state === "ended") return;
    if (this.shutdownDone) return this.shutdownDone;
    for (const call of this.active.values()) call.token.cancel("transport_lost");
    const deadline = performance.now() + this.options.cancellationGraceMs;
    while (this.active.size > 0 && performance.now() < deadline) await Bun.sleep(5);
    for (const call of [...this.active.values()]) this.settle(call, { error: errorObject("request_cancelled", { reason: "transport_lost" }) });
    await this.stop("transport_lost");
  }

  // ---- host → extension -----------------------------------------------------------

  private request(id: Id, method: string, params: unknown): void {
    if (this.state === "new") {
      if (method === "initialize") return this.initialize(id, params);
      this.reply(id, { error: errorObject("unknown_method", { method }) });
      return this.end(`${method} before initialize`);
    }
    const refuse = (error: WireError) => {
      this.options.logger.warning("request refused", { method, code: error.code, detail: error.detail });
      this.reply(id, { error: error.toObject() });
    };
    if (method === "initialize") return refuse(new WireError("invalid_request", "initialize was already answered"));
    if (this.state !== "ready") return refuse(new WireError("invalid_request", "the extension is shutting down"));
    const spec = METHODS[method];
    if (!spec || spec.direction === "extension_to_host" || !this.session!.methods.has(method)) return refuse(new WireError("unknown_method", `${method} is not a selected host→extension method`, { method }));
    const model = METHOD_MODELS[method]?.params;
    try {
      if (model) checkModel(model, params, method);
    } catch (error) {
      return refuse(error as WireError);
    }
    if (method === "shutdown") return this.shutdown(id);
    let run: (ctx: CanonicalHandlerContext) => unknown;
    if (method === "tool/call") {
      const call = params as { name: string; arguments: unknown };
      const tool = this.options.registry.tools.get(call.name);
      if (!tool) return refuse(new WireError("unknown_method", `unknown tool ${call.name}`, { name: call.name }));
      run = (ctx) => this.callTool(tool, call.arguments, ctx);
    } else {
      const service = this.serviceOf.get(method);
      if (!service?.request) return refuse(new WireError("unknown_method", `${method} has no handler`, { method }));
      run = (ctx) => service.request!(method, params, ctx);
    }
    if (this.active.has(id)) return refuse(new WireError("invalid_request", `id ${JSON.stringify(id)} belongs to an unsettled request`));
    const limit = this.session!.limits.max_concurrent_requests;
    if (this.active.size >= limit) return refuse(new WireError("resource_exhausted", `max_concurrent_requests ${limit} reached`, { max_concurrent_requests: limit }));
    this.execute(id, method, params, run);
  }

  private notification(method: string, params: unknown): void {
    if (this.state === "new") return this.end(`notification ${method} before initialize`);
    if (this.state === "ended") return;
    if (method === "$/cancelRequest") {
      try {
        checkModel("CancelRequestParams", params, method);
      } catch (error) {
        this.options.logger.warning("invalid $/cancelRequest ignored", { detail: (error as WireError).detail });
        return;
      }
      const { id, reason } = params as { id: Id; reason?: string };
      const call = this.active.get(id);
      if (call) this.cancel(call, reason || "request cancelled");
      return;
    }
    const service = this.serviceOf.get(method);
    if (!service?.notification || !this.session!.methods.has(method)) {
      this.options.logger.debug("notification ignored", { method });
      return;
    }
    try {
      const model = METHOD_MODELS[method]?.params;
      if (model) checkModel(model, params, method);
      service.notification(method, params);
    } catch (error) {
      this.options.logger.warning("notification refused", { method, error: errorText(error) });
    }
  }

  private initialize(id: Id, params: unknown): void {
    const { registry } = this.options;
    const groups: [CanonicalService, ServiceSelection][] = [];
    let negotiated: Negotiated;
    try {
      negotiated = negotiate03(params, {
        tools: new Map([...registry.tools].map(([name, entry]) => [name, entry.definition])),
        services: (contributes) => {
          groups.length = 0;
          for (const service of this.services) {
            const selection = service.selection(contributes);
            if (selection) groups.push([service, selection]);
          }
          return groups.map(([, selection]) => selection);
        },
        maxConcurrentRequests: this.options.maxConcurrentRequests,
        maxFrameBytes: this.options.maxFrameBytes,
      });
    } catch (error) {
      const wire = error instanceof WireError ? error : new WireError("internal_error", errorText(error));
      this.options.logger.error("initialize failed", { code: wire.code, detail: wire.detail });
      this.reply(id, { error: wire.toObject() });
      return this.end("initialize failed");
    }
    this.bound = negotiated.params.contract.limits.max_frame_bytes;
    if (!this.reply(id, { result: negotiated.result }, "initialize")) return this.end("the initialize reply could not be written");
    // The selected bound replaces the offered one now that the reply is queued, for both directions.
    this.session = negotiated;
    this.state = "ready";
    this.bound = this.framer.bound = negotiated.limits.max_frame_bytes;
    this.hostCalls = new HostCalls(negotiated.methods, (frame) => this.writeFrame(frame));
    const link: HostLink = {
      capabilities: negotiated.capabilities,
      methods: negotiated.methods,
      request: (method, params) => this.hostCalls!.request(method, params),
      notify: (method, params) => this.hostCalls!.notify(method, params),
    };
    for (const [service, selection] of groups) {
      if (!selection.methods.every((m) => negotiated.methods.has(m))) continue;
      for (const method of selection.methods) this.serviceOf.set(method, service);
      if (service.ready) void Promise.resolve(this.gate).then(() => service.ready!(link));
    }
  }

  private shutdown(id: Id): void {
    this.state = "stopping";
    this.shutdownDone = (async () => {
      for (const call of [...this.active.values()]) {
        call.token.cancel("shutdown");
        this.settle(call, { error: errorObject("request_cancelled", { reason: "shutdown" }) });
      }
      this.stopServices("shutdown");
      const handler = this.options.registry.shutdownHandler;
      if (handler) {
        const token = new CancellationToken();
        const ctx = new CanonicalHandlerContext({}, id, "shutdown", token, this.session?.params.workspace);
        try {
          const run = Promise.resolve(this.gate).then(() => runInScope({ id, method: "shutdown", token }, () => handler({}, ctx)));
          if ((await within(run, SHUTDOWN_HANDLER_MS)) === "timeout") {
            token.cancel("shutdown");
            this.options.logger.warning("shutdown handler did not settle: acknowledged without it", { ms: SHUTDOWN_HANDLER_MS });
          }
        } catch (error) {
          this.options.logger.error("shutdown handler failed", { error: errorText(error) });
        }
      }
      this.reply(id, { result: { terminal: "shutdown" } });
      await this.stop("shutdown");
    })();
  }

  // ---- running and settling ----------------------------------------------------------

  private execute(id: Id, method: string, params: unknown, run: (ctx: CanonicalHandlerContext) => unknown): void {
    const call: Call = { id, method, token: new CancellationToken(), settled: false };
    this.active.set(id, call);
    const context = (params as { context?: unknown }).context;
    const ctx = new CanonicalHandlerContext(isObject(context) ? (context as ExecutionContext) : {}, id, method, call.token, this.session?.params.workspace);
    const start = () => {
      if (call.settled || call.token.cancelled) return undefined;
      return runInScope({ id, method, token: call.token, params }, run, ctx);
    };
    let started: unknown;
    try {
      started = this.gate ? this.gate.then(start) : start();
    } catch (error) {
      return this.conclude(call, error, true);
    }
    Promise.resolve(started).then(
      (value) => this.conclude(call, value, false),
      (error) => this.conclude(call, error, true),
    );
  }

  private async callTool(tool: ToolEntry03, args: unknown, ctx: CanonicalHandlerContext): Promise<unknown> {
    const issues = tool.validate?.(args);
    if (issues && issues.length > 0) return { content: [{ type: "text", text: invalidArgumentsText(tool.definition.name, issues) }], is_error: true, metadata: null };
    return toolResult03(await tool.handler(args, ctx));
  }

  /** The handler is done: its outcome, unless a cancel came first (then `-32800` with the reason). */
  private conclude(call: Call, value: unknown, failed: boolean): void {
    if (call.settled) {
      if (call.token.cancelled) this.options.logger.info("cancelled handler finished after its reply", { method: call.method });
      return;
    }
    if (call.token.cancelled) return this.settle(call, { error: errorObject("request_cancelled", { reason: call.token.reason }) });
    if (!failed) return this.settle(call, { result: value });
    const error = failureObject(value);
    this.options.logger.error("request failed", { method: call.method, code: error.code, error: errorText(value) });
    this.settle(call, { error });
  }

  private cancel(call: Call, reason: string): void {
    if (call.settled || !call.token.cancel(reason)) return;
    call.timer = setTimeout(() => this.settle(call, { error: errorObject("request_cancelled", { reason }) }), this.options.cancelledReplyMs);
  }

  /** The one reply of an admitted request; later outcomes are dropped. */
  private settle(call: Call, outcome: Outcome): void {
    if (call.settled) return;
    call.settled = true;
    this.active.delete(call.id);
    // A new map once empty, like the request table's (docs/performance-log.md, "The request table's map").
    if (this.active.size === 0) this.active = new Map();
    clearTimeout(call.timer);
    this.reply(call.id, outcome, call.method);
  }

  /**
   * Write a reply: a result is checked against its method's model; one that
   * cannot be encoded is `-32603`, one over the bound `-32012`. False when
   * nothing could be written.
   */
  private reply(id: Id, outcome: Outcome, method?: string): boolean {
    if (this.state === "ended") return false;
    let frame: Record<string, unknown> = "result" in outcome ? { id, jsonrpc: "2.0", result: outcome.result } : { error: outcome.error, id, jsonrpc: "2.0" };
    const model = method ? METHOD_MODELS[method]?.result : undefined;
    try {
      if (model && "result" in outcome) checkModel(model, outcome.result, `${method} result`);
      this.writer.send(encodeCanonicalFrame(frame, this.bound));
      return true;
    } catch (error) {
      let fallback: ErrorObject;
      if (error instanceof CanonicalBoundError) {
        this.options.logger.warning("reply exceeds max_frame_bytes: answered -32012", { method, bytes: error.bytes, max_frame_bytes: error.bound });
        fallback = errorObject("resource_exhausted", { max_frame_bytes: error.bound });
      } else if (error instanceof CanonicalValueError || error instanceof WireError) {
        this.options.logger.error("reply refused", { method, error: error.message });
        fallback = error instanceof WireError ? error.toObject() : errorObject("internal_error");
      } else throw error;
      frame = { error: fallback, id, jsonrpc: "2.0" };
      try {
        this.writer.send(encodeCanonicalFrame(frame, this.bound));
        return "error" in outcome;
      } catch {
        return false;
      }
    }
  }

  /** Encode and queue an extension→host frame; throws a `WireError` when it cannot be. */
  private writeFrame(frame: Record<string, unknown>): void {
    if (this.state === "ended") throw new WireError("request_cancelled", "the protocol stream has ended", { reason: "transport_lost" });
    try {
      this.writer.send(encodeCanonicalFrame(frame, this.bound));
    } catch (error) {
      if (error instanceof CanonicalBoundError) throw new WireError("resource_exhausted", error.message, { max_frame_bytes: error.bound });
      if (error instanceof CanonicalValueError) throw new WireError("invalid_params", error.message);
      throw error;
    }
  }

  private get writer(): FrameWriter {
    return this.options.writer;
  }

  // ---- ending ----------------------------------------------------------------------

  /** A frame or an initialize that ends the stream: log why, then stop (what is queued is still flushed). */
  private end(reason: string): void {
    if (this.state === "ended") return;
    this.options.logger.warning("protocol stream ended", { reason });
    void this.stop("transport_lost");
  }

  private servicesStopped = false;

  private stopServices(reason: string): void {
    if (this.servicesStopped) return;
    this.servicesStopped = true;
    this.hostCalls?.failAll(reason);
    for (const service of this.services) {
      try {
        service.stop?.(reason);
      } catch (error) {
        this.options.logger.error("service stop failed", { error: errorText(error) });
      }
    }
  }

  private async stop(reason: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.state = "ended";
    this.framer.close();
    for (const call of this.active.values()) {
      call.token.cancel(reason);
      clearTimeout(call.timer);
    }
    this.stopServices(reason);
    await Promise.race([this.writer.drained(), Bun.sleep(FINAL_FLUSH_MS)]);
    this.options.onStop();
  }
}
