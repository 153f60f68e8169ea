/**
 * What a provider author writes on API 0.3 (docs/api-0.3.md "Providers"): the
 * declaration sent in `providers/register`, the stream request octet sends,
 * and the events a stream handler yields (payloads as octet's
 * `provider_stream.rs` decodes them: closed objects, indexes from 0).
 */
import type { JsonObject } from "../types.ts";

/** `ProviderAuthRequirement`: `none`, or what octet's policy must grant. */
export interface ProviderAuth {
  kind: "none" | "oauth" | "host_credential";
  subject?: string;
  scopes?: string[];
}

/** `ProviderModelDefinition` (ids ≤ 64 bytes, integers only). */
export interface ProviderModel {
  id: string;
  api_name: string;
  protocol: "openai_chat" | "openai_responses" | "anthropic_messages";
  context_window: number;
  max_output_tokens: number;
  capabilities: { tools: boolean; parallel_tool_calls: boolean; structured_output: boolean; reasoning: boolean };
  display_name?: string;
}

/** A provider as declared: `ProviderDefinition` plus its models; `auth` defaults to `{kind: "none"}`. */
export interface ProviderDeclaration {
  id: string;
  label: string;
  auth?: ProviderAuth;
  models: ProviderModel[];
}

/** `ProviderStreamRequest`: one inference octet routes to a registered model. */
export interface ProviderStreamRequest {
  stream_id: string;
  provider_id: string;
  model_id: string;
  /** octet's request as octet encodes it (model, messages, tools, …). */
  request: JsonObject;
  authorization_lease?: string;
}

/** How octet's stream ended a turn (`finished`). */
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "refusal";

/**
 * One event a stream handler yields; the runtime numbers them. `finished` and
 * `error` end the stream. Payloads are closed as octet decodes them (the
 * runtime refuses other members; `started` admits them in the type only so
 * that `yield { kind: "started", payload: {} }` type-checks in a generator).
 */
export type ProviderEvent =
  | { kind: "started"; payload: { response_id?: string; [other: string]: unknown } }
  | { kind: "text_start" | "text_end" | "reasoning_start" | "reasoning_end" | "tool_call_end"; payload: { index: number } }
  | { kind: "text_delta" | "reasoning_delta" | "tool_call_args_delta"; payload: { index: number; delta: string } }
  | { kind: "tool_call_start"; payload: { index: number; id: string; name: string } }
  | {
      kind: "usage";
      payload: Partial<Record<"input_tokens" | "cache_read_tokens" | "cache_write_tokens" | "cache_write_1h_tokens" | "output_tokens" | "reasoning_tokens" | "total_tokens", number>>;
    }
  | { kind: "finished"; payload: { stop_reason: StopReason } }
  | { kind: "error"; payload: JsonObject }
  | { kind: "heartbeat"; payload: JsonObject };

export type ProviderEventKind = ProviderEvent["kind"];

/** The second argument of a stream handler. `signal` aborts on `provider/cancel` or when the stream ends. */
export interface ProviderStreamContext {
  readonly streamId: string;
  readonly providerId: string;
  readonly modelId: string;
  readonly signal: AbortSignal;
}

/** A stream handler: yields events in order; the runtime sends each as `provider/event` with the next sequence number. */
export type ProviderStreamHandler = (request: ProviderStreamRequest, ctx: ProviderStreamContext) => AsyncGenerator<ProviderEvent, void, unknown> | AsyncIterable<ProviderEvent>;

/** What serves a provider's models. */
export interface ProviderHandlers {
  /** Serves `provider/stream` for the provider's models (selects `provider_stream`). */
  stream?: ProviderStreamHandler;
  /** Decide before accepting: `true` accepts, a string refuses with that reason. Unknown models are refused before this runs. */
  accept?: (request: ProviderStreamRequest) => true | string | Promise<true | string>;
  /** Also select `providers/update` and `providers/unregister` (when offered) for `ext.providers.update/unregister`. */
  updates?: boolean;
}

/** `ProviderCatalogResult`: the host's catalog after a register/update/unregister. */
export interface ProviderCatalogResult {
  revision: number;
  provider_ids: string[];
  model_ids: string[];
}

/** `ProviderAuthorizationResult`. */
export interface ProviderAuthorizationResult {
  status: "ready" | "pending" | "denied" | "unavailable" | "revoked";
  lease?: string;
}

/** The provider calls an author makes after initialize (`ext.providers`). */
export interface ProviderCalls {
  /** `providers/update`: replace a provider's definition and models. */
  update(declaration: ProviderDeclaration): Promise<ProviderCatalogResult>;
  /** `providers/unregister`: remove a provider; its streams are cancelled. */
  unregister(providerId: string): Promise<ProviderCatalogResult>;
  /** `provider/auth/request` (action `authorize`, or `refresh`). */
  authorize(providerId: string, options?: { action?: "authorize" | "refresh"; interactive?: boolean; scopes?: string[] }): Promise<ProviderAuthorizationResult>;
  /** `provider/auth/revoke`. */
  revoke(providerId: string, options?: { interactive?: boolean }): Promise<ProviderAuthorizationResult>;
  /** The last catalog result the host answered, if any. */
  readonly catalog: ProviderCatalogResult | undefined;
}
