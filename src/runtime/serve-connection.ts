import type { Logger } from "../log.ts";
import type { Feature } from "../protocol.ts";
import { Connection } from "./connection.ts";
import type { Opening } from "./first-reply.ts";
import { loadHostServices } from "./lazy-host-calls.ts";
import type { ResolvedOptions } from "./options.ts";
import type { Registry } from "./registry.ts";
import { type RunOptions, serve } from "./serve.ts";

/** What a session of API 0.1, 0.2 or 0.4 runs with. */
export type SessionOptions = Omit<ResolvedOptions, "supportedFeatures"> & { supportedFeatures: ReadonlySet<Feature>; registry: Registry; logger: Logger };

/**
 * Serve one API 0.1/0.2/0.4 session: the transport (`serve.ts`) driving a `Connection`, from
 * `opening` when stdio was already read from (first-reply.ts: the connection then starts in the
 * ready state when the initialize reply is out). `made` is told the connection before any frame
 * reaches it. Part of the chunk loaded after the initialize reply (off-path-calls.ts).
 */
export function serveConnection(io: RunOptions, opening: Opening | undefined, options: SessionOptions, made: (connection: Connection) => void): Promise<void> {
  return serve(
    io,
    options.logger,
    options,
    ({ writer, handlersReady, stop }) => {
      // The request side and the host calls off the hot path load once initialize was answered (stdio sealed);
      // requests are served from then on. A full collection then drops what loading left behind (peak RSS of
      // the 512 KiB echo ~1.5 MiB lower) and sizes the old generation, so the first collection under
      // load is a young one, not a full one (docs/performance.md).
      const engine = (handlersReady ?? Promise.resolve()).then(() => loadHostServices()).then((modules) => {
        Bun.gc(true);
        return modules;
      });
      const connection = new Connection({ ...options, engine, writer, onStop: stop });
      if (opening?.answered) connection.adoptInitialized(opening.answered.negotiated);
      made(connection);
      return connection;
    },
    opening,
  );
}
