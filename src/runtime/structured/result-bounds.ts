/**
 * The host's bounds on an API 0.2 tool result's `structured_content` and
 * `metadata` (docs/protocol-0.2.md §3.2, §7), checked before the reply is written.
 */
import { memberPath, preview, utf8Bytes } from "../../check.ts";
import { rawNumber } from "../../wire/json.ts";
import { jsonMembers, wellFormedValue } from "../../wire/json-text.ts";

/** Maximum JSON-encoded size of `structured_content` (256 KiB). */
export const MAX_STRUCTURED_BYTES = 256 * 1024;
/** Maximum JSON-encoded size of `metadata` (64 KiB). */
export const MAX_METADATA_BYTES = 64 * 1024;
/** Maximum value depth (a top-level scalar is depth 1; `{"a":1}` is depth 2). */
export const MAX_VALUE_DEPTH = 32;
/** Maximum number of values (objects, arrays and scalars) in one tree. */
export const MAX_VALUE_NODES = 16_384;
/** Maximum UTF-8 length of any object key inside `metadata`. */
export const MAX_METADATA_KEY_BYTES = 256;

/**
 * Check an API 0.2 tool result's `structured_content` and `metadata` against
 * the host's bounds: ≤ 256 KiB / 64 KiB JSON-encoded, each ≤ 32 levels deep
 * and ≤ 16,384 values, metadata object keys ≤ 256 UTF-8 bytes at any depth.
 * Returns a message naming the exceeded bound, else `undefined`. Absent
 * (`undefined`) fields are not checked.
 *
 * @example
 * checkResultBounds({ metadata: { ["k".repeat(300)]: 1 } });
 * // 'metadata key "kkk…" is 300 bytes (limit 256 UTF-8 bytes) at metadata'
 */
export function checkResultBounds(result: { structured_content?: unknown; metadata?: unknown }): string | undefined {
  if (result.structured_content !== undefined) {
    const failure = checkTree("structured_content", result.structured_content, MAX_STRUCTURED_BYTES, false);
    if (failure) return failure;
  }
  if (result.metadata !== undefined) {
    const failure = checkTree("metadata", result.metadata, MAX_METADATA_BYTES, true);
    if (failure) return failure;
  }
  return undefined;
}

function checkTree(field: string, root: unknown, maxBytes: number, checkKeys: boolean): string | undefined {
  // Iterative walk: bounded by the node cap, so cycles and hostile depth cannot run away.
  const stack: [unknown, number, string][] = [[root, 1, field]];
  let nodes = 0;
  while (stack.length > 0) {
    const [value, depth, path] = stack.pop()!;
    nodes += 1;
    if (nodes > MAX_VALUE_NODES) return `${field} exceeds ${MAX_VALUE_NODES} nodes`;
    if (depth > MAX_VALUE_DEPTH) return `${field} exceeds ${MAX_VALUE_DEPTH} levels of nesting (at ${path})`;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], depth + 1, `${path}[${i}]`]);
    } else if (typeof value === "object" && value !== null) {
      const members = jsonMembers(value);
      for (let i = members.length - 1; i >= 0; i--) {
        const [key, item] = members[i]!;
        if (checkKeys) {
          const bytes = utf8Bytes(key);
          if (bytes > MAX_METADATA_KEY_BYTES) {
            return `${field} key ${preview(key)} is ${bytes} bytes (limit ${MAX_METADATA_KEY_BYTES} UTF-8 bytes) at ${path}`;
          }
        }
        stack.push([item, depth + 1, memberPath(path, key)]);
      }
    }
  }
  const size = encodedBytes(root);
  if (typeof size === "string") return `${field} cannot be JSON-encoded: ${size}`;
  if (size > maxBytes) return `${field} exceeds ${maxBytes / 1024} KiB when JSON-encoded (${size} bytes)`;
  return undefined;
}

/** UTF-8 size of the compact JSON the runtime's encoder writes, or why it cannot be encoded. */
function encodedBytes(value: unknown): number | string {
  let text: string | undefined;
  try {
    try {
      text = JSON.stringify(value);
    } catch {
      text = JSON.stringify(value, bigintAsNumber);
    }
    if (text !== undefined && text.includes("\\ud")) text = JSON.stringify(value, wellFormed);
  } catch (error) {
    return (error as Error).message;
  }
  return text === undefined ? 4 : utf8Bytes(text);
}

function bigintAsNumber(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return rawNumber(value.toString());
  return value;
}

function wellFormed(key: string, value: unknown): unknown {
  return bigintAsNumber(key, wellFormedValue(value));
}
