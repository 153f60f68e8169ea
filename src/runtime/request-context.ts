import type { CancellationToken } from "./cancellation.ts";
import { scratchDirectory, workspaceOf } from "./handler-paths.ts";
import type { RequestScope } from "./scope.ts";
import type { HandlerContext, JsonObject } from "./types.ts";

/** The handler's second argument (`HandlerContext`) for the request `scope`; `signal` is created only when read. */
export class RequestContext implements HandlerContext {
  constructor(
    private readonly scope: RequestScope,
    readonly context: JsonObject,
    private readonly initializeParams: JsonObject | undefined,
  ) {}

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
    return workspaceOf(this.context, this.initializeParams);
  }

  get scratch(): string {
    return scratchDirectory();
  }
}
