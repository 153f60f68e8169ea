import type { CancellationToken } from "../cancellation.ts";
import type { Host } from "../host-handle.ts";
import type { ExecutionContext, HandlerContext } from "../types.ts";
import { apiRefusal } from "./canonical-refusals.ts";

/** The second argument of an API 0.3 handler; `signal` is created only when read. */
export class CanonicalHandlerContext implements HandlerContext {
  constructor(
    readonly context: ExecutionContext,
    readonly requestId: string | number,
    readonly method: string,
    readonly cancellation: CancellationToken,
    private readonly initializeWorkspace: string | undefined,
  ) {}

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  /** The legacy host calls do not exist on the canonical wire: a one-line refusal naming API 0.3. */
  get host(): Host {
    throw new Error(apiRefusal("ctx.host"));
  }

  /** The workspace root: the request context's, else initialize's, else `OCTET_WORKSPACE`, else the working directory. */
  get workspace(): string {
    const own = this.context.workspace;
    return typeof own === "string" ? own : (this.initializeWorkspace ?? process.env.OCTET_WORKSPACE ?? process.cwd());
  }

  /** `OCTET_EXTENSION_SCRATCH`, the per-run scratch directory octet gives the extension; throws outside a host. */
  get scratch(): string {
    const dir = process.env.OCTET_EXTENSION_SCRATCH;
    if (!dir) throw new Error("ctx.scratch: OCTET_EXTENSION_SCRATCH is not set; run the extension under octet or the test host");
    return dir;
  }
}
