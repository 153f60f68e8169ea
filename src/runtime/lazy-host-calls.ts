/**
 * The host calls off the hot path (`ext.user.confirm`, `ext.agents.*`, `ext.session.*`,
 * `ext.tools.register`, `ext.resources.export`, `ext.presentation.publish`, …), loaded as a
 * separate chunk when compiled with `--splitting` (as `octet-extension build` does): the start-up
 * loads less code. `run()` loads them once initialize was answered and holds every handler until
 * they are there (docs/performance.md), so a handler's calls start as synchronously as a static
 * import's would; only a call before that (none in practice) waits for the load.
 */
export interface HostServiceModules {
  services: typeof import("./services.ts");
  agents: typeof import("./agents.ts");
  sessionServices: typeof import("./session-services.ts");
  catalogChanges: typeof import("./catalog-changes.ts");
  resourceCalls: typeof import("./resource-calls.ts");
  presentation: typeof import("./presentation-publisher.ts");
}

let loaded: HostServiceModules | undefined;
let loading: Promise<HostServiceModules> | undefined;

/** Load the modules (idempotent); a failed load is tried again by the next call. */
export function loadHostServices(): Promise<HostServiceModules> {
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
export function withHostServices<T>(use: (modules: HostServiceModules) => Promise<T>): Promise<T> {
  if (loaded === undefined) return loadHostServices().then(use);
  try {
    return use(loaded);
  } catch (error) {
    return Promise.reject(error);
  }
}
