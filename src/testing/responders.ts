/** Answers to the extension's requests: the `Responder` type, its reply markers, and choosing and running one. */

import type { JsonRecord } from "../check.ts";
import { ErrorCode } from "../errors.ts";
import { wireId, type RequestId } from "../wire/ids.ts";

/** Scripted answer to an extension→host request: a result, or `TestHost.errorReply(...)`, or `TestHost.noReply`. */
export type Responder = (params: JsonRecord, frame: JsonRecord) => unknown;

const ERROR_REPLY = Symbol("errorReply");

/** A responder's value that leaves the request unanswered. */
export const NO_REPLY: unknown = Symbol("noReply");

/** A responder's value that makes the host answer with this error. */
export function errorReply(code: number, message: string, data?: unknown): unknown {
  return { [ERROR_REPLY]: true, code, message, data };
}

/** The reply frame for a responder's value: an error for {@link errorReply}, else the value as the result. */
export function replyFrame(id: RequestId, value: unknown): JsonRecord {
  const frame: JsonRecord = { jsonrpc: "2.0", id: wireId(id) };
  if (typeof value === "object" && value !== null && ERROR_REPLY in value) {
    const e = value as unknown as { code: number; message: string; data?: unknown };
    frame.error = e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data };
  } else {
    frame.result = value;
  }
  return frame;
}

/** The responder for each method: one a test scripted, else `fallback`'s. */
export class Responders {
  private readonly scripted = new Map<string, Responder>();

  constructor(private readonly fallback: (method: string) => Responder) {}

  set(method: string, responder: Responder): void {
    this.scripted.set(method, responder);
  }

  /** Run the responder for `frame` after the current task; `reply` gets its value, or an `InternalError` reply if it throws. */
  serve(frame: JsonRecord, reply: (value: unknown) => void): void {
    const method = String(frame.method);
    const responder = this.scripted.get(method) ?? this.fallback(method);
    void Promise.resolve()
      .then(() => responder((frame.params ?? {}) as JsonRecord, frame))
      .then(
        (value) => reply(value),
        (error: Error) => reply(errorReply(ErrorCode.InternalError, error.message)),
      );
  }
}
