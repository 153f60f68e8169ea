/**
 * Events of protocol 1 (docs/native-host-protocol.md §7) and the shape checks the client
 * makes on the ones it understands (§15.10). Unknown event types and extra
 * keys pass through untouched.
 */
/** A plain JSON object: not `null`, not an array. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export type Usage = {
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  [more: string]: unknown;
};

export type RunStatus = "completed" | "blocked" | "error";

export interface FinalResultData {
  status: RunStatus;
  output: string;
  error: string;
  filesChanged: string[];
  toolCalls: number;
  steps: number;
  sessionFile: string;
  [more: string]: unknown;
}

/** Data of the event types the client knows, by type. */
export interface EventDataByType {
  hello: Record<string, unknown>;
  models: { models: ModelInfo[] };
  shutdown: { accepted: boolean };
  accepted: { model: string; resolved_model: string; session_file: string; registered_tools: string[]; effective_tool_policy?: Record<string, unknown>; extensions: unknown[] };
  started: { model: string };
  model_delta: { channel: "text" | "reasoning"; text: string };
  output_media: { index: number; kind: "image" | "audio"; payload_omitted: true; [more: string]: unknown };
  provider_lifecycle: { state: "queued" | "loading" | "ready"; detail: string | null };
  provider_retry: { attempt: number; max_attempts: number; delay_ms: number; error: string };
  provider_waiting_for_network: { attempt: number; delay_ms: number; error: string };
  provider_operation_retry: { operation: string; attempt: number; max_attempts: number | null; delay_ms: number; error: string };
  provider_usage_uncertain: Record<string, never>;
  candidate_rejected: { run_usage: Usage; run_cost_microdollars: number; session_cost_microdollars?: number | null; discard_provisional_output: true };
  tool_start: { toolCallId: string; toolName: string; input: unknown };
  tool_policy: { toolCallId: string; toolName: string; decision: { effect?: string; allowed: boolean; authorization?: string; denial_code?: string; policy: Record<string, unknown> } };
  tool_progress: { toolCallId: string; progress: { type: string; [more: string]: unknown } };
  tool_finish: { toolCallId: string; ok: boolean; output: string; error: string };
  model_step: { step: number; turn_usage: Usage; run_usage: Usage; session_cost_microdollars: number | null; run_cost_microdollars: number };
  steering_delivered: { messages: string[] };
  follow_up_delivered: { messages: string[] };
  compaction_start: { reason: string };
  compaction_finish: { reason: string; ok: boolean; [more: string]: unknown };
  extension_notification: { message: string };
  settled: { status: RunStatus; head: string; error: string };
  final_result: FinalResultData;
  protocol_error: { error: string; [more: string]: unknown };
}

export type KnownEventType = keyof EventDataByType;

/** One event as the host wrote it (envelope fields included). */
export type HostEvent = {
  [T in KnownEventType]: { type: T; data: EventDataByType[T]; seq: number; request_id: string; run_id?: string; session_id?: string };
}[KnownEventType];

/**
 * An event of a type this client does not know (newer hosts add some, e.g.
 * `provider_inference`), passed through with its type in `hostType`.
 */
export interface UnknownHostEvent {
  type: "unknown";
  hostType: string;
  data: Record<string, unknown>;
  seq: number;
  request_id: string;
  run_id?: string;
  session_id?: string;
}

export interface ModelInfo {
  id: string;
  provider: string;
  api_name: string;
  display_name: string | null;
  protocol: string;
  context_window: number;
  max_output_tokens: number;
  tools: boolean;
  vision: boolean;
  audio: boolean;
  input_modalities: string[];
  reasoning: boolean;
  [more: string]: unknown;
}

const KNOWN: Record<KnownEventType, true> = {
  hello: true, models: true, shutdown: true, accepted: true, started: true, model_delta: true, output_media: true,
  provider_lifecycle: true, provider_retry: true, provider_waiting_for_network: true, provider_operation_retry: true,
  provider_usage_uncertain: true, candidate_rejected: true, tool_start: true, tool_policy: true, tool_progress: true,
  tool_finish: true, model_step: true, steering_delivered: true, follow_up_delivered: true, compaction_start: true,
  compaction_finish: true, extension_notification: true, settled: true, final_result: true, protocol_error: true,
};

export function isKnownEventType(type: string): type is KnownEventType {
  return Object.hasOwn(KNOWN, type);
}

const MODEL_SHAPE: Record<string, Check> = {
  id: "string",
  provider: "string",
  api_name: "string",
  display_name: "string|null",
  protocol: "string",
  context_window: "int",
  max_output_tokens: "int",
  tools: "bool",
  vision: "bool",
  audio: "bool",
  input_modalities: "strings",
  reasoning: "bool",
};

export const TERMINAL_TYPES: ReadonlySet<string> = new Set(["hello", "models", "shutdown", "final_result", "protocol_error"]);

type Check = "string" | "int" | "bool" | "true" | "object" | "array" | "usage" | "string|null" | "int|null" | "strings" | readonly string[];

/** Required keys of the known types (types checked; extra keys tolerated). */
const SHAPES: Partial<Record<KnownEventType, Record<string, Check>>> = {
  models: { models: "array" },
  shutdown: { accepted: "bool" },
  accepted: { model: "string", resolved_model: "string", session_file: "string", registered_tools: "strings", extensions: "array" },
  started: { model: "string" },
  model_delta: { channel: ["text", "reasoning"], text: "string" },
  output_media: { index: "int", kind: ["image", "audio"], payload_omitted: "true" },
  provider_lifecycle: { state: ["queued", "loading", "ready"], detail: "string|null" },
  provider_retry: { attempt: "int", max_attempts: "int", delay_ms: "int", error: "string" },
  provider_waiting_for_network: { attempt: "int", delay_ms: "int", error: "string" },
  provider_operation_retry: { operation: "string", attempt: "int", max_attempts: "int|null", delay_ms: "int", error: "string" },
  provider_usage_uncertain: {},
  candidate_rejected: { run_usage: "usage", run_cost_microdollars: "int", discard_provisional_output: "true" },
  tool_start: { toolCallId: "string", toolName: "string" },
  tool_policy: { toolCallId: "string", toolName: "string", decision: "object" },
  tool_progress: { toolCallId: "string", progress: "object" },
  tool_finish: { toolCallId: "string", ok: "bool", output: "string", error: "string" },
  model_step: { step: "int", turn_usage: "usage", run_usage: "usage", session_cost_microdollars: "int|null", run_cost_microdollars: "int" },
  steering_delivered: { messages: "strings" },
  follow_up_delivered: { messages: "strings" },
  compaction_start: { reason: "string" },
  compaction_finish: { reason: "string", ok: "bool" },
  extension_notification: { message: "string" },
  settled: { status: ["completed", "blocked", "error"], head: "string", error: "string" },
  final_result: {
    status: ["completed", "blocked", "error"],
    output: "string",
    error: "string",
    filesChanged: "strings",
    toolCalls: "int",
    steps: "int",
    sessionFile: "string",
  },
  protocol_error: { error: "string" },
};

const USAGE_KEYS = ["input_tokens", "cache_read_tokens", "cache_write_tokens", "cache_write_1h_tokens", "output_tokens", "reasoning_tokens", "total_tokens"];

function matches(check: Check, value: unknown): boolean {
  if (Array.isArray(check)) return check.includes(value as string);
  switch (check) {
    case "true":
      return value === true;
    case "usage":
      return isObject(value) && USAGE_KEYS.every((key) => Number.isSafeInteger(value[key]));
    case "string":
      return typeof value === "string";
    case "int":
      return Number.isSafeInteger(value);
    case "bool":
      return typeof value === "boolean";
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "strings":
      return Array.isArray(value) && value.every((v) => typeof v === "string");
    case "string|null":
      return value === null || typeof value === "string";
    case "int|null":
      return value === null || Number.isSafeInteger(value);
  }
  return false;
}

/** Why `data` is not a valid payload for a known event `type`, or undefined. */
export function checkEventData(type: string, data: Record<string, unknown>): string | undefined {
  const shape = SHAPES[type as KnownEventType];
  if (!shape) return undefined;
  for (const [key, check] of Object.entries(shape)) {
    if (matches(check, data[key])) continue;
    const usage = data[key];
    if (check === "usage" && isObject(usage)) {
      const bad = USAGE_KEYS.find((k) => !Number.isSafeInteger(usage[k]))!;
      return `${type}.data.${key}.${bad} is ${JSON.stringify(usage[bad]) ?? "missing"}, expected int`;
    }
    return `${type}.data.${key} is ${JSON.stringify(data[key]) ?? "missing"}, expected ${Array.isArray(check) ? check.join("|") : check}`;
  }
  return checkNested(type, data);
}

/** Required members one level down (model entries, tool progress and decisions). */
function checkNested(type: string, data: Record<string, unknown>): string | undefined {
  if (type === "models") {
    for (const [i, model] of (data.models as unknown[]).entries()) {
      const entry = isObject(model) ? model : {};
      for (const [key, check] of Object.entries(MODEL_SHAPE)) {
        if (!matches(check, entry[key])) return `models.data.models[${i}].${key} is ${JSON.stringify(entry[key]) ?? "missing"}, expected ${check}`;
      }
    }
  }
  if (type === "tool_progress" && typeof (data.progress as Record<string, unknown>).type !== "string") return "tool_progress.data.progress.type is not a string";
  if (type === "tool_policy") {
    const decision = data.decision as Record<string, unknown>;
    if (typeof decision.allowed !== "boolean") return "tool_policy.data.decision.allowed is not a boolean";
    if (!isObject(decision.policy)) return "tool_policy.data.decision.policy is not an object";
  }
  return undefined;
}
