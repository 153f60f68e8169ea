import type { RequestId } from "../wire/ids.ts";
import type { CancellationToken } from "./cancellation.ts";

/** A JSON object. */
export type JsonObject = { [key: string]: unknown };

/** Extension API versions of the legacy wire: 0.1 (frozen), and 0.2 and 0.4 (one feature-negotiated wire). */
export type ApiVersion = "0.1" | "0.2" | "0.4";

/** `resource_owner` triple (API 0.2, docs/protocol-0.2.md §6.2). Opaque: key session state by all three. */
export interface ResourceOwner {
  session_id: string;
  extension_instance_id: string;
  process_generation: number;
}

/** `ExtensionHostState` (docs/protocol-0.2.md §6.1). */
export interface HostState {
  session_id: string | null;
  session_name: string | null;
  model: string | null;
  reasoning: unknown;
  active_skills: { id: string; name: string; version: string | null }[];
}

/** `params.context` as the host sends it with every request but initialize and shutdown (docs/protocol-0.2.md §3). */
export interface ExecutionContext {
  workspace?: string;
  execution_scope?: string | null;
  resource_owner?: ResourceOwner;
  host?: HostState;
  [key: string]: unknown;
}

/** The second argument of every request handler. */
export interface HandlerContext {
  /** `params.context` from the host (`{}` when absent). */
  readonly context: ExecutionContext;
  /** Id of the host request being handled (type-exact). */
  readonly requestId: RequestId;
  /** Host method being handled, e.g. `"tool/call"`. */
  readonly method: string;
  /** Cooperative cancellation (API 0.2 hosts cancel; on 0.1 only drain deadlines do). */
  readonly cancellation: CancellationToken;
  /** Same as `cancellation.signal`: pass it to `fetch`, `Bun.spawn`, … (created on first access) */
  readonly signal: AbortSignal;
  /** The active workspace root (`context.workspace`, else initialize's `workspace`, else `OCTET_WORKSPACE`). */
  readonly workspace: string;
  /** This process generation's scratch directory (`OCTET_EXTENSION_SCRATCH`); throws outside a host. */
  readonly scratch: string;
  /**
   * The host, bound to this request: the calls `ext` has (`ctx.host.user.confirm()`,
   * `ctx.host.agents.spawn()`, `ctx.host.progress()`, …) with this request as
   * their parent and cancellation, wherever `ctx` is passed (made on first access).
   */
  readonly host: import("./host-handle.ts").Host;
}

type Awaitable<T> = T | Promise<T>;

/** Content part of an API 0.2 tool result (docs/protocol-0.2.md §6.5). */
export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image"; artifact_id: string; mime_type: string; alt?: string }
  | { type: "audio"; artifact_id: string; mime_type: string; transcript?: string };

/**
 * A tool result object (docs/protocol-0.2.md §3.2, §8.6): only these fields, so TypeScript
 * names a wrong one (`isError`, `text`) in a handler whose return type is
 * `ToolReturn`, as the stubs `gen` writes are.
 */
export interface ToolResult {
  /** A string is one text part; API 0.1 sends it as is. */
  content?: string | ContentPart[];
  is_error?: boolean;
  metadata?: unknown;
  /** API 0.2/0.4: required by a declared `output_schema` (unless `is_error`). */
  structured_content?: unknown;
  /** API 0.2/0.4: typed diagnostics, sent as `metadata.octet_diagnostics_v1` plus a summary text part. */
  diagnostics?: import("./diagnostics.ts").Diagnostic[];
}

/**
 * What a tool handler may return (normalised per docs/protocol-0.2.md §8.4): a string is the
 * result's text, `null`/`undefined` an empty result. Numbers and booleans are
 * left out on purpose (docs/manifest.md, "Tool results"): return `String(n)` or a
 * result object.
 */
export type ToolReturn = string | null | undefined | ToolResult;

/** A user-facing notification (docs/protocol-0.2.md §4.1). */
export interface NotificationParams {
  level?: "info" | "success" | "warning" | "error";
  title?: string | null;
  message: string;
}

/** Where a context contribution is placed (default `prompt_suffix`). */
export type ContextPlacement = "system_prefix" | "system_suffix" | "prompt_prefix" | "prompt_suffix";

/** A context contribution (docs/protocol-0.2.md §3.5, §4.3). */
export interface ContextEntry {
  label: string;
  content: string;
  placement?: ContextPlacement;
}

/** UI surfaces (docs/protocol-0.2.md §2.4). */
export type Surface = "status" | "header" | "footer";

/** A status contribution (docs/protocol-0.2.md §6.6). */
export interface StatusEntry {
  surface?: Surface;
  text?: string;
  style_role?: string | null;
  priority?: number;
}

/** One segment of a rendered tool (docs/protocol-0.2.md §3.7). */
export interface RenderSegment {
  text: string;
  style_role: string | null;
}

/** Command result (docs/protocol-0.2.md §3.3). */
export type CommandReturn =
  | string
  | null
  | undefined
  | { text?: string; notifications?: NotificationParams[]; context?: ContextEntry[] };

/** Hook result (docs/protocol-0.2.md §3.4). */
export type HookReturn =
  | null
  | undefined
  | {
      disposition?: { action: "continue" } | { action: "deny"; reason: string };
      context?: ContextEntry[];
      notifications?: NotificationParams[];
      [typed: string]: unknown;
    };

/** Legacy hook names and their payloads (docs/protocol-0.2.md §3.4). */
export interface HookPayloads {
  before_prompt: { prompt: string };
  after_response: { response: string };
  before_tool_call: { name: string; arguments: JsonObject };
  after_tool_call: { name: string; arguments: JsonObject; output: string; is_error: boolean };
  provider_retry: JsonObject;
  before_persistence: JsonObject;
  post_mutation: JsonObject;
  /** API 0.4: octet asks whether to keep the provider's prompt cache warm; answer `cache_warming_decision`. */
  cache_warming_decision: {
    decision: {
      phase: "idle" | "streaming";
      warm_cost_microdollars: number;
      miss_cost_microdollars: number;
      continuation_probability: number;
      expected_savings_microdollars: number;
      economics_available: boolean;
      /** octet's own choice; the last extension to answer overrides it. */
      action: "warm" | "stop";
    };
    model: string;
  };
  /** API 0.4: compact `text` for a vision model; answer `compaction_frames` (base64 PNGs). */
  compaction_strategy: { model_id: string; text: string };
  /** API 0.4 (`session_entries`): before a compaction; may `cancel` or `replace_compaction`. */
  session_before_compact: { kind: "before_compact"; reason: "manual" | "threshold" | "overflow"; first_kept: string; preparation: JsonObject; branch_entries: JsonObject[]; custom_instructions: string | null };
  /** API 0.4 (`session_entries`): a compaction was committed (observation). */
  session_compact: JsonObject & { kind: "compacted" | "compaction_callback" };
  /** API 0.4 (`session_entries`): before moving in the session tree; may `cancel`. */
  session_before_tree: { kind: "before_tree"; target_id: string | null; old_head: string | null };
  /** API 0.4 (`session_entries`): the session head moved (observation). */
  session_tree: { kind: "tree"; old_head: string | null; new_head: string | null };
  /** API 0.4 (`session_entries`): a model turn starts (observation). */
  model_turn_start: { kind: "model_turn_start"; run_id: string; turn_index: number; timestamp_ms: number };
  /** API 0.4 (`session_entries`): a model turn ended (observation). */
  model_turn_end: { kind: "model_turn_end"; run_id: string; turn_index: number; timestamp_ms: number; assistant_entry: JsonObject; tool_result_entries: JsonObject[] };
}
export type HookName = keyof HookPayloads;

export type ToolHandler<Args = JsonObject> = (args: Args, ctx: HandlerContext) => Awaitable<ToolReturn>;
export type CommandHandler = (args: string[], ctx: HandlerContext) => Awaitable<CommandReturn>;
export type HookHandler<H extends HookName = HookName> = (payload: HookPayloads[H], ctx: HandlerContext) => Awaitable<HookReturn>;
export type ContextHandler = (
  params: { prompt: string | null; context: ExecutionContext },
  ctx: HandlerContext,
) => Awaitable<ContextEntry[] | null | undefined>;
export type StatusHandler = (
  params: { surface: Surface; context: ExecutionContext },
  ctx: HandlerContext,
) => Awaitable<StatusEntry | null | undefined>;
export type RendererHandler = (
  params: { name: string; arguments: JsonObject; output: string | null; is_error: boolean; context: ExecutionContext },
  ctx: HandlerContext,
) => Awaitable<{ segments?: RenderSegment[] } | string | null | undefined>;
export type ShutdownHandler = (params: JsonObject, ctx: HandlerContext) => Awaitable<void>;
/** `menu/collect` (API 0.2/0.4, `contributes.menu = true`); see `Menu` in menu.ts. */
export type MenuHandler = (params: { context: ExecutionContext }, ctx: HandlerContext) => Awaitable<import("./menu.ts").Menu>;
/** `shortcut/execute`: the user pressed a key declared in `contributes.shortcuts` (API 0.2/0.4). */
export type ShortcutHandler = (params: { name: string; context: ExecutionContext }, ctx: HandlerContext) => Awaitable<CommandReturn>;
export type LifecycleHandler = (params: JsonObject) => Awaitable<void>;

/** A tool definition as sent in the initialize reply (docs/protocol-0.2.md §6.3). */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonObject;
  output_schema?: JsonObject;
  /** API 0.4 (`tool_prompt_metadata_v1`): one line octet adds to the system prompt for this tool. */
  prompt_snippet?: string;
  /** API 0.4 (`tool_prompt_metadata_v1`): usage guidelines octet adds to the system prompt. */
  prompt_guidelines?: string[];
  /** API 0.4 (`operation_descriptors_v1`): resource input and output paths. */
  operation?: JsonObject;
}

/** A command definition as sent in the initialize reply (docs/protocol-0.2.md §6.4). */
export interface CommandDefinition {
  name: string;
  description: string;
  usage?: string;
}
