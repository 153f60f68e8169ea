import { WireError } from "./canonical-errors.ts";
import { BOUNDS } from "./canonical-protocol.ts";

/** An API 0.3 tool result as written: content parts, `is_error`, `metadata` (required, nullable), optional `structured_content`. */
export interface ToolCallResult03 {
  content: { type: "text"; text: string }[];
  is_error: boolean;
  metadata: unknown;
  structured_content?: unknown;
}

const RESULT_FIELDS = ["content", "is_error", "metadata", "structured_content"];

/**
 * What a tool handler returned, as the API 0.3 `ToolCallResult`
 * (docs/api-0.3.md "Tool results"): a string (or number, boolean) is one text
 * part; an object may give `content` (a string or parts), `is_error`,
 * `metadata` (absent → `null`) and `structured_content`. Nothing returned,
 * unknown fields and malformed parts are `-32603`; image and audio parts are
 * deferred on 0.3 (`-32011`). Values are checked for the canonical encoding
 * when the reply is encoded.
 */
export function toolResult03(value: unknown): ToolCallResult03 {
  if (value === undefined || value === null) throw internal("the tool handler returned nothing; return a string or { content, is_error, metadata }");
  if (typeof value === "string") return text(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return text(String(value));
  if (typeof value !== "object" || Array.isArray(value)) throw internal("a tool result is a string or an object { content, is_error, metadata, structured_content }");
  const object = value as Record<string, unknown>;
  const unknown = Object.keys(object).filter((key) => !RESULT_FIELDS.includes(key) && object[key] !== undefined).sort();
  if (unknown.length > 0) throw internal(`unknown API 0.3 tool result field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (a result takes ${RESULT_FIELDS.join(", ")})`);
  const isError = object.is_error ?? false;
  if (typeof isError !== "boolean") throw internal("tool result is_error must be a boolean");
  const result: ToolCallResult03 = { content: parts(object.content), is_error: isError, metadata: object.metadata ?? null };
  if (object.structured_content !== undefined) result.structured_content = object.structured_content;
  return result;
}

function parts(content: unknown): { type: "text"; text: string }[] {
  if (content === undefined) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw internal("tool result content must be a string or an array of content parts");
  if (content.length > BOUNDS.max_content_parts) throw internal(`tool result content has ${content.length} parts; API 0.3 allows ${BOUNDS.max_content_parts}`);
  return content.map((part, i) => {
    if (part === null || typeof part !== "object" || Array.isArray(part)) throw internal(`content[${i}] must be an object`);
    const { type } = part as Record<string, unknown>;
    if (type === "image" || type === "audio") throw new WireError("capability_mismatch", `content[${i}]: ${type} parts are deferred on API 0.3 (only text parts are foundation)`, { type });
    if (type !== "text") throw internal(`content[${i}] has type ${JSON.stringify(type)}; API 0.3 content parts are text`);
    const keys = Object.keys(part).filter((k) => (part as Record<string, unknown>)[k] !== undefined);
    if (keys.some((k) => k !== "type" && k !== "text")) throw internal(`content[${i}] has unknown members; a text part is { type, text }`);
    const body = (part as Record<string, unknown>).text;
    if (typeof body !== "string") throw internal(`content[${i}].text must be a string`);
    return { type: "text", text: body };
  });
}

function text(body: string): ToolCallResult03 {
  return { content: [{ type: "text", text: body }], is_error: false, metadata: null };
}

function internal(detail: string): WireError {
  return new WireError("internal_error", detail);
}
