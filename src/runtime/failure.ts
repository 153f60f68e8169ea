/**
 * How a failure becomes the reply, in one place (design.md "Error families"):
 * an `RpcError` is the error reply as it is; anything else is logged and
 * answered `-32603 internal error`, except inside a tool, where it becomes an
 * `is_error` result carrying only its message (octet's Python SDK does the
 * same). `initialize` and `onShutdown` have texts of their own.
 */
import { ErrorCode, RpcError, errorText } from "../errors.ts";
import type { Logger } from "../log.ts";
import { WIRE_ERRORS } from "../protocol.ts";
import type { JsonObject } from "./types.ts";

/** The error reply for `error`, logging `message` with `fields` when it is not an `RpcError`. */
export function failureReply(error: unknown, logger: Logger, message: string, fields: JsonObject): RpcError {
  if (error instanceof RpcError) return error;
  logger.error(message, { ...fields, error: errorText(error) });
  return new RpcError(ErrorCode.InternalError, WIRE_ERRORS.internal);
}

/**
 * A tool handler's failure: an `RpcError` is rethrown (an error reply); anything else is logged and
 * becomes an `is_error` result carrying only this text (the caller makes it with `toolErrorResult`).
 */
export function toolFailureText(error: unknown, logger: Logger, tool: string): string {
  if (error instanceof RpcError) throw error;
  const text = errorText(error);
  logger.error("tool handler failed", { tool, error: text });
  return text;
}

/** A failed `initialize`: its own text (an `RpcError`'s, else the thrown value's), logged. */
export function initializeFailureReply(error: unknown, logger: Logger): RpcError {
  const rpc = error instanceof RpcError ? error : new RpcError(ErrorCode.InternalError, errorText(error));
  logger.error("initialize failed", { code: rpc.code, error: rpc.message });
  return rpc;
}

/** A failed `onShutdown` handler, whatever it threw: `-32603 shutdown failed`, logged. */
export function shutdownFailureReply(error: unknown, logger: Logger): RpcError {
  logger.error("shutdown handler failed", { error: errorText(error) });
  return new RpcError(ErrorCode.InternalError, WIRE_ERRORS.shutdownFailed);
}
