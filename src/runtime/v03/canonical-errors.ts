import { RpcError } from "../../errors.ts";
import { ERRORS, type ErrorKind, errorKindOf } from "./canonical-protocol.ts";

/** An API 0.3 error object: always a pair of the error table, detail only in `data`. */
export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * A refusal on the API 0.3 wire. `detail` is for the log and the thrown
 * message; only `data` goes on the wire, next to the table's code and message.
 */
export class WireError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail: string,
    readonly data?: unknown,
  ) {
    super(`${ERRORS[kind].message}: ${detail}`);
    this.name = "WireError";
  }

  get code(): number {
    return ERRORS[this.kind].code;
  }

  /** The wire error object. */
  toObject(): ErrorObject {
    return errorObject(this.kind, this.data);
  }
}

/** The error object for `kind`, with `data` when given. */
export function errorObject(kind: ErrorKind, data?: unknown): ErrorObject {
  const { code, message } = ERRORS[kind];
  return data === undefined ? { code, message } : { code, message, data };
}

/**
 * What a handler's failure becomes on the wire: a {@link WireError} as is; an
 * `RpcError` with a table code keeps that code (and its `data`) under the
 * table's message; an `RpcError` with another code is `-32603` carrying the
 * author's `{code, message, data}` in `data`; anything else is `-32603
 * internal error` without data (its message goes to the log only, as octet's
 * reference does).
 */
export function failureObject(error: unknown): ErrorObject {
  if (error instanceof WireError) return error.toObject();
  if (error instanceof RpcError) {
    const kind = errorKindOf(error.code);
    if (kind !== undefined) return errorObject(kind, error.data);
    const data: Record<string, unknown> = { code: error.code, message: String(error.message) };
    if (error.data !== undefined) data.data = error.data;
    return errorObject("internal_error", data);
  }
  return errorObject("internal_error");
}
