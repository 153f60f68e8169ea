/** Errors the test host throws: an error reply to a host request, and a fatal rule break. */

/** The error reply of a host request, thrown by `TestHost.call`. */
export class ReplyError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "ReplyError";
  }
}

/** The extension did something the octet host treats as fatal; the process was killed. */
export class HostViolation extends Error {
  override name = "HostViolation";
}

/** The result of a reply frame, or its error thrown as {@link ReplyError}. */
export function replyResult(reply: Record<string, unknown>): unknown {
  if (!("error" in reply)) return reply.result;
  const error = reply.error as { code: number; message: string; data?: unknown };
  throw new ReplyError(error.code, error.message, error.data);
}
