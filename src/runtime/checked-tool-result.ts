import { isObject } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import { DIAGNOSTICS_KEY, type Diagnostic, diagnosticSummary, diagnosticsProblem } from "./diagnostics.ts";
import { pyStr, type ToolResultOptions } from "./results.ts";
import { checkResultBounds } from "./structured/result-bounds.ts";
import { validateStructured } from "./structured/validate-structured.ts";
import type { ApiVersion, JsonObject } from "./types.ts";

/**
 * The general walk of an API 0.2/0.4 tool result (docs/protocol-0.2.md §3.2, §8.6): every shape
 * `toolResult02` does not take on its short path (`TextResult`). Loaded with the host calls after
 * initialize (`lazy-host-calls.ts`), so the start-up does not load it; results are made only by
 * handlers, which run after that.
 */

function internal(message: string): RpcError {
  return new RpcError(ErrorCode.InternalError, message);
}

const RESULT_KEYS = new Set(["content", "is_error", "metadata", "structured_content", "diagnostics"]);

/** Result fields written by habit (MCP, camelCase) and the field each means. */
const MEANT: Record<string, string> = {
  isError: "is_error",
  error: "is_error",
  text: "content",
  message: "content",
  output: "content",
  result: "content",
  type: "content",
  structuredContent: "structured_content",
  structured: "structured_content",
  meta: "metadata",
  _meta: "metadata",
};

/** `-32603` for result fields the API does not define: each one, the field meant where known, and the negotiated API version. */
function unknownResultFields(api: ApiVersion, value: JsonObject): RpcError {
  const unknown = Object.keys(value).filter((k) => !RESULT_KEYS.has(k)).sort();
  const hints = unknown.filter((k) => Object.hasOwn(MEANT, k)).map((k) => `"${MEANT[k]}" for "${k}"`);
  const use = hints.length > 0 ? `; use ${hints.join(", ")}` : "";
  return internal(`unknown API ${api} tool result fields: ${JSON.stringify(unknown)}${use} (a tool result takes ${[...RESULT_KEYS].join(", ")})`);
}
const PART_KEYS: Record<string, Set<string>> = {
  text: new Set(["type", "text"]),
  image: new Set(["type", "artifact_id", "mime_type", "alt"]),
  audio: new Set(["type", "artifact_id", "mime_type", "transcript"]),
};

/** The general walk of `toolResult02`. */
export function checkedToolResult(value: unknown, opts: ToolResultOptions): JsonObject {
  let result: JsonObject;
  if (!isObject(value)) {
    const text = value === null || value === undefined ? undefined : pyStr(value);
    result = { content: text === undefined ? [] : [{ type: "text", text }] };
  } else {
    // Loops rather than `filter`/`some` on the request path: Array methods are JS builtins that JSC compiles on first use.
    for (const key of Object.keys(value)) {
      if (!RESULT_KEYS.has(key)) throw unknownResultFields(opts.api, value);
    }
    result = { ...value };
    if (typeof result.content === "string") result.content = [{ type: "text", text: result.content }];
    else if (result.content === undefined) result.content = [];
  }
  const content = result.content;
  if (!Array.isArray(content)) throw internal("tool result content must be an array");
  if (content.length === 0) throw internal("tool result content must not be empty");
  if (content.length > 256) throw internal("tool result content exceeds 256 parts");
  let hasText = false;
  for (const part of content) {
    if (!isObject(part)) throw internal("tool result content part must be an object");
    const type = part.type;
    const allowed = typeof type === "string" ? PART_KEYS[type] : undefined;
    if (!allowed) throw internal(typeof type === "string" ? `unknown tool result content type: ${type}` : `tool result content part needs a type (${Object.keys(PART_KEYS).join(", ")})`);
    for (const key of Object.keys(part)) if (!allowed.has(key)) throw internal(`unknown ${type} content fields`);
    if (type === "text") {
      if (typeof part.text !== "string") throw internal("text content requires a string text");
      hasText = true;
    } else {
      if (typeof part.artifact_id !== "string" || part.artifact_id === "") throw internal(`${type} content requires an artifact_id`);
      if (typeof part.mime_type !== "string" || !part.mime_type.includes("/")) throw internal(`${type} content requires a MIME type`);
      const extra = type === "image" ? "alt" : "transcript";
      if (extra in part && typeof part[extra] !== "string") throw internal(`${type} content ${extra} must be a string`);
      if (!opts.artifacts) throw internal(`${type} content requires artifacts negotiation`);
    }
  }
  if (!hasText) throw internal("tool result requires an explicit text part");
  const isError = result.is_error === undefined ? false : result.is_error;
  if (typeof isError !== "boolean") throw internal("tool result is_error must be a boolean");
  let parts = content;
  // A `{}` made here for an absent metadata is within every bound (see checkResultBounds below).
  let defaulted = result.metadata === undefined;
  let metadata = defaulted ? {} : result.metadata;
  if (metadata !== null && !isObject(metadata)) throw internal("tool result metadata must be an object or null");
  if (isObject(metadata) && DIAGNOSTICS_KEY in metadata) {
    const problem = diagnosticsProblem(metadata[DIAGNOSTICS_KEY], { blobs: opts.bulk === true });
    if (problem) throw internal(`invalid ${DIAGNOSTICS_KEY} metadata: ${problem}`);
  }
  if (result.diagnostics !== undefined) {
    const diagnostics = result.diagnostics;
    const problem = diagnosticsProblem(diagnostics, { blobs: opts.bulk === true });
    if (problem) throw internal(`invalid diagnostics: ${problem}`);
    if (isObject(metadata) && DIAGNOSTICS_KEY in metadata) throw internal(`reserved diagnostic metadata already supplied (return diagnostics or metadata.${DIAGNOSTICS_KEY}, not both)`);
    if ((diagnostics as Diagnostic[]).length > 0) {
      metadata = { ...(metadata ?? {}), [DIAGNOSTICS_KEY]: diagnostics };
      defaulted = false;
      const summary = diagnosticSummary(diagnostics as Diagnostic[]);
      if (summary !== "") parts = [...content, { type: "text", text: summary }];
      if (parts.length > 256) throw internal("tool result content exceeds 256 parts");
    }
  }
  const out: JsonObject = { content: parts, is_error: isError, metadata };
  if ("structured_content" in result) {
    if (!opts.outputSchema) throw internal("structured_content requires a declared output_schema");
    const mismatch = validateStructured(result.structured_content, opts.outputSchema);
    if (mismatch) throw internal(`structured_content does not match output_schema: ${mismatch}`);
    out.structured_content = result.structured_content;
  } else if (opts.outputSchema && !isError) {
    throw internal("tool result omitted structured_content required by output_schema");
  }
  // Only what the author returned (or the diagnostics merged into it) is walked and measured.
  const bound = checkResultBounds({ structured_content: out.structured_content, metadata: defaulted ? undefined : metadata });
  if (bound) throw internal(bound);
  return out;
}
