/**
 * The host calls off the hot path (`ext.user.confirm`, `ext.agents.*`, `ext.session.*`,
 * `ext.tools.register`, `ext.resources.export`, `ext.presentation.publish`, …) and the request side
 * of a session (request table, method layer, worker pool), loaded as a separate chunk when compiled
 * with `--splitting` (as `octet-extension build` does): the start-up loads less code. `run()` loads
 * them once initialize was answered; `Connection` serves no request before they are there
 * (docs/design.md), so a handler's calls start as synchronously as a static import's would; only a
 * call before that (none in practice) waits for the load.
 */
export interface OffPathModules {
  services: typeof import("./services.ts");
  agents: typeof import("./agents.ts");
  sessionServices: typeof import("./session-services.ts");
  catalogChanges: typeof import("./catalog-changes.ts");
  resourceCalls: typeof import("./resource-calls.ts");
  presentation: typeof import("./presentation-publisher.ts");
  /** Not host calls, but code only handlers need, reached through {@link offPathModules}: the general walk of tool results (`results.ts`) and progress events other than a status line (`host-session.ts`). */
  checkedResults: typeof import("./checked-tool-result.ts");
  progressEvents: typeof import("./progress.ts");
  /** Tool results (`partial_result` progress events are made with `toolResult02`). */
  results: typeof import("./results.ts");
  /** The request side of a session: `Connection` serves requests once these are loaded (none is needed to answer initialize). */
  requestTable: typeof import("./request-table.ts");
  scheduler: typeof import("./scheduler.ts");
  requestContext: typeof import("./request-context.ts");
  /** The session of API 0.1/0.2/0.4 (transport, framing, `Connection`): `run()` requires it once the first reply is out (first-reply.ts). */
  session: typeof import("./serve-connection.ts");
  /** The session's outbound engine and the `Host` handle (`lazy-modules.ts`). */
  hostSession: typeof import("./host-session.ts");
  hostHandle: typeof import("./host-handle.ts");
  /** Blob transfer (`bulk_objects_v1`): `negotiate` requires it on the spot when the host offers it. */
  bulk: typeof import("./bulk.ts");
  /** Native resources (`ext.resourceType()`, a tool's `operation`, the values behind refs): required on the spot by the registry when used. */
  resources: typeof import("./resources.ts");
}

/** What `Connection` needs of {@link OffPathModules} to serve requests. */
export type RequestSide = Pick<OffPathModules, "requestTable" | "scheduler" | "requestContext">;

let loaded: OffPathModules | undefined;
let loading: Promise<OffPathModules> | undefined;

/** Load the modules (idempotent); a failed load is tried again by the next call. */
export function loadHostServices(): Promise<OffPathModules> {
  loading ??= import("./off-path-calls.ts").then(
    (modules) => (loaded = modules),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Run `use` with the modules: at once when loaded (in every handler), else after loading. */
export function withHostServices<T>(use: (modules: OffPathModules) => Promise<T>): Promise<T> {
  if (loaded === undefined) return loadHostServices().then(use);
  try {
    return use(loaded);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The modules, synchronously: loaded once a handler can run (the case in every compiled extension);
 * before that, required on the spot. A literal `require` keeps them out of the start-up chunks under
 * `--splitting` (the same chunk as the dynamic import above) and works from source and compiled.
 */
export function offPathModules(): OffPathModules {
  return (loaded ??= require("./off-path-calls.ts") as OffPathModules);
}
