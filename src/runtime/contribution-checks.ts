import { isObject, isOneOf } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import { SURFACES } from "../protocol.ts";
import type { JsonObject } from "./types.ts";

/**
 * Local checks for extension→host notification params, so that no public
 * call can write a frame the host treats as fatal (docs/protocol-0.2.md §1.9, §4.1–§4.4).
 * Shape problems are plain `Error`s (argument errors, docs/protocol-0.2.md §8.4).
 */

const LEVELS = ["info", "success", "warning", "error"];
const PLACEMENTS = ["system_prefix", "system_suffix", "prompt_prefix", "prompt_suffix"];

function exactKeys(what: string, value: JsonObject, allowed: string[]): void {
  for (const key in value) {
    if (!allowed.includes(key)) {
      const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
      throw new Error(`${what} has unknown fields: ${unknown.join(", ")} (allowed: ${allowed.join(", ")})`);
    }
  }
}

function requireString(what: string, value: unknown): void {
  if (typeof value !== "string") throw new Error(`${what} must be a string`);
}

/** Build `notification` params `{level, message, title?}` from checked values (docs/protocol-0.2.md §4.1). */
export function notificationParams(message: unknown, level: unknown, title: unknown): JsonObject {
  if (!LEVELS.includes(level as string)) throw new Error(`notification level must be one of ${LEVELS.join(", ")}`);
  requireString("notification message", message);
  if (title === undefined) return { level, message };
  if (title !== null) requireString("notification title", title);
  return { level, message, title };
}

/** `context/contribution` params and `context/collect` entries: `{label, content, placement?}`. */
export function checkContextEntry(params: unknown): JsonObject {
  if (!isObject(params)) throw new Error("context contribution must be an object");
  exactKeys("context contribution", params, ["label", "content", "placement"]);
  requireString("context contribution label", params.label);
  requireString("context contribution content", params.content);
  if (params.placement !== undefined && !PLACEMENTS.includes(params.placement as string)) {
    throw new Error(`context contribution placement must be one of ${PLACEMENTS.join(", ")}`);
  }
  return params;
}

/** `status/contribution` params: `{surface, text, style_role?, priority?}` for a declared surface. */
export function checkStatusEntry(params: unknown, declaredUi: unknown): JsonObject {
  if (!isObject(params)) throw new Error("status contribution must be an object");
  exactKeys("status contribution", params, ["surface", "text", "style_role", "priority"]);
  requireString("status contribution text", params.text);
  if (params.style_role !== undefined && params.style_role !== null) requireString("status contribution style_role", params.style_role);
  if (params.priority !== undefined) {
    const p = params.priority;
    if (typeof p !== "number" || !Number.isInteger(p) || p < -2147483648 || p > 2147483647) {
      throw new Error("status contribution priority must be a 32-bit integer");
    }
  }
  const surface = params.surface;
  if (!isOneOf(surface, SURFACES)) throw new Error("status contribution surface must be status, header or footer");
  if (!Array.isArray(declaredUi) || !declaredUi.includes(surface)) {
    throw new RpcError(ErrorCode.MethodNotFound, `${String(surface)} is not a declared ui`);
  }
  return params;
}
