import { ErrorCode, RpcError, cancelledError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { type WireLine, encodeWireFrame } from "../wire/encode.ts";
import type { FrameWriter } from "../wire/frame-writer.ts";
import { type RequestId, showId, wireId } from "../wire/ids.ts";
import { MAX_EXTENSION_REQUEST_IDS, MAX_OUTSTANDING_EXTENSION_REQUESTS } from "../wire/limits.ts";
import type { CancellationToken } from "./cancellation.ts";
import type { ApiVersion, JsonObject } from "./types.ts";

interface Outstanding {
  id: RequestId;
  resolve(result: unknown): void;
  reject(error: RpcError): void;
}

/**
 * Extension→host requests (spec §1.4, §4): id allocation (API 0.1 bare
 * integers, API 0.2 `"ts:N"` strings that can never collide with host ids),
 * reply matching, the 128-outstanding bound (excess callers wait for a slot),
 * and abandonment when the calling handler is cancelled.
 */
export class HostRequests {
  private next = 1;
  private outstanding = new Map<RequestId, Outstanding>();
  private slotWaiters: (() => void)[] = [];
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
    while (this.outstanding.size >= MAX_OUTSTANDING_EXTENSION_REQUESTS && !this.closedWith) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
    if (this.closedWith) throw this.closedWith;
    token?.throwIfCancelled();
    if (this.next > MAX_EXTENSION_REQUEST_IDS) {
      throw new RpcError(ErrorCode.ServerError, `extension request id budget exhausted (${MAX_EXTENSION_REQUEST_IDS} per process)`);
    }
    const id: RequestId = this.api === "0.1" ? this.next : `ts:${this.next}`;
    const line = this.encode({ jsonrpc: "2.0", id: wireId(id), method, params });
    this.next++;
    return new Promise<unknown>((resolve, reject) => {
      const onCancel = () => {
        if (!this.outstanding.has(id)) return;
        this.forget(id);
        const reason = token?.reason ?? "parent_cancelled";
        if (this.api === "0.2") this.notify("$/cancelRequest", { id: wireId(id), reason });
        reject(cancelledError(reason));
      };
      const cleanup = () => token?.signal.removeEventListener("abort", onCancel);
      this.outstanding.set(id, {
        id,
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

  /** Send a notification frame (validated by the caller). */
  notify(method: string, params: JsonObject): Promise<void> {
    const line = this.encode({ jsonrpc: "2.0", method, params });
    return this.writer.write(line);
  }

  /** Send an already encoded frame (for the hot `$/progress` path). */
  sendEncoded(encode: () => WireLine): Promise<void> {
    return this.writer.write(encoded(encode));
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
    for (const [key, entry] of [...this.outstanding]) {
      this.forget(key);
      entry.reject(error);
    }
    for (const resolve of this.slotWaiters.splice(0)) resolve();
  }

  private encode(frame: JsonObject): WireLine {
    return encoded(() => encodeWireFrame(frame, this.maxMessageBytes));
  }

  get size(): number {
    return this.outstanding.size;
  }

  private forget(key: RequestId): boolean {
    const existed = this.outstanding.delete(key);
    if (existed) this.slotWaiters.shift()?.();
    return existed;
  }
}

/** Run an encoder; too large or unserializable is a `-32603` (spec §5, §8.6), nothing written. */
function encoded(encode: () => WireLine): WireLine {
  try {
    return encode();
  } catch (error) {
    throw new RpcError(ErrorCode.InternalError, (error as Error).message);
  }
}
