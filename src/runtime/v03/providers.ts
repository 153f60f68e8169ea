import { errorText } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { WireError } from "./canonical-errors.ts";
import { BOUNDS } from "./canonical-protocol.ts";
import { ProviderStream } from "./provider-stream.ts";
import type {
  ProviderAuthorizationResult,
  ProviderCalls,
  ProviderCatalogResult,
  ProviderDeclaration,
  ProviderHandlers,
  ProviderStreamRequest,
} from "./provider-types.ts";
import type { CanonicalService, HostLink } from "./canonical-registry.ts";
import { checkModel } from "./validate.ts";

const CATALOG = { capabilities: ["provider_catalog"], methods: ["providers/register", "providers/complete"] };
const STREAMING = { capabilities: ["provider_stream"], methods: ["provider/stream", "provider/event", "provider/cancel"] };
const UPDATES = { capabilities: [], methods: ["providers/update", "providers/unregister"] };
const AUTH = { capabilities: ["provider_auth"], methods: ["provider/auth/request", "provider/auth/revoke"] };

interface Entry {
  declaration: ProviderDeclaration;
  handlers: ProviderHandlers;
}

/**
 * Providers on API 0.3 (docs/api-0.3.md "Providers"): the declarations an
 * author registers before `run()`, the groups they select (octet
 * `negotiation.rs`: only with `contributes.providers = true`; streaming
 * needs the catalog and all of provider/stream|event|cancel; auth needs the
 * catalog), `providers/register` of each then `providers/complete` once the
 * initialize reply is out, `provider/stream` → {@link ProviderStream}, and
 * `provider/cancel`.
 */
export class CanonicalProviders implements ProviderCalls {
  private readonly entries = new Map<string, Entry>();
  private readonly streams = new Map<string, ProviderStream>();
  private link: HostLink | undefined;
  private stopped: string | undefined;
  catalog: ProviderCatalogResult | undefined;

  constructor(private readonly log: Logger) {}

  /** Add a provider (before `run()`); a bad declaration is one line naming the key. */
  add(declaration: ProviderDeclaration, handlers: ProviderHandlers = {}): void {
    const params = wireParams(declaration, "ext.provider()");
    const id = params.provider.id;
    if (this.entries.has(id)) throw new Error(`ext.provider(): provider \`${id}\` is already registered`);
    if (this.entries.size >= BOUNDS.max_providers) throw new Error(`ext.provider(): provider \`${id}\` would be the ${BOUNDS.max_providers + 1}th; API 0.3 allows ${BOUNDS.max_providers}`);
    const models = [...this.entries.values()].reduce((n, e) => n + e.declaration.models.length, 0) + params.models.length;
    if (models > BOUNDS.max_provider_models) throw new Error(`ext.provider(): provider \`${id}\` brings the models to ${models}; API 0.3 allows ${BOUNDS.max_provider_models}`);
    if (handlers === null || typeof handlers !== "object") throw new Error(`ext.provider(): provider \`${id}\`: handlers must be an object { stream, accept?, updates? }`);
    for (const key of ["stream", "accept"] as const) {
      if (handlers[key] !== undefined && typeof handlers[key] !== "function") throw new Error(`ext.provider(): provider \`${id}\`: handlers.${key} must be a function`);
    }
    this.entries.set(id, { declaration: { ...declaration, auth: params.provider.auth, models: params.models }, handlers });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The groups of optional methods, one service each; the connection selects each all-or-nothing. */
  services(): CanonicalService[] {
    const base = () => {
      const streaming = [...this.entries.values()].some((e) => e.handlers.stream);
      return streaming ? merge(CATALOG, STREAMING) : CATALOG;
    };
    const group = (extra?: () => typeof CATALOG | undefined): CanonicalService => ({
      selection: (contributes) => {
        if (contributes.providers !== true || this.entries.size === 0) return undefined;
        if (!extra) return base();
        const more = extra();
        return more ? merge(base(), more) : undefined;
      },
      request: (method, params) => this.request(method, params),
      notification: (method, params) => this.notification(method, params),
      ready: (link) => this.ready(link),
      stop: (reason) => this.stop(reason),
    });
    return [
      group(),
      group(() => ([...this.entries.values()].some((e) => e.handlers.updates) ? UPDATES : undefined)),
      group(() => ([...this.entries.values()].some((e) => e.declaration.auth?.kind !== "none") ? AUTH : undefined)),
    ];
  }

  // ---- ext.providers -----------------------------------------------------------

  async update(declaration: ProviderDeclaration): Promise<ProviderCatalogResult> {
    const params = wireParams(declaration, "ext.providers.update()");
    const entry = this.entries.get(params.provider.id);
    if (!entry) throw new Error(`ext.providers.update(): provider \`${params.provider.id}\` was not declared with ext.provider()`);
    const result = await this.call("providers/update", params, "ext.providers.update()");
    entry.declaration = { ...declaration, auth: params.provider.auth, models: params.models };
    for (const stream of this.streams.values()) {
      if (stream.request.provider_id === params.provider.id && !params.models.some((m) => m.id === stream.request.model_id)) stream.cancel("model removed");
    }
    return result;
  }

  async unregister(providerId: string): Promise<ProviderCatalogResult> {
    const result = await this.call("providers/unregister", { provider_id: providerId }, "ext.providers.unregister()");
    this.entries.delete(providerId);
    for (const stream of this.streams.values()) if (stream.request.provider_id === providerId) stream.cancel("provider unregistered");
    return result;
  }

  authorize(providerId: string, options: { action?: "authorize" | "refresh"; interactive?: boolean; scopes?: string[] } = {}): Promise<ProviderAuthorizationResult> {
    const params: Record<string, unknown> = { action: options.action ?? "authorize", interactive: options.interactive ?? false, provider_id: providerId };
    if (options.scopes !== undefined) params.scopes = options.scopes;
    return this.call("provider/auth/request", params, "ext.providers.authorize()") as Promise<ProviderAuthorizationResult>;
  }

  revoke(providerId: string, options: { interactive?: boolean } = {}): Promise<ProviderAuthorizationResult> {
    return this.call("provider/auth/revoke", { action: "revoke", interactive: options.interactive ?? false, provider_id: providerId }, "ext.providers.revoke()") as Promise<ProviderAuthorizationResult>;
  }

  // ---- the service ---------------------------------------------------------------

  private ready(link: HostLink): void {
    if (this.link) return;
    this.link = link;
    void this.registerAll(link);
  }

  /** `providers/register` for each provider in order, then `providers/complete {}` whatever the answers. */
  private async registerAll(link: HostLink): Promise<void> {
    for (const entry of this.entries.values()) {
      try {
        this.catalog = (await link.request("providers/register", wireParams(entry.declaration, "ext.provider()"))) as ProviderCatalogResult;
      } catch (error) {
        this.log.warning("providers/register refused", { provider: entry.declaration.id, error: errorText(error) });
      }
      if (this.stopped) return;
    }
    try {
      link.notify("providers/complete", {});
    } catch (error) {
      this.log.warning("providers/complete not sent", { error: errorText(error) });
    }
  }

  private async request(method: string, params: unknown): Promise<unknown> {
    if (method !== "provider/stream") throw new WireError("unknown_method", `${method} is not served by providers`, { method });
    const request = params as ProviderStreamRequest;
    const refuse = (reason: string) => ({ accepted: false, reason, stream_id: request.stream_id });
    const entry = this.entries.get(request.provider_id);
    if (!entry?.handlers.stream || !entry.declaration.models.some((m) => m.id === request.model_id)) return refuse("unknown model");
    if (this.streams.has(request.stream_id)) return refuse("stream_id is already streaming");
    if (entry.handlers.accept) {
      const verdict = await entry.handlers.accept(request);
      if (verdict !== true) return refuse(typeof verdict === "string" && verdict !== "" ? verdict : "refused");
    }
    if (this.stopped) return refuse("the extension is stopping");
    const stream = new ProviderStream(request, (event) => this.link!.notify("provider/event", event), this.log, () => this.streams.delete(request.stream_id));
    this.streams.set(request.stream_id, stream);
    // The acceptance is written when this returns; the first event follows it.
    setImmediate(() => void stream.run(entry.handlers.stream!));
    return { accepted: true, stream_id: request.stream_id };
  }

  private notification(method: string, params: unknown): void {
    if (method !== "provider/cancel") return;
    const { stream_id: streamId, reason } = params as { stream_id: string; reason?: string };
    const stream = this.streams.get(streamId);
    if (stream) stream.cancel(reason ?? "cancelled");
    else this.log.debug("provider/cancel for an unknown or ended stream ignored", { stream_id: streamId });
  }

  private stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = reason;
    for (const stream of [...this.streams.values()]) stream.cancel(reason);
  }

  private async call(method: string, params: Record<string, unknown>, what: string): Promise<any> {
    if (!this.link) throw new Error(`${what}: the extension is not initialized yet (call it from a handler or after providers/complete)`);
    if (!this.link.methods.has(method)) {
      const hint = method.startsWith("providers/") ? "declare the provider with { updates: true } and contributes.providers = true" : "declare a provider whose auth.kind is not \"none\"";
      throw new Error(`${what}: ${method} was not selected in this contract (${hint}, and the host must offer it)`);
    }
    const result = (await this.link.request(method, params)) as ProviderCatalogResult;
    if (method.startsWith("providers/")) this.catalog = result;
    return result;
  }
}

/** The `{provider, models}` params of a declaration, checked against octet's models; one line per problem. */
function wireParams(declaration: ProviderDeclaration, what: string): { provider: { id: string; label: string; auth: NonNullable<ProviderDeclaration["auth"]> }; models: ProviderDeclaration["models"] } {
  if (declaration === null || typeof declaration !== "object") throw new Error(`${what}: the declaration must be an object { id, label, auth?, models }`);
  const provider = { auth: declaration.auth ?? { kind: "none" as const }, id: declaration.id, label: declaration.label };
  const params = { models: declaration.models, provider };
  try {
    checkModel("ProviderRegisterParams", params, "provider");
  } catch (error) {
    const detail = error instanceof WireError ? error.detail.replace(/^provider\.provider\./, "provider.").replace(/^provider\.models/, "models") : errorText(error);
    throw new Error(`${what}: ${detail}`);
  }
  const ids = new Set<string>();
  for (const model of declaration.models) {
    if (ids.has(model.id)) throw new Error(`${what}: provider \`${declaration.id}\` declares model \`${model.id}\` twice`);
    ids.add(model.id);
  }
  return params;
}

function merge(a: typeof CATALOG, b: typeof CATALOG): typeof CATALOG {
  return { capabilities: [...a.capabilities, ...b.capabilities], methods: [...a.methods, ...b.methods] };
}
