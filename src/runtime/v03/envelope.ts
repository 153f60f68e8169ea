import { type ErrorObject, WireError } from "./canonical-errors.ts";
import { BOUNDS, ERRORS, errorKindOf, METHODS } from "./canonical-protocol.ts";
import { checkModel, isRpcId } from "./validate.ts";

/** A received API 0.3 frame, by the envelope it is. */
export type Envelope =
  | { kind: "request"; id: string | number; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "result"; id: string | number; result: unknown }
  | { kind: "error"; id: string | number; error: ErrorObject };

/** A frame whose envelope is invalid; `id` is set when it names a valid id to answer. */
export class EnvelopeError extends Error {
  constructor(
    readonly error: WireError,
    readonly id: string | number | undefined,
  ) {
    super(error.message);
  }
}

const MEMBERS = {
  request: ["id", "jsonrpc", "method", "params"],
  notification: ["jsonrpc", "method", "params"],
  result: ["id", "jsonrpc", "result"],
  error: ["error", "id", "jsonrpc"],
} as const;

/**
 * Classify a canonically decoded frame, holding it to the closed envelopes
 * (octet `parseJsonRpcEnvelope`): `jsonrpc` "2.0"; a request has `id`,
 * `method` and non-null `params`; a notification the same without `id`; a
 * response an id and exactly one of `result` (non-null) / `error` (a pair
 * of the error table); nothing else. A method the schema names as a
 * notification must come without an id, any other with one.
 */
export function parseEnvelope(value: unknown): Envelope {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid("the frame is not a JSON object", undefined);
  const frame = value as Record<string, unknown>;
  const hasId = Object.hasOwn(frame, "id");
  const id = hasId && isRpcId(frame.id) ? frame.id : undefined;
  if (frame.jsonrpc !== "2.0") throw invalid('jsonrpc must be "2.0"', id);
  if (hasId && id === undefined) throw invalid("id must be a non-empty string of at most 256 bytes or an integer from 0 to 2^53−1", undefined);
  const kind = Object.hasOwn(frame, "method") ? (hasId ? "request" : "notification") : Object.hasOwn(frame, "error") ? "error" : "result";
  const allowed: readonly string[] = MEMBERS[kind];
  const unknown = Object.keys(frame).filter((key) => !allowed.includes(key)).sort();
  if (unknown.length > 0) throw invalid(`unknown envelope member${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} for a ${kind === "error" || kind === "result" ? "response" : kind}`, id, { fields: unknown });
  if (kind === "request" || kind === "notification") {
    const method = frame.method;
    if (typeof method !== "string" || method === "" || !method.isWellFormed()) throw invalid("method must be a non-empty string", id);
    if (Buffer.byteLength(method) > BOUNDS.max_method_name_bytes) {
      throw new EnvelopeError(new WireError("resource_exhausted", `method name exceeds ${BOUNDS.max_method_name_bytes} bytes`), id);
    }
    if (!Object.hasOwn(frame, "params") || frame.params === null) throw invalid(`${method}: params are required and must not be null`, id);
    const spec = METHODS[method];
    if (spec && spec.notification && hasId) throw invalid(`${method} is a notification and must not carry an id`, id);
    if (spec && !spec.notification && !hasId) throw invalid(`${method} is a request and needs an id`, undefined);
    return kind === "request" ? { kind, id: id!, method, params: frame.params } : { kind, method, params: frame.params };
  }
  if (id === undefined) throw invalid("a response needs an id", undefined);
  if (kind === "result") {
    if (!Object.hasOwn(frame, "result") || frame.result === null) throw invalid("a response needs a non-null result or an error", id);
    return { kind, id, result: frame.result };
  }
  const error = frame.error;
  try {
    checkModel("ErrorObject", error, "error");
  } catch (problem) {
    throw invalid((problem as WireError).detail ?? String(problem), id);
  }
  const object = error as ErrorObject;
  const table = errorKindOf(object.code);
  if (table === undefined || ERRORS[table].message !== object.message) throw invalid(`error ${object.code} ${JSON.stringify(object.message)} is not a pair of the API 0.3 error table`, id);
  return { kind, id, error: object };
}

function invalid(detail: string, id: string | number | undefined, data?: unknown): EnvelopeError {
  return new EnvelopeError(new WireError("invalid_request", detail, data), id);
}
