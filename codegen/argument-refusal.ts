/**
 * A `tool/call` reply that refused the arguments before any handler ran, as
 * it looks on the wire (all `conformance` sees of an extension in any
 * language): octet-extension's validator answers an `is_error` result whose
 * text begins "invalid arguments for tool `NAME`" (src/runtime/arguments.ts);
 * an SDK that checks params answers JSON-RPC `-32602`.
 */
import type { JsonRecord } from "octet-extension/validation";

const VALIDATOR_TEXT = /^invalid arguments for tool `/;

/** The refusal's text when `reply` is one, else undefined. */
export function argumentRefusal(reply: JsonRecord | undefined): string | undefined {
  if (!reply) return undefined;
  const error = reply.error as JsonRecord | undefined;
  if (error && error.code === -32602) return `-32602 ${String(error.message)}`;
  const result = reply.result as JsonRecord | undefined;
  if (!result || result.is_error !== true) return undefined;
  const content = result.content;
  // API 0.1 answers a string; 0.2 and 0.4 a list of parts.
  const text = typeof content === "string" ? content : Array.isArray(content) ? (content as JsonRecord[]).map((part) => (typeof part?.text === "string" ? part.text : "")).join("") : "";
  return VALIDATOR_TEXT.test(text) ? text : undefined;
}
