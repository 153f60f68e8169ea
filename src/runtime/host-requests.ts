import { ErrorCode, RpcError, cancelledError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { MAX_CHILD_WORKER_REQUESTS, MAX_EXTENSION_REQUEST_IDS, MAX_OUTSTANDING_EXTENSION_REQUESTS, negotiatesFeatures, usesChildWorker } from "../protocol.ts";
import { type WireLine, encodeProgressFrame, encodeWireFrame } from "../wire/encode.ts";
import type { FrameWriter } from "../wire/frame-writer.ts";
import { type RequestId, showId, wireId } from "../wire/ids.ts";
import type { CancellationToken } from "./cancellation.ts";
import { SlotPool } from "./slot-pool.ts";
import type { ApiVersion, JsonObject } from "./types.ts";

interface Outstanding {
  id: RequestId;
  /** Holds one of the host's child-worker slots. */
  child: boolean;
  resolve(result: unknown): void;
  reject(error: RpcError): void;
}

/**
 * Extension→host requests (docs/protocol-0.2.md §1.4, §4): id allocation (API 0.1 bare
 * integers, API 0.2 `"ts:N"` strings that can never collide with host ids),
 * reply matching, the 128-outstanding bound and the 8 child-worker requests
 * at once (excess callers wait for a slot), and abandonment when the calling
 * handler is cancelled.
 */
export class HostRequests {
  private next = 1;
  private outstanding = new Map<RequestId, Outstanding>();
  private readonly slots = new SlotPool(MAX_OUTSTANDING_EXTENSION_REQUESTS);
  private readonly childSlots = new SlotPool(MAX_CHILD_WORKER_REQUESTS);
  private closedWith: RpcError | undefined;

  constructor(
    private readonly api: ApiVersion,
    private readonly writer: FrameWriter,
    private readonly logger: Logger,
    private readonly maxMessageBytes: number,
  ) {}

  /**
   * Send `method` and wait for the host's reply. When `token` (the calling
   * handler's) is cancelled first, the request is abandoned: on API 0.2 a
   * `$/cancelRequest` is sent for it, and the promise rejects with `-32800`
   * carrying the handler's reason.
   */
  async request(method: string, params: JsonObject, token?: CancellationToken): Promise<unknown> {
    token?.throwIfCancelled();
    if (this.closedWith) throw this.closedWith;
    const child = usesChildWorker(method);
    // Free slots are taken synchronously, so the frame is queued in the caller's tick
    // (before, say, the reply of a handler that did not await it).
    if (child && !this.childSlots.tryTake()) await this.waitForSlot(this.childSlots, token);
    if (!this.slots.tryTake()) {
      try {
        await this.waitForSlot(this.slots, token);
      } catch (error) {
        if (child) this.childSlots.give();
        throw error;
      }
    }
    let line: WireLine;
    let id: RequestId;
    try {
      token?.throwIfCancelled();
      if (this.closedWith) throw this.closedWith; // stopped while this caller waited
      if (this.next > MAX_EXTENSION_REQUEST_IDS) {
        throw new RpcError(ErrorCode.ServerError, `extension request id budget exhausted (${MAX_EXTENSION_REQUEST_IDS} per process)`);
      }
      id = this.api === "0.1" ? this.next : `ts:${this.next}`;
      line = this.encode({ jsonrpc: "2.0", id: wireId(id), method, params });
    } catch (error) {
      this.release(child);
      throw error;
    }
    this.next++;
    return new Promise<unknown>((resolve, reject) => {
      const onCancel = () => {
        if (!this.outstanding.has(id)) return;
        this.forget(id);
        const reason = token?.reason ?? "parent_cancelled";
        if (negotiatesFeatures(this.api)) this.notify("$/cancelRequest", { id: wireId(id), reason });
        reject(cancelledError(reason));
      };
      const cleanup = () => token?.signal.removeEventListener("abort", onCancel);
      this.outstanding.set(id, {
        id,
        child,
        resolve: (value) => {
          cleanup();
          resolve(value);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      token?.signal.addEventListener("abort", onCancel, { once: true });
      this.writer.write(line).catch((error: Error) => {
        if (this.forget(id)) reject(new RpcError(ErrorCode.ServerError, error.message));
      });
    });
  }

  /** Queue for a slot; throws `-32000` once closed, `-32800` when the caller is cancelled while waiting. */
  private async waitForSlot(pool: SlotPool, token: CancellationToken | undefined): Promise<void> {
    const outcome = await pool.take(token?.signal);
    if (outcome === "closed") throw this.closedWith!;
    if (outcome === "aborted") throw cancelledError(token?.reason ?? "cancelled");
  }

  /** Send a notification frame (validated by the caller). */
  notify(method: string, params: JsonObject): Promise<void> {
    const line = this.encode({ jsonrpc: "2.0", method, params });
    return this.writer.write(line);
  }

  /**
   * Send one `$/progress` frame of the general path (an event object, an explicit request id, a
   * unit, …): encoded in place. A plain status line from the running handler, the hottest outbound
   * frame, is written by `HostSession.statusProgress` instead (docs/performance.md).
   */
  sendProgress(requestId: number | bigint, sequence: number, event: object | string): Promise<void> {
    let line: WireLine;
    try {
      line = encodeProgressFrame(requestId, sequence, event, this.maxMessageBytes);
    } catch (error) {
      throw encodeFailure(error);
    }
    return this.writer.write(line);
  }

  /** Route a host response; false when no request is waiting for it. */
  settle(id: RequestId, message: JsonObject): boolean {
    const entry = this.outstanding.get(id);
    if (!entry) return false;
    this.forget(id);
    if ("error" in message) {
      const error = message.error as JsonObject | null;
      const code = typeof error?.code === "number" && Number.isInteger(error.code) ? error.code : ErrorCode.InternalError;
      const text = typeof error?.message === "string" ? error.message : "host returned an error";
      entry.reject(new RpcError(code, text, error?.data));
    } else {
      entry.resolve(message.result);
    }
    return true;
  }

  /** The host cancelled one of our requests (`$/cancelRequest` naming its id). */
  cancel(id: RequestId, reason: string): boolean {
    const entry = this.outstanding.get(id);
    if (!entry) return false;
    this.forget(id);
    entry.reject(cancelledError(reason));
    this.logger.debug("host cancelled extension request", { id: showId(id), reason });
    return true;
  }

  /** Fail every outstanding request and refuse new ones with `-32000 message`. */
  failAll(message: string): void {
    const error = new RpcError(ErrorCode.ServerError, message);
    this.closedWith ??= error;
    // Close the pools first: a slot freed below must not pass to a waiter, which would then write after the stop.
    this.slots.close();
    this.childSlots.close();
    for (const [key, entry] of [...this.outstanding]) {
      this.forget(key);
      entry.reject(error);
    }
  }

  private encode(frame: JsonObject): WireLine {
    try {
      return encodeWireFrame(frame, this.maxMessageBytes);
    } catch (error) {
      throw encodeFailure(error);
    }
  }

  get size(): number {
    return this.outstanding.size;
  }

  private forget(key: RequestId): boolean {
    const entry = this.outstanding.get(key);
    if (!entry) return false;
    this.outstanding.delete(key);
    // A new map once empty, like the request table's (docs/performance-log.md, "The request table's map").
    if (this.outstanding.size === 0) this.outstanding = new Map();
    this.release(entry.child);
    return true;
  }

  private release(child: boolean): void {
    this.slots.give();
    if (child) this.childSlots.give();
  }
}

/** A frame too large or unserializable to encode is a `-32603` (docs/protocol-0.2.md §5, §8.6), nothing written. */
function encodeFailure(error: unknown): RpcError {
  return new RpcError(ErrorCode.InternalError, (error as Error).message);
}
