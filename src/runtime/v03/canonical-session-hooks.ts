import type { HandlerContext } from "../types.ts";
import { WireError } from "./canonical-errors.ts";
import { SESSION_HOOKS, type SessionHookName } from "./canonical-protocol.ts";
import type { CanonicalService } from "./canonical-registry.ts";
import type { Disposition, SessionHookHandler } from "./canonical-types.ts";
import { checkModel } from "./validate.ts";

/**
 * `hook/run` on API 0.3: selected with `lifecycle_events` when the manifest
 * declares the session_start/session_end pair (octet `negotiation.rs`); a
 * declared hook without a handler continues. The handler's answer becomes
 * `{disposition}`; octet records deny/defer but keeps ownership of the session.
 */
export function sessionHookService(handlers: ReadonlyMap<SessionHookName, SessionHookHandler<any>>): CanonicalService {
  return {
    selection(contributes) {
      const hooks = contributes.hooks;
      const declared = Array.isArray(hooks) && SESSION_HOOKS.every((hook) => hooks.includes(hook));
      return declared ? { capabilities: ["lifecycle_events"], methods: ["hook/run"] } : undefined;
    },
    async request(_method, params, ctx: HandlerContext) {
      const { hook, payload } = params as { hook: SessionHookName; payload: unknown };
      const handler = handlers.get(hook);
      const answer = handler ? await handler(payload, ctx) : undefined;
      return { disposition: disposition(answer, hook) };
    },
  };
}

/** A handler's answer as a `Disposition`: nothing is continue; a bad one is `-32603`. */
function disposition(answer: unknown, hook: string): Disposition {
  if (answer === undefined || answer === null) return { kind: "continue" };
  const value = typeof answer === "object" && answer !== null && "disposition" in answer ? (answer as { disposition: unknown }).disposition : answer;
  try {
    checkModel("Disposition", value, `${hook} disposition`);
  } catch (error) {
    throw new WireError("internal_error", (error as WireError).detail ?? String(error));
  }
  const { kind, reason } = value as Disposition;
  if (reason !== undefined && reason === "") throw new WireError("internal_error", `${hook} disposition reason must not be empty`);
  if (kind !== "continue" && reason === undefined) throw new WireError("internal_error", `${hook} disposition ${kind} needs a reason`);
  return (reason === undefined ? { kind } : { kind, reason }) as Disposition;
}
