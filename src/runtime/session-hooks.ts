/**
 * The session-operation hooks of API 0.4 (feature `session_entries`;
 * docs/api-0.4.md "Hooks"): `session_before_compact`, `session_compact`,
 * `session_before_tree`, `session_tree`, `model_turn_start`, `model_turn_end`.
 * octet awaits them and reads one decision, `session_operation`; the
 * observation hooks may only continue, and none may add prompt context.
 * Such a request may carry a single-use `session_leaf` grant, which
 * `ext.session.appendEntry` uses from inside the hook (each append returns
 * the next grant).
 */
import { isObject, utf8Bytes as bytes } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import type { RequestScope } from "./scope.ts";
import type { JsonObject } from "./types.ts";

/** The hooks, and which decisions each may return. */
export const SESSION_HOOKS = ["session_before_compact", "session_compact", "session_before_tree", "session_tree", "model_turn_start", "model_turn_end"] as const;
const DECIDING: Readonly<Record<string, readonly string[]>> = {
  session_before_compact: ["continue", "cancel", "replace_compaction"],
  session_before_tree: ["continue", "cancel"],
};

const internal = (problem: string) => new RpcError(ErrorCode.InternalError, `invalid session hook result: ${problem}`);

/** A session hook's result: the base keys plus `session_operation`, checked by octet's rules. */
export function sessionHookResult(hook: string, value: unknown): JsonObject {
  if (value === null || value === undefined) return { disposition: { action: "continue" }, context: [], notifications: [] };
  if (!isObject(value)) throw internal("a hook handler returns an object");
  const extra = Object.keys(value).find((k) => !["disposition", "context", "notifications", "session_operation"].includes(k));
  if (extra) throw internal(`${hook} cannot return ${extra}`);
  const context = value.context ?? [];
  if (!Array.isArray(context) || context.length > 0) throw internal("session hooks cannot add prompt context");
  const disposition = value.disposition ?? { action: "continue" };
  const allowed = DECIDING[hook] ?? ["continue"];
  if (isObject(disposition) && disposition.action === "deny" && !allowed.includes("cancel")) throw internal(`${hook} is an observation: it may only continue`);
  const out: JsonObject = { disposition, context: [], notifications: value.notifications ?? [] };
  const decision = value.session_operation;
  if (decision !== undefined) {
    if (!isObject(decision) || typeof decision.action !== "string" || !["continue", "cancel", "replace_compaction"].includes(decision.action)) throw internal('session_operation.action must be "continue", "cancel" or "replace_compaction"');
    if (!allowed.includes(decision.action)) throw internal(`${hook} may not return ${decision.action}`);
    const keys = Object.keys(decision);
    if (decision.action === "replace_compaction") {
      const replacement = decision.replacement;
      if (keys.some((k) => k !== "action" && k !== "replacement") || !isObject(replacement) || Object.keys(replacement).some((k) => k !== "summary" && k !== "first_kept")) {
        throw internal("replace_compaction needs exactly {replacement: {summary, first_kept}}");
      }
      if (typeof replacement.summary !== "string" || replacement.summary.trim() === "" || bytes(replacement.summary) > 256 * 1024) throw internal("replacement summary must be 1 to 262144 bytes");
      if (typeof replacement.first_kept !== "string" || replacement.first_kept === "" || bytes(replacement.first_kept) > 256) throw internal("replacement first_kept must be 1 to 256 bytes");
    } else if (keys.length !== 1) throw internal(`${decision.action} carries no other keys`);
    out.session_operation = decision;
  }
  return out;
}

/** The grant a session-leaf append uses next, per hook request (made on the first append). */
let grants: WeakMap<RequestScope, JsonObject | null> | undefined;

/** Check a request's `session_leaf` grant (`-32602` when malformed); undefined when it carries none. */
export function checkSessionLeaf(params: JsonObject): void {
  const leaf = params.session_leaf;
  if (leaf === undefined) return;
  if (!isObject(leaf) || typeof leaf.grant_id !== "string" || !/^[a-f0-9]{64}$/.test(leaf.grant_id) || !Number.isSafeInteger(leaf.activation_epoch) || (leaf.activation_epoch as number) < 0) {
    throw new RpcError(ErrorCode.InvalidParams, "invalid session_leaf grant");
  }
  if (typeof leaf.operation_id !== "string" || leaf.operation_id === "" || bytes(leaf.operation_id) > 256) throw new RpcError(ErrorCode.InvalidParams, "invalid session_leaf grant");
  const owner = isObject(params.context) ? params.context.resource_owner : undefined;
  if (leaf.owner !== undefined && JSON.stringify(leaf.owner) !== JSON.stringify(owner)) throw new RpcError(ErrorCode.InvalidParams, "session_leaf owner differs from the request's resource_owner");
}

/** The grant for an append from `scope` (the hook's own, then each successor), or undefined outside a leaf hook. */
export function nextGrant(scope: RequestScope | undefined): JsonObject | null | undefined {
  if (!scope) return undefined;
  if (grants?.has(scope)) return grants.get(scope);
  const leaf = isObject(scope.params) ? scope.params.session_leaf : undefined;
  if (!isObject(leaf)) return undefined;
  return { grant_id: leaf.grant_id, activation_epoch: leaf.activation_epoch, operation_id: leaf.operation_id };
}

/** Record the successor grant an append returned (`null`: the chain ended). */
export function useGrant(scope: RequestScope, successor: unknown): void {
  (grants ??= new WeakMap()).set(scope, isObject(successor) ? { grant_id: successor.grant_id, activation_epoch: successor.activation_epoch, operation_id: successor.operation_id } : null);
}
