/** The modules `lazy-host-calls.ts` loads after initialize, as one dynamic import (one chunk under `--splitting`). */
export * as services from "./services.ts";
export * as agents from "./agents.ts";
export * as sessionServices from "./session-services.ts";
export * as catalogChanges from "./catalog-changes.ts";
export * as resourceCalls from "./resource-calls.ts";
export * as presentation from "./presentation-publisher.ts";
export * as checkedResults from "./checked-tool-result.ts";
export * as progressEvents from "./progress.ts";
export * as results from "./results.ts";
// The request side of a session (`Connection` serves requests with it once it is there; docs/design.md).
export * as requestTable from "./request-table.ts";
export * as scheduler from "./scheduler.ts";
export * as requestContext from "./request-context.ts";
// The session over stdio once the first reply is out (first-reply.ts): transport, framing, Connection.
export * as session from "./serve-connection.ts";
// The session's outbound engine and the host-call handle: no initialize reply needs them.
export * as hostSession from "./host-session.ts";
export * as hostHandle from "./host-handle.ts";
// Blob transfer: only a session that negotiates `bulk_objects_v1` needs it, and initialize requires it then.
export * as bulk from "./bulk.ts";
// Native resources: the registry requires it on the spot for `ext.resourceType()` and a tool's `operation` (API 0.4).
export * as resources from "./resources.ts";
