import { offPathModules } from "./lazy-host-calls.ts";

/**
 * Modules no initialize reply needs, reached synchronously from the start-up code: they are part of
 * the chunk `run()` loads once the reply is out (`off-path-calls.ts`), required on the spot when
 * something asks for them earlier. Keeping them out of the start-up chunks saves evaluating them on
 * every cold start (docs/design.md, "Start-up loads the hot path only"); test/unit/start-up-chunk.test.ts
 * holds that.
 */

/** The outbound engine of a session (made on first use after a successful initialize). */
export const hostSessionModule = (): typeof import("./host-session.ts") => offPathModules().hostSession;
/** `ext.user`, `ext.agents`, … (the `Host` handle, made on first use). */
export const hostHandleModule = (): typeof import("./host-handle.ts") => offPathModules().hostHandle;
