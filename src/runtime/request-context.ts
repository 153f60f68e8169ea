import { isObject } from "../check.ts";
import type { CancellationToken } from "./cancellation.ts";
import { scratchDirectory, workspaceOf } from "./handler-paths.ts";
import { type Host, hostHandle } from "./host-handle.ts";
import { boundAccess, type HostSession } from "./host-session.ts";
import type { RequestScope } from "./scope.ts";
import type { HandlerContext, JsonObject } from "./types.ts";

/** A request's `params.context`, or `{}` when the host sent none (or not an object). */
function contextOf(params: unknown): JsonObject {
  return isObject(params) && isObject(params.context) ? params.context : {};
}

/** The handler's second argument (`HandlerContext`) for the request `scope`; `signal` and `host` are made only when read. */
export class RequestContext implements HandlerContext {
  private declare handle: Host | undefined;
  private declare readonly scope: RequestScope;
  private declare ambient: JsonObject | undefined;
  private declare readonly session: HostSession;

  // Assigned here rather than as class fields or parameter properties: one is made per request (see `CancellationToken`).
  constructor(scope: RequestScope, session: HostSession) {
    this.handle = undefined;
    this.scope = scope;
    this.ambient = undefined;
    this.session = session;
  }

  /** `params.context` as the host sent it (`{}` when it sent none). */
  get context(): JsonObject {
    return (this.ambient ??= contextOf(this.scope.params));
  }

  get host(): Host {
    return (this.handle ??= hostHandle(boundAccess(this.session, this.scope)));
  }

  get requestId(): RequestScope["id"] {
    return this.scope.id;
  }

  get method(): string {
    return this.scope.method;
  }

  get cancellation(): CancellationToken {
    return this.scope.token;
  }

  get signal(): AbortSignal {
    return this.scope.token.signal;
  }

  get workspace(): string {
    return workspaceOf(this.context, this.session.negotiated.params);
  }

  get scratch(): string {
    return scratchDirectory();
  }
}
