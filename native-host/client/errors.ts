/**
 * Errors of the native-host client (docs/native-host-protocol.md §9.5). Every error the
 * client raises is a {@link NativeHostError}; `instanceof` tells them apart.
 */

export class NativeHostError extends Error {
  override name = "NativeHostError";
}

/** `message`, followed by the host's stderr tail when there is one. */
function withTail(message: string, stderrTail: string): string {
  return stderrTail ? `${message}\nhost stderr (tail):\n${stderrTail}` : message;
}

/** The host could not be started (missing binary, not executable, or it exited before answering hello). */
export class HostSpawnError extends NativeHostError {
  override name = "HostSpawnError";
  constructor(
    message: string,
    readonly exitCode: number | null = null,
    readonly stderrTail = "",
  ) {
    super(withTail(message, stderrTail));
  }
}

/** The hello reply was valid protocol but describes a host this client cannot drive. */
export class HandshakeError extends NativeHostError {
  override name = "HandshakeError";
}

/**
 * The host broke protocol 1 (bad frame, seq gap, unknown request id, id
 * mismatch, event after terminal, …). The host is killed; the instance is
 * unusable afterwards.
 */
export class ProtocolViolation extends NativeHostError {
  override name = "ProtocolViolation";
  constructor(
    message: string,
    readonly stderrTail = "",
  ) {
    super(withTail(message, stderrTail));
  }
}

/** The host answered the request with a `protocol_error` event (the host stays usable). */
export class RequestRejected extends NativeHostError {
  override name = "RequestRejected";
  constructor(
    readonly error: string,
    readonly data: Record<string, unknown>,
    readonly requestId: string,
  ) {
    super(`host rejected request ${requestId}: ${error}`);
  }
}

/** `protocol_error` "unsupported protocol version": the host speaks other versions. */
export class UnsupportedProtocolVersion extends RequestRejected {
  override name = "UnsupportedProtocolVersion";
  get supported(): unknown {
    return this.data.supported;
  }
}

/** The host process ended (or closed stdout) while a request was pending. */
export class HostExited extends NativeHostError {
  override name = "HostExited";
  constructor(
    readonly exitCode: number | null,
    readonly signal: string | null,
    readonly stderrTail: string,
    detail = "",
  ) {
    const how = signal ? `killed by ${signal}` : `exited with status ${exitCode}`;
    super(withTail(`octet-host ${how}${detail ? ` (${detail})` : ""}`, stderrTail));
  }
}

/** The caller cancelled the request; the host's process group was terminated. */
export class Cancelled extends NativeHostError {
  override name = "Cancelled";
}

/** A client-side deadline passed; the host's process group was terminated. */
export class Timeout extends NativeHostError {
  override name = "Timeout";
  constructor(
    readonly operation: string,
    readonly ms: number,
  ) {
    super(`${operation} timed out after ${ms} ms; the host was terminated`);
  }
}

/** A request the client refuses to send (bad id, over a bound, unknown field, feature not offered). Nothing was written. */
export class InvalidRequest extends NativeHostError {
  override name = "InvalidRequest";
}

/** The instance can no longer be used (it was shut down, cancelled, or failed). */
export class HostUnavailable extends NativeHostError {
  override name = "HostUnavailable";
}
