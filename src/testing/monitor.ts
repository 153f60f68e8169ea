/** The stateful rules octet applies to what the extension sends (docs/protocol-0.2.md §1.9, §4, §7); records `violations`. */

import type { JsonRecord } from "../check.ts";
import { ErrorCode } from "../errors.ts";
import { readId, wireId, type RequestId } from "../wire/ids.ts";
import { readUnsigned64 } from "../wire/json.ts";
import { MAX_CHILD_WORKER_REQUESTS, MAX_EXTENSION_REQUEST_IDS, MAX_OUTSTANDING_EXTENSION_REQUESTS, negotiatesFeatures } from "../protocol.ts";
import type { ActiveRequest } from "./host-connection.ts";
import { checkNotification, checkRequest, FATAL_CHILD_OVERFLOW, holdsChildWorker } from "./host-rules.ts";
import { checkProgressParams, checkServiceRequest, OPERATION_SCOPED } from "./host-services.ts";
import type { HostManifest } from "./manifest.ts";
import { snapshotViolation } from "./snapshot-rules.ts";

/** What the monitor reads of the host. */
export interface MonitoredHost {
  /** Features agreed in initialize. */
  features(): ReadonlySet<string>;
  /** The host request with this id, while it awaits its reply. */
  active(id: number): ActiveRequest | undefined;
  readonly resourceOwner: unknown;
}

/** What the host does with an extension request. */
export type RequestVerdict =
  | { kind: "fatal"; violation: string }
  /** octet answers it itself with this error. */
  | { kind: "refuse"; id: RequestId; error: { code: number; message: string; data?: unknown } }
  /** Handed to a responder. */
  | { kind: "serve"; id: RequestId };

/** Tracks the extension's requests and judges each frame it sends; fatal breaks end in `violations`. */
export class HostMonitor {
  /** Fatal rule breaks (and, when strict, unstructured stderr lines). */
  readonly violations: string[] = [];
  /** Non-fatal host diagnostics. */
  readonly diagnostics: string[] = [];
  /** Set by the first fatal violation: like octet, the host stops reading the extension's stdout. */
  closed = false;
  /** Set by a successful initialize reply: before it, any extension request or notification is fatal. */
  initialized = false;
  private readonly extensionIds = new Set<RequestId>();
  /** Extension→host requests not yet answered, with their methods. */
  private readonly outstanding = new Map<RequestId, string>();

  constructor(
    private readonly manifest: HostManifest,
    private readonly host: MonitoredHost,
  ) {}

  /** Record a fatal violation and stop reading. */
  fatal(violation: string): void {
    this.violations.push(violation);
    this.closed = true;
  }

  /** Check an extension request and note it as outstanding. */
  request(frame: JsonRecord): RequestVerdict {
    const fatal = (violation: string): RequestVerdict => ({ kind: "fatal", violation });
    const id = readId(frame);
    const method = String(frame.method);
    if (id.kind !== "valid") return fatal(`${method} request with an invalid id`);
    const requestId = id.id;
    if (typeof requestId === "string" ? Buffer.byteLength(requestId) > 256 : readUnsigned64(frame, "id") === undefined) {
      return fatal(`${method} request id must be a u64 or a string of at most 256 bytes`);
    }
    if (this.extensionIds.has(requestId)) return fatal(`extension request id ${String(frame.id)} reused`);
    this.extensionIds.add(requestId);
    if (this.extensionIds.size > MAX_EXTENSION_REQUEST_IDS) return fatal("more than 65,536 extension request ids in one generation");
    this.outstanding.set(requestId, method);
    if (this.outstanding.size > MAX_OUTSTANDING_EXTENSION_REQUESTS) return fatal("more than 128 outstanding extension requests");
    if (holdsChildWorker(method) && this.childWorkersBusy() > MAX_CHILD_WORKER_REQUESTS) {
      const limit = `extension child worker limit ${MAX_CHILD_WORKER_REQUESTS} exceeded`;
      // octet drops the connection for these three; secret and agent requests get an error reply.
      if (FATAL_CHILD_OVERFLOW.has(method)) return fatal(limit);
      return { kind: "refuse", id: requestId, error: { code: ErrorCode.ServerError, message: limit } };
    }
    const features = this.host.features();
    const violation = checkRequest(method, frame.params, this.manifest, features) ?? checkServiceRequest(method, frame.params, features);
    if (violation) return fatal(violation);
    const params = (frame.params ?? {}) as JsonRecord;
    if (method === "session/compact") {
      // The reverse of the other services: octet refuses it while its parent is live.
      const parentId = readUnsigned64(params, "parent_request_id");
      if (parentId === undefined) return fatal("session/compact requires parent_request_id");
      if (this.host.active(Number(parentId))) {
        const message = "invalid_request: session/compact requires a settled parent; enqueue only after its successful reply, never await it inside a hook or command";
        return { kind: "refuse", id: requestId, error: { code: ErrorCode.InvalidParams, message } };
      }
    }
    if (negotiatesFeatures(this.manifest.api_version) && OPERATION_SCOPED.has(method)) {
      const parentId = readUnsigned64(params, "parent_request_id");
      if (parentId === undefined) return fatal(`${method} requires parent_request_id`);
      const parent = this.host.active(Number(parentId));
      if (!parent) {
        // Resources and bulk objects need a live tool call; octet words their refusal in its own codes.
        const code = method.startsWith("resource/") ? "resource_unavailable" : method.startsWith("bulk/") ? "blob_unavailable" : undefined;
        if (code) return { kind: "refuse", id: requestId, error: { code: ErrorCode.ServerError, message: code, data: { code } } };
        const error = { code: ErrorCode.RequestCancelled, message: "parent request is no longer active", data: { parent_request_id: wireId(parentId) } };
        return { kind: "refuse", id: requestId, error };
      }
      parent.children.add(requestId);
      if (method.startsWith("resource/") && parent.method !== "tool/call") {
        return { kind: "refuse", id: requestId, error: { code: ErrorCode.ServerError, message: "resource_unavailable", data: { code: "resource_unavailable" } } };
      }
      if (method.startsWith("bulk/") && parent.method !== "tool/call") {
        return { kind: "refuse", id: requestId, error: { code: ErrorCode.ServerError, message: "blob_unavailable", data: { code: "blob_unavailable" } } };
      }
      const ownerBound = method === "artifact/publish" || method === "secret/get" || method.startsWith("agent/");
      if (ownerBound && parent.method !== "tool/call" && parent.method !== "command/execute") {
        return { kind: "refuse", id: requestId, error: { code: ErrorCode.ServiceUnavailable, message: `${method} requires a host-owned session context` } };
      }
    }
    return { kind: "serve", id: requestId };
  }

  /** Check an extension notification; returns the fatal violation (non-fatal findings go to `diagnostics`). */
  notification(frame: JsonRecord): string | undefined {
    const method = String(frame.method);
    const verdict = checkNotification(method, frame.params, this.manifest, this.host.features());
    if (verdict === "ignored") return void this.diagnostics.push(`unknown notification ${method} ignored`);
    if (verdict) return verdict;
    const params = frame.params as JsonRecord;
    if (method === "$/cancelRequest") {
      const target = readId(params);
      if (target.kind === "valid") this.outstanding.delete(target.id);
    } else if (method === "$/progress") {
      const bad = checkProgressParams(params, this.host.features(), this.manifest.api_version);
      if (bad) return bad;
      const request = this.host.active(Number(readUnsigned64(params, "request_id")));
      if (request && (params.event as JsonRecord).type === "partial_result" && request.method !== "tool/call") return "$/progress partial_result outside a tool call";
      const sequence = Number(readUnsigned64(params, "sequence"));
      if (!request) return void this.diagnostics.push(`progress for inactive request ${String(params.request_id)} ignored`);
      if (sequence <= request.progressSequence) return void this.diagnostics.push(`progress sequence ${sequence} not increasing for ${String(params.request_id)} ignored`);
      request.progressSequence = sequence;
    } else if (method === "presentation/update") {
      return this.checkPresentation(params);
    }
    return undefined;
  }

  /** The host answers (or cancels) an extension request: false when it is no longer outstanding. */
  settle(id: RequestId): boolean {
    if (!this.outstanding.has(id)) return false;
    this.outstanding.delete(id);
    return true;
  }

  private checkPresentation(params: JsonRecord): string | undefined {
    if (typeof params !== "object" || params === null) return "presentation/update params must be an object";
    const extra = Object.keys(params).filter((k) => !["parent_request_id", "resource_owner", "snapshot"].includes(k));
    if (extra.length) return `presentation/update has unknown keys ${extra.join(", ")}`;
    if ("parent_request_id" in params && "resource_owner" in params) return "presentation/update with both parent_request_id and resource_owner";
    const snapshot = snapshotViolation(params.snapshot, this.manifest.contributes.commands);
    if (snapshot) return `invalid presentation snapshot: ${snapshot}`;
    if ("parent_request_id" in params) {
      const parent = readUnsigned64(params, "parent_request_id");
      if (parent === undefined || !this.host.active(Number(parent))) return `presentation/update for an unknown or settled parent ${String(params.parent_request_id)}`;
    }
    if ("resource_owner" in params && JSON.stringify(params.resource_owner) !== JSON.stringify(this.host.resourceOwner)) {
      return "presentation/update with a stale or foreign resource_owner";
    }
    return undefined;
  }

  /** Unanswered requests that hold one of octet's child workers. */
  private childWorkersBusy(): number {
    let busy = 0;
    for (const method of this.outstanding.values()) if (holdsChildWorker(method)) busy++;
    return busy;
  }
}
