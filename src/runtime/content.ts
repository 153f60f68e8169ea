import type { ContentPart, JsonObject } from "./types.ts";
import { pyStr } from "./results.ts";

/**
 * Builders for API 0.2 tool results and octet's typed hook fields (docs/protocol-0.2.md §8.4).
 *
 * @example
 * return toolResult([textContent("Captured."), imageContent(id, "image/png", { alt: "page" })], { structuredContent: { url } });
 */

/** `{type:"text", text}`; non-strings are stringified. */
export function textContent(text: unknown): ContentPart {
  return { type: "text", text: pyStr(text) };
}

function media(kind: "image" | "audio", artifactId: string, mimeType: string): void {
  if (typeof artifactId !== "string" || artifactId === "") throw new Error(`${kind} content needs a non-empty artifact id`);
  if (typeof mimeType !== "string" || !mimeType.includes("/")) throw new Error(`${kind} content needs a MIME type such as ${kind}/png`);
}

/** An image part referencing a host artifact (needs negotiated `artifacts`). */
export function imageContent(artifactId: string, mimeType: string, options: { alt?: string } = {}): ContentPart {
  media("image", artifactId, mimeType);
  return options.alt === undefined ? { type: "image", artifact_id: artifactId, mime_type: mimeType } : { type: "image", artifact_id: artifactId, mime_type: mimeType, alt: options.alt };
}

/** An audio part referencing a host artifact (needs negotiated `artifacts`). */
export function audioContent(artifactId: string, mimeType: string, options: { transcript?: string } = {}): ContentPart {
  media("audio", artifactId, mimeType);
  return options.transcript === undefined
    ? { type: "audio", artifact_id: artifactId, mime_type: mimeType }
    : { type: "audio", artifact_id: artifactId, mime_type: mimeType, transcript: options.transcript };
}

/** A full API 0.2 tool result; `structuredContent` is included only when given (null counts). */
export function toolResult(
  parts: ContentPart[],
  options: { structuredContent?: unknown; isError?: boolean; metadata?: JsonObject | null } = {},
): { content: ContentPart[]; is_error: boolean; metadata: JsonObject | null; structured_content?: unknown } {
  const result: { content: ContentPart[]; is_error: boolean; metadata: JsonObject | null; structured_content?: unknown } = {
    content: parts,
    is_error: options.isError ?? false,
    metadata: options.metadata === undefined ? {} : options.metadata,
  };
  if ("structuredContent" in options) result.structured_content = options.structuredContent;
  return result;
}

/** `before_persistence` hook field (octet): `{public, value}`. */
export function persistenceMetadata(value: unknown, options: { public?: boolean } = {}): { public: boolean; value: unknown } {
  return { public: options.public ?? false, value };
}

/** `post_mutation` hook field (octet): ask the host to rescan 1..32 disclosed resources. */
export function postMutationRescan(resourceIds: string[]): { action: "request_rescan"; resource_ids: string[] } {
  if (!Array.isArray(resourceIds) || resourceIds.length < 1 || resourceIds.length > 32) throw new Error("post_mutation rescan needs 1..32 resource ids");
  if (resourceIds.some((id) => typeof id !== "string" || id === "")) throw new Error("post_mutation resource ids must be non-empty strings");
  return { action: "request_rescan", resource_ids: [...resourceIds] };
}

/** `provider_retry` hook field (octet): retry after an extra delay. */
export function providerRetryDelay(additionalDelayMs: number): { delay: { additional_delay_ms: number } } {
  if (!Number.isSafeInteger(additionalDelayMs) || additionalDelayMs < 0) throw new Error("provider retry delay must be a non-negative integer of milliseconds");
  return { delay: { additional_delay_ms: additionalDelayMs } };
}
