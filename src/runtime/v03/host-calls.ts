import { RpcError } from "../../errors.ts";
import type { ErrorObject } from "./canonical-errors.ts";
import { WireError } from "./canonical-errors.ts";
import { METHOD_MODELS } from "./models.ts";
import { METHODS } from "./canonical-protocol.ts";
import { checkModel } from "./validate.ts";

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * Extension→host traffic on API 0.3: requests of selected methods (integer
 * ids from 1, unique per process), their replies checked against the
 * method's result model, and notifications. A call the contract does not
 * allow, or params that break their model, is refused locally (nothing is
 * written) with the error table's code.
 */
export class HostCalls {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedWith: string | undefined;

  constructor(
    private readonly methods: ReadonlySet<string>,
    /** Encode and queue a frame; throws a `WireError` when it cannot be written. */
    private readonly write: (frame: Record<string, unknown>) => void,
  ) {}

  request(method: string, params: unknown): Promise<unknown> {
    try {
      this.allowed(method, false, params);
      const id = this.nextId++;
      return new Promise((resolve, reject) => {
        this.pending.set(id, { method, resolve, reject });
        try {
          this.write({ id, jsonrpc: "2.0", method, params });
        } catch (error) {
          this.pending.delete(id);
          reject(error);
        }
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  notify(method: string, params: unknown): void {
    this.allowed(method, true, params);
    this.write({ jsonrpc: "2.0", method, params });
  }

  /** A host reply; false when no request of ours awaits `id`. */
  settle(id: string | number, outcome: { result: unknown } | { error: ErrorObject }): boolean {
    const request = typeof id === "number" ? this.pending.get(id) : undefined;
    if (!request) return false;
    this.pending.delete(id as number);
    if ("error" in outcome) {
      request.reject(new RpcError(outcome.error.code, outcome.error.message, outcome.error.data));
      return true;
    }
    const model = METHOD_MODELS[request.method]?.result;
    try {
      if (model) checkModel(model, outcome.result, `${request.method} result`);
      request.resolve(outcome.result);
    } catch (error) {
      request.reject(new WireError("internal_error", `the host's ${request.method} reply is malformed: ${(error as WireError).detail ?? error}`));
    }
    return true;
  }

  /** Fail every request still waiting (the stream is ending); later calls are refused. */
  failAll(reason: string): void {
    this.closedWith = reason;
    for (const request of this.pending.values()) request.reject(new WireError("request_cancelled", `${request.method}: ${reason}`, { reason }));
    this.pending.clear();
  }

  private allowed(method: string, notification: boolean, params: unknown): void {
    if (this.closedWith !== undefined) throw new WireError("request_cancelled", `${method}: ${this.closedWith}`, { reason: this.closedWith });
    const spec = METHODS[method];
    if (!spec || spec.direction === "host_to_extension" || spec.notification !== notification || !this.methods.has(method)) {
      throw new WireError("unknown_method", `${method} is not a selected extension→host ${notification ? "notification" : "request"} of this contract`, { method });
    }
    const model = METHOD_MODELS[method]?.params;
    if (model) checkModel(model, params, `${method} params`);
  }
}
