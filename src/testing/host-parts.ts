/**
 * The parts a `TestHost` delegates to, wired for one extension process: the
 * transcript, the connection (host → extension), the monitor and the frame
 * router (extension → host), the responders, the stderr judge, the bulk
 * store and, for a 0.3 manifest, the canonical side. Reading the process's
 * stdout and stderr starts here.
 */
import type { JsonRecord } from "../check.ts";
import { negotiatesFeatures } from "../protocol.ts";
import { builtInResponder, type HostCatalog, type HostResources } from "./built-in-responders.ts";
import { HostBulkStore } from "./bulk-store.ts";
import type { ExtensionProcess } from "./extension-process.ts";
import { FrameRouter } from "./frame-router.ts";
import { HostConnection } from "./host-connection.ts";
import type { TestHostOptions } from "./host-options.ts";
import { HostStderr } from "./host-stderr.ts";
import type { HostManifest } from "./manifest.ts";
import { HostMonitor } from "./monitor.ts";
import { Responders } from "./responders.ts";
import { readStderr } from "./stderr-reader.ts";
import { readStdout } from "./stdout-reader.ts";
import { Transcript } from "./transcript.ts";
import { canonicalText } from "./v03/canonical-text.ts";
import { readCanonicalStdout } from "./v03/frame-reader.ts";
import { CanonicalHostSession } from "./v03/canonical-host-session.ts";
import { openProviderStream, type ProviderTestCalls } from "./v03/provider-host.ts";
import { ServicesHost03 } from "./v03/services-host.ts";
import { replyResult } from "./host-errors.ts";

/** The wired parts; see the module comment. */
export interface HostParts {
  log: Transcript;
  connection: HostConnection;
  monitor: HostMonitor;
  router: FrameRouter;
  responders: Responders;
  stderrLines: HostStderr;
  v03: CanonicalHostSession | undefined;
  bulk: HostBulkStore | undefined;
  /** API 0.3: the host's session lifecycle, event bus and migration helpers. */
  services03: ServicesHost03 | undefined;
  /** Resolves with the exit code once the process is gone and everything it wrote was judged. */
  exited: Promise<number>;
}

/** What the parts read of the host they serve (its catalog is published into by `tools/register`). */
export interface ServedHost extends HostCatalog {
  readonly stderr: string[];
  readonly features: ReadonlySet<string>;
  readonly resourceOwner: unknown;
  readonly resources: HostResources;
}

/** Wire the parts for `child` and start reading what it writes. */
export function assembleHost(manifest: HostManifest, child: ExtensionProcess, options: TestHostOptions, host: ServedHost): HostParts {
  const log = new Transcript();
  const v03 = manifest.api_version === "0.3" ? new CanonicalHostSession(manifest) : undefined;
  const connection = new HostConnection(child, log, {
    timeoutMs: () => options.requestTimeoutMs ?? 30_000,
    cancelOnTimeout: () => negotiatesFeatures(manifest.api_version) || v03 !== undefined,
    ...(v03 ? { encode: (frame: JsonRecord) => `${canonicalText(frame)}\n` } : {}),
  });
  const monitor = new HostMonitor(manifest, { features: () => host.features, active: (id) => connection.active(id), resourceOwner: host.resourceOwner });
  const stderrLines = new HostStderr(host.stderr, monitor.violations, options.strictStderr !== false, options.stderrWindow);
  const bulk = options.bulk && manifest.api_version === "0.4" ? new HostBulkStore() : undefined;
  const responders = new Responders((method) => v03?.providers.responder(method) ?? builtInResponder(method, manifest, host, bulk, host.resources));
  const router = new FrameRouter({ child, log, connection, monitor, responders, v03 });
  const services03 = v03
    ? new ServicesHost03({
        owner: manifest.name,
        diagnostics: monitor.diagnostics,
        notify: (method, params) => connection.notify(method, params),
        judged: async (method, params, rule) => router.judgeResult(method, replyResult(await connection.request(method, params)), rule),
        respond: (method, responder) => responders.set(method, responder),
        options,
      })
    : undefined;
  const onStdout = router.onStdout.bind(router);
  const drained = Promise.all([
    v03 ? readCanonicalStdout(child.stdout, onStdout, () => v03.bound) : readStdout(child.stdout, onStdout),
    readStderr(child.stderr, (line, part) => stderrLines.line(line, part)),
  ]).catch((error: Error) => {
    monitor.diagnostics.push(`test host reader failed: ${error.message}`);
  });
  // Judge the process on everything it wrote (a last partial line, a last stderr record) before failing pending calls.
  const exited = child.gone(drained).then((code) => {
    const tail = host.stderr.slice(-5).join("\n");
    const exitedBefore = (request: { method: string }) => new Error(`extension exited (status ${code}) before replying to ${request.method}${tail ? `; stderr:\n${tail}` : ""}`);
    connection.rejectAll(exitedBefore, { stopTimers: false });
    return code;
  });
  return { log, connection, monitor, router, responders, stderrLines, v03, bulk, services03, exited };
}

/** `TestHost.providers`: API 0.3 provider streams and the catalog the extension registered (`v03/provider-host.ts`). */
export function providerCalls(parts: () => HostParts, call: (method: string, params: JsonRecord) => Promise<unknown>): ProviderTestCalls {
  const v03 = (what: string) => {
    const session = parts().v03;
    if (!session) throw new Error(`TestHost.providers.${what} is API 0.3's provider service; this manifest declares another api_version`);
    return session.providers;
  };
  return {
    stream: (params, options = {}) =>
      openProviderStream(v03("stream"), (p) => call("provider/stream", p), (r, v) => parts().router.judge(r, v && `invalid provider/stream result: ${v}`), params, options.timeoutMs ?? 10_000),
    cancel(streamId, reason) {
      v03("cancel").cancelled(streamId);
      parts().connection.notify("provider/cancel", reason === undefined ? { stream_id: streamId } : { reason, stream_id: streamId });
    },
    get catalog() {
      const providers = v03("catalog");
      return { revision: providers.revision, providers: providers.catalog, completed: providers.completed };
    },
  };
}
