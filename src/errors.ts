/** JSON-RPC error codes used by the octet legacy wire (docs/protocol-0.2.md §5). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  RequestCancelled: -32800,
  ServerError: -32000,
  ServiceUnavailable: -32002,
  SecretUnavailable: -32004,
} as const;

/**
 * A JSON-RPC error. Thrown from a handler it becomes the error reply as is;
 * thrown by an SDK helper it signals a wire-level refusal.
 *
 * @example
 * throw new RpcError(-32010, "quota exhausted", { retryAfterMs: 500 });
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }

  /**
   * The wire error object: `data` is omitted when there is none. A code that is
   * not a safe integer becomes -32603 and the message is always a string, since
   * the host treats a malformed error object as fatal (docs/protocol-0.2.md §1.9).
   */
  toJSON(): { code: number; message: string; data?: unknown } {
    const code = Number.isSafeInteger(this.code) ? this.code : ErrorCode.InternalError;
    const message = String(this.message);
    return this.data === undefined ? { code, message } : { code, message, data: this.data };
  }
}

/** The `-32800` error carrying the cancellation reason. */
export function cancelledError(reason: string): RpcError {
  return new RpcError(ErrorCode.RequestCancelled, "request cancelled", { reason });
}

/** Text of a thrown value as Python's `str(exc)` would give it: the message only. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
