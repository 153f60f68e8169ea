import type { RequestId } from "../wire/ids.ts";
import type { ToolCatalog } from "./catalog.ts";
import type { HostRequests } from "./host-requests.ts";
import type { Negotiated } from "./initialize.ts";
import type { ProgressEvent } from "./progress.ts";

/** What host calls need from the connection serving the session. */
export interface SessionConnection {
  /** `$/progress` for the ambient or named request (feature, parent, shape, state checked in that order). */
  progress(
    input: string | ProgressEvent,
    status: { current?: number | null; total?: number | null; unit?: string | null },
    scope: unknown,
    explicit: RequestId | undefined,
  ): Promise<void>;
  /** The id of `scope` when it is a host request still unanswered (a valid parent). */
  activeParent(scope: unknown): RequestId | undefined;
}

/**
 * What exists once `initialize` succeeded, as one object: the agreed session,
 * the channel for extension→host requests and notifications, and the tool
 * catalog. Host calls take it from `ServiceHost.initialized()`, so none of
 * them can run, or needs a non-null assertion, before initialize.
 */
export interface LiveSession {
  readonly session: Negotiated;
  readonly hostRequests: HostRequests;
  readonly catalog: ToolCatalog;
  /** The connection serving this session (progress and the active-parent rule live there). */
  readonly connection: SessionConnection;
}
