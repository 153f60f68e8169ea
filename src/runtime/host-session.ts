import { ErrorCode, RpcError, cancelledError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { type Feature, HOST_REQUEST_FEATURES, type HostMethod, U64_MAX, WIRE_ERRORS } from "../protocol.ts";
import { progressLine } from "../wire/encode.ts";
import { jsonString } from "../wire/json-text.ts";
import type { FrameWriter } from "../wire/frame-writer.ts";
import type { RequestId } from "../wire/ids.ts";
import { ToolCatalog } from "./catalog.ts";
import { HostRequests } from "./host-requests.ts";
import type { Negotiated } from "./initialize.ts";
import { offPathModules } from "./lazy-host-calls.ts";
import type { ProgressEvent } from "./progress.ts";
import { apiRefusal, featureRefusal, progressCall } from "./refusals.ts";
import type { Registry } from "./registry.ts";
import { ActiveRequest } from "./active-request.ts";
import type { LiveRequests } from "./request-table.ts";
import type { ProgressOptions } from "./host-handle.ts";
import type { RequestScope } from "./scope.ts";
import type { ApiVersion, JsonObject } from "./types.ts";

/** `statusProgress` without options (called in loops: one shared object). */
const NO_STATUS_OPTIONS: ProgressOptions = Object.freeze({});

/** The host request a call is made from (its handler's), if any: parent, cancellation and progress come from it. */
export type Caller = RequestScope | undefined;

/** How `request` places `parent_request_id`: after the params (the usual), before them, or not at all. */
export type ParentPlacement = "last" | "first" | "none";

export interface HostSessionOptions {
  writer: FrameWriter;
  logger: Logger;
  maxMessageBytes: number;
  registry: Registry;
  /** For refusal texts: the features `new Extension({ supportedFeatures })` accepts. */
  supportedFeatures: ReadonlySet<Feature>;
  /** The connection's unanswered host requests (progress, the parent rule). */
  live: LiveRequests;
}

/**
 * The single outbound engine of one session, created by a successful
 * initialize: the negotiated terms, the extension→host requests
 * (`HostRequests`), the tool catalog, the feature gate of every typed host
 * request (`HOST_REQUEST_FEATURES`, applied in `request`), the parent rule,
 * cancellation through the caller's token and `$/progress`. Services reach it through a {@link HostAccess}.
 */
export class HostSession {
  readonly outbound: HostRequests;
  readonly catalog: ToolCatalog;
  readonly registry: Registry;
  private readonly supported: ReadonlySet<Feature>;
  private readonly live: LiveRequests;
  private readonly writer: FrameWriter;
  private readonly maxMessageBytes: number;
  /** `request_progress` was negotiated (never on API 0.1). */
  readonly progressOn: boolean;
  /** `contributes.notifications` was declared. */
  private readonly notificationsOn: boolean;

  constructor(
    readonly negotiated: Negotiated,
    options: HostSessionOptions,
  ) {
    this.outbound = new HostRequests(negotiated.api, options.writer, options.logger, options.maxMessageBytes);
    this.catalog = new ToolCatalog(options.registry.tools, negotiated.features.has("dynamic_tools"));
    this.registry = options.registry;
    this.supported = options.supportedFeatures;
    this.live = options.live;
    this.writer = options.writer;
    this.maxMessageBytes = options.maxMessageBytes;
    this.progressOn = negotiated.features.has("request_progress");
    this.notificationsOn = negotiated.contributes.notifications === true;
  }

  get api(): ApiVersion {
    return this.negotiated.api;
  }

  has(feature: Feature): boolean {
    return this.negotiated.features.has(feature);
  }

  /** `-32601` unless `feature` was negotiated, naming `call` and saying why not and how to get it (`refusals.ts`). */
  requireFeature(feature: Feature, call: string): void {
    if (this.api !== "0.1" && this.negotiated.features.has(feature)) return;
    throw featureRefusal(call, feature, this.negotiated, this.supported);
  }

  /** The parent of an operation-scoped request (docs/protocol-0.2.md §8.11): `explicit`, else the caller's id, else `-32602`. */
  parent(caller: Caller, explicit?: RequestId): number | bigint {
    if (explicit !== undefined) {
      if (!isU64(explicit)) throw new RpcError(ErrorCode.InvalidParams, WIRE_ERRORS.parentNotU64);
      return explicit;
    }
    const ambient = caller?.id;
    if (ambient === undefined) throw new RpcError(ErrorCode.InvalidParams, WIRE_ERRORS.parentMissing);
    if (!isU64(ambient)) throw new RpcError(ErrorCode.InvalidParams, WIRE_ERRORS.parentNotU64);
    return ambient;
  }

  /**
   * Send a typed host request: the features `HOST_REQUEST_FEATURES` lists for
   * `method` (refusals name `call`), then the parent (placed per `parent`),
   * then the frame, abandoned when the caller's token is cancelled unless
   * `detached`. Local refusals are thrown before anything is written.
   */
  request(
    method: HostMethod,
    params: JsonObject,
    call: string,
    caller: Caller,
    options: { parentRequestId?: RequestId; parent?: ParentPlacement; detached?: boolean } = {},
  ): Promise<unknown> {
    const needs = (HOST_REQUEST_FEATURES as Readonly<Record<string, readonly Feature[] | undefined>>)[method];
    if (needs) for (const feature of needs) this.requireFeature(feature, call);
    const placement = options.parent ?? "last";
    let sent = params;
    if (placement === "last") sent = { ...params, parent_request_id: this.parent(caller, options.parentRequestId) };
    else if (placement === "first") sent = { parent_request_id: this.parent(caller, options.parentRequestId), ...params };
    return this.outbound.request(method, sent, options.detached ? undefined : caller?.token);
  }

  /** Python's raw `request`: no feature gate; the caller's token abandons it. */
  raw(method: string, params: JsonObject, caller: Caller): Promise<unknown> {
    return this.outbound.request(method, params, caller?.token);
  }

  /** Send a notification (its params checked by the caller). */
  notify(method: string, params: JsonObject): Promise<void> {
    return this.outbound.notify(method, params);
  }

  /**
   * `$/progress` for the caller's request or the one named `explicit`
   * (docs/protocol-0.2.md §4.6, §8.11): feature, then parent, then shape, then state.
   */
  progress(input: string | ProgressEvent, status: { current?: number | null; total?: number | null; unit?: string | null }, caller: Caller, explicit: RequestId | undefined): Promise<void> {
    if (!this.has("request_progress")) throw featureRefusal(progressCall(input), "request_progress", this.negotiated, this.supported);
    let request: ActiveRequest | undefined;
    if (explicit !== undefined) {
      request = this.live.get(explicit);
      if (!request) throw new RpcError(ErrorCode.InvalidParams, "unknown progress request_id");
    } else if (caller instanceof ActiveRequest) {
      request = caller;
    } else {
      throw new RpcError(ErrorCode.InvalidParams, "progress requires an active parent request");
    }
    if (typeof request.id === "string") throw new RpcError(ErrorCode.InvalidParams, "progress requires a numeric parent request id");
    // A status message is written straight to JSON text; an event object is checked and encoded.
    const events = offPathModules().progressEvents;
    const event = typeof input === "string" ? events.statusEventJson(input, status) : events.checkProgressEvent(input);
    if (typeof event !== "string" && event.type === "decoration" && !this.has("progress_decoration")) {
      throw featureRefusal("ext.progressDecoration()", "progress_decoration", this.negotiated, this.supported);
    }
    let sent: string | ProgressEvent = event;
    if (typeof event !== "string" && event.type === "partial_result") {
      // octet 0.8.x takes a result snapshot only under a tool call; octet 0.8.0's 0.2 has no such event, so only 0.4 sends it.
      if (this.api !== "0.4") throw apiRefusal('ext.progress({ type: "partial_result" })', "0.4", this.api);
      if (request.method !== "tool/call") throw new RpcError(ErrorCode.InvalidParams, "partial_result progress belongs to a tool call");
      sent = { type: "partial_result", result: offPathModules().results.toolResult02(event.result, { api: this.api, outputSchema: undefined, artifacts: this.has("artifacts"), bulk: this.has("bulk_objects_v1") }) };
    }
    if (request.cancelled) throw cancelledError(request.reason!);
    if (request.settled) throw new RpcError(ErrorCode.ServerError, "request has already settled");
    request.progressSequence++;
    return this.outbound.sendProgress(request.id as number | bigint, request.progressSequence, sent);
  }

  /**
   * The common case of {@link HostSession.progress} in one function: a status message (whole
   * `current`/`total` below 2^32, no `unit`) for `request`, a live request with a numeric id whose
   * handler is calling (`request.progressSession` is this session). `undefined` when anything else
   * applies: the caller then takes `progress`, which checks and refuses in its documented order.
   * The event is spliced from constant pieces around one `JSON.stringify` of the message, in the
   * general encoder's envelope (`progressLine`): the same bytes as stringifying the frame at ~40%
   * less cost before the JIT has compiled the loop (`ext.progress` in a loop is the hottest outbound
   * path). `statusEventJson` would write the same event, but its checks cost ~10% of the rate here
   * (docs/performance.md).
   */
  statusProgress(request: ActiveRequest, message: string, status: ProgressOptions = NO_STATUS_OPTIONS): Promise<void> | undefined {
    const current = status.current;
    const total = status.total;
    if (request.ended || status.unit !== undefined || status.requestId !== undefined) return undefined;
    if ((current !== undefined && (current as number) >>> 0 !== current) || (total !== undefined && (total as number) >>> 0 !== total)) return undefined;
    const id = request.id;
    if (typeof id !== "number") return undefined;
    const range = current === undefined ? (total === undefined ? "" : `,"total":${total}`) : total === undefined ? `,"current":${current}` : `,"current":${current},"total":${total}`;
    const line = progressLine(id, request.progressSequence + 1, `{"type":"status","message":${jsonString(message)}${range}}`);
    if (line.length * 3 > this.maxMessageBytes) return undefined;
    request.progressSequence++;
    return this.writer.write(line);
  }

  /**
   * The common case of `ext.user.notify(message, { level })` in one function: a plain string and a
   * known level, with `notifications` declared, spliced like {@link HostSession.statusProgress}.
   * `undefined` otherwise (the caller then checks and refuses in full, `contributions.ts`).
   */
  notification(message: string, level: string): Promise<void> | undefined {
    if (!this.notificationsOn || (level !== "info" && level !== "success" && level !== "warning" && level !== "error")) return undefined;
    const line = `{"jsonrpc":"2.0","method":"notification","params":{"level":"${level}","message":${jsonString(message)}}}\n`;
    if (line.length * 3 > this.maxMessageBytes) return undefined;
    return this.writer.write(line);
  }

  /** The caller's id when it is a host request that is still unanswered (a valid parent). */
  activeParent(caller: Caller): RequestId | undefined {
    if (!(caller instanceof ActiveRequest)) return undefined;
    return this.live.get(caller.id) === caller && !caller.settled ? caller.id : undefined;
  }
}

/**
 * How a service reaches the host: the API version chosen before `run()`, the
 * registrations, the {@link HostSession} once initialize succeeded, and the
 * request the call is made from (the ambient one for `ext.*`, the handler's
 * own for `ctx.host`).
 */
export interface HostAccess {
  readonly api: ApiVersion;
  readonly registry: Registry;
  /** The session; `-32600` before initialize. */
  session(): HostSession;
  /** The session, or `undefined` before initialize. */
  current(): HostSession | undefined;
  caller(): Caller;
}

/** The access of a handler's own `ctx.host`: `session`, called from `caller`. */
export function boundAccess(session: HostSession, caller: Caller): HostAccess {
  return { api: session.api, registry: session.registry, session: () => session, current: () => session, caller: () => caller };
}

function isU64(id: unknown): id is number | bigint {
  if (typeof id === "number") return Number.isSafeInteger(id) && id >= 0;
  if (typeof id === "bigint") return id >= 0n && id <= U64_MAX;
  return false;
}
