/**
 * The exact handler type of each kind `manifest.toml` declares (docs/kinds.md):
 * what octet sends and what it accepts back, per hook, UI surface, renderer
 * and lifecycle event. `gen` builds the typed `Handlers` of a project from
 * these; they are narrower than the `ext.hook`/`ext.status`/… signatures, so
 * a misspelt key is a type error.
 */
import type { ContextEntry, ExecutionContext, HandlerContext, HookPayloads, JsonObject, NotificationParams, RenderSegment, Surface } from "./types.ts";
import type { LifecycleMethod } from "../protocol.ts";

type Awaitable<T> = T | Promise<T>;

/** What every hook may answer (docs/protocol-0.2.md §3.4); `null`/`undefined` continues. */
export interface HookAnswer {
  disposition?: { action: "continue" } | { action: "deny"; reason: string };
  context?: ContextEntry[];
  notifications?: NotificationParams[];
}

/** `post_mutation` payload (octet, API 0.2/0.4). */
export interface PostMutationPayload {
  mutation_id: string;
  kind: "configuration" | "resource" | "migration_ingestion";
  affected_resources: string[];
  generation: number;
  state: "committed" | "rolled_back";
}

/** `before_persistence` payload (octet, API 0.2/0.4). */
export interface BeforePersistencePayload {
  run_id: string;
  model: string;
  protocol: string;
  stop_reason: string | null;
  text_bytes: number;
  tool_call_count: number;
  reasoning_part_count: number;
  media_part_count: number;
}

/** What octet sends with each hook (`hook/run` `payload`). */
export type HookPayload<H extends keyof HookPayloads> = H extends "post_mutation" ? PostMutationPayload : H extends "before_persistence" ? BeforePersistencePayload : HookPayloads[H];

/** The answer of a session-operation hook (API 0.4): no prompt context, at most its own decision. */
export interface SessionHookAnswer<Decision, Deny extends boolean> {
  disposition?: Deny extends true ? HookAnswer["disposition"] : { action: "continue" };
  context?: [];
  notifications?: NotificationParams[];
  session_operation?: Decision;
}

/** What each hook may answer: the base keys plus its own typed field (docs/api-0.4.md "Hooks"). */
export interface HookAnswers {
  before_prompt: HookAnswer;
  after_response: HookAnswer;
  before_tool_call: HookAnswer;
  after_tool_call: HookAnswer;
  provider_retry: HookAnswer & { provider_retry?: "retry" | "stop" | { delay: { additional_delay_ms: number } } };
  before_persistence: HookAnswer & { persistence_metadata?: { value: unknown; public?: boolean } };
  post_mutation: HookAnswer & { post_mutation?: { action: "no_rescan" } | { action: "request_rescan"; resource_ids: string[] } };
  cache_warming_decision: HookAnswer & { cache_warming_decision?: "warm" | "stop" | null };
  /** octet fails the compaction without frames: 1–32 standard base64 PNGs. */
  compaction_strategy: HookAnswer & { compaction_frames: string[] };
  session_before_compact: SessionHookAnswer<{ action: "continue" } | { action: "cancel" } | { action: "replace_compaction"; replacement: { summary: string; first_kept: string } }, true>;
  session_before_tree: SessionHookAnswer<{ action: "continue" } | { action: "cancel" }, true>;
  session_compact: SessionHookAnswer<{ action: "continue" }, false>;
  session_tree: SessionHookAnswer<{ action: "continue" }, false>;
  model_turn_start: SessionHookAnswer<{ action: "continue" }, false>;
  model_turn_end: SessionHookAnswer<{ action: "continue" }, false>;
}

/** What the handler of hook `H` returns: its answer, or `null` to continue (not for `compaction_strategy`). */
export type HookResult<H extends keyof HookAnswers> = H extends "compaction_strategy" ? HookAnswers[H] : HookAnswers[H] | null | undefined;

/** The handler of hook `H` (`contributes.hooks`). */
export type HookSlot<H extends keyof HookAnswers> = (payload: HookPayload<H>, ctx: HandlerContext) => Awaitable<HookResult<H>>;

/** A status item (docs/protocol-0.2.md §3.6): `surface` defaults to the one asked for; higher `priority` is kept first (i32). */
export interface StatusItem<S extends Surface = Surface> {
  text: string;
  style_role?: string | null;
  priority?: number;
  surface?: S;
}

/** The handler of UI surface `S` (`contributes.ui`): `null` shows nothing. */
export type StatusSlot<S extends Surface = Surface> = (params: { surface: S; context: ExecutionContext }, ctx: HandlerContext) => Awaitable<StatusItem<S> | null | undefined>;

/** The context provider (`contributes.context = true`): entries for the prompt (`placement` defaults to `prompt_suffix`). */
export type ContextSlot = (params: { prompt: string | null; context: ExecutionContext }, ctx: HandlerContext) => Awaitable<ContextEntry[] | null | undefined>;

/** What octet sends a renderer: the call as the model made it (arguments unchecked) and its outcome. */
export interface RenderParams<N extends string = string> {
  name: N;
  arguments: JsonObject;
  output: string | null;
  is_error: boolean;
  context: ExecutionContext;
}

/** A renderer's answer: styled segments (`style_role` null for none). */
export interface RenderResult {
  segments: RenderSegment[];
}

/** The handler of tool renderer `N` (`contributes.tool_renderers`): segments, or a string for one unstyled segment. */
export type RendererSlot<N extends string = string> = (params: RenderParams<N>, ctx: HandlerContext) => Awaitable<RenderResult | string | null | undefined>;

/** How a session, turn or tool ended (docs/protocol-0.2.md §3.10). */
export type LifecycleOutcome = "completed" | "failed" | "cancelled" | "interrupted" | "frontend_disconnected" | "shutdown" | "limit_reached";

interface Settled {
  outcome: LifecycleOutcome;
  duration_ms: number;
  reason: string | null;
}

/** What octet sends with each lifecycle notification (API 0.2/0.4, feature `lifecycle_events`). */
export interface LifecyclePayloads {
  "session/started": { session_id: string; run_id: string | null };
  "session/settled": { session_id: string; run_id: string | null } & Settled;
  "turn/started": { session_id: string; run_id: string; turn_id: string };
  "turn/settled": { session_id: string; run_id: string; turn_id: string } & Settled;
  "tool/started": { session_id: string; run_id: string; turn_id: string; tool_call_id: string; tool_name: string };
  "tool/settled": { session_id: string; run_id: string; turn_id: string; tool_call_id: string; tool_name: string } & Settled;
}

/** Observers of lifecycle events, each optional: octet sends exactly the events handled here. */
export type LifecycleSlots = { [E in LifecycleMethod]?: (params: LifecyclePayloads[E]) => Awaitable<void> };
