import type { Logger } from "../../log.ts";
import { MAX_CANONICAL_FRAME_BYTES } from "../../wire/canonical-frame.ts";
import type { ArgumentValidator } from "../arguments.ts";
import type { ExtensionOptions, ResolvedOptions } from "../options.ts";
import type { ToolRegistration } from "../registry.ts";
import { type RunOptions, serve } from "../serve.ts";
import type { ShutdownHandler, ToolHandler } from "../types.ts";
import { EventBus } from "./bus.ts";
import { CanonicalConnection } from "./canonical-connection.ts";
import { checkMigrationAdapter, type MigrationAdapter, migrationService } from "./migration.ts";
import { SessionLifecycle } from "./sessions.ts";
import type { ProviderDeclaration, ProviderHandlers } from "./provider-types.ts";
import { CanonicalProviders } from "./providers.ts";
import { type CanonicalService, CanonicalRegistry } from "./canonical-registry.ts";
import type { InitializeRequest03, SessionHookHandler } from "./canonical-types.ts";

/**
 * What `Extension` delegates to on API 0.3 (docs/api-0.3.md): the registry of
 * tools, session hooks and services, and `run()` over the canonical wire,
 * reusing `serve()` (stdin reader, `FrameWriter`, stdio sealing).
 */
export class CanonicalExtension {
  readonly registry = new CanonicalRegistry();
  private connection: CanonicalConnection | undefined;
  private providerSet: CanonicalProviders | undefined;
  private started = false;

  /** Session lifecycle and event bus handles (docs/api-0.3.md). */
  readonly sessions = new SessionLifecycle();
  readonly bus: EventBus;
  private migrationAdapter = false;

  constructor(
    private readonly log: Logger,
    private readonly options: ExtensionOptions,
    private readonly resolved: ResolvedOptions,
  ) {
    this.bus = new EventBus(log, () => (this.initialization?.extension as { name?: string } | undefined)?.name);
    this.registry.addService(this.sessions.service());
    this.registry.addService(this.bus.service());
  }

  /** Register the migration adapter (`migration.adapter.v1`); at most one. */
  migration(adapter: MigrationAdapter): void {
    const checked = checkMigrationAdapter(adapter);
    if (this.migrationAdapter) throw new Error("a migration adapter is already registered");
    this.registry.addService(migrationService(checked));
    this.migrationAdapter = true;
  }

  tool(definition: ToolRegistration, handler: ToolHandler<any>, validate?: ArgumentValidator): void {
    this.registry.addTool(definition, handler, validate);
  }

  hook(name: string, handler: SessionHookHandler<any>): void {
    this.registry.addSessionHook(name, handler);
  }

  onShutdown(handler: ShutdownHandler): void {
    this.registry.setShutdown(handler);
  }

  /** Plug in a group of optional methods (providers, migration, sessions, bus: part B of issue 27). */
  service(service: CanonicalService): void {
    this.registry.addService(service);
  }

  /** Declare a model provider (docs/api-0.3.md "Providers"); its groups join the negotiation. */
  provider(declaration: ProviderDeclaration, handlers?: ProviderHandlers): void {
    if (this.started) throw new Error("cannot register a provider after run() started");
    const providers = this.providers;
    providers.add(declaration, handlers);
    if (providers.size === 1) for (const service of providers.services()) this.registry.addService(service);
  }

  /** `ext.providers`: update, unregister and authorization calls after initialize. */
  get providers(): CanonicalProviders {
    return (this.providerSet ??= new CanonicalProviders(this.log));
  }

  get initialized(): boolean {
    return this.connection?.negotiated !== undefined;
  }

  get initialization(): InitializeRequest03 | undefined {
    return this.connection?.negotiated?.params;
  }

  get flags(): Readonly<Record<string, unknown>> | undefined {
    return this.connection?.negotiated?.flags;
  }

  get capabilities(): ReadonlySet<string> {
    return this.connection?.negotiated?.capabilities ?? new Set();
  }

  get concurrency(): number | undefined {
    return this.connection?.negotiated?.limits.max_concurrent_requests;
  }

  async run(io: RunOptions): Promise<void> {
    this.registry.freeze();
    this.started = true;
    await serve(io, this.log, { maxMessageBytes: MAX_CANONICAL_FRAME_BYTES, gcPacingBytes: this.resolved.gcPacingBytes }, ({ writer, handlersReady, stop }) => {
      this.connection = new CanonicalConnection({
        registry: this.registry,
        logger: this.log,
        writer,
        handlersReady,
        maxConcurrentRequests: this.options.maxConcurrentRequests,
        maxFrameBytes: this.options.maxMessageBytes,
        cancelledReplyMs: this.resolved.cancelledReplyMs,
        cancellationGraceMs: this.resolved.cancellationGraceMs,
        onStop: stop,
      });
      return this.connection;
    });
  }
}
