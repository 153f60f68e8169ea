/** TypeScript shapes of the API 0.3 models the runtime reads and writes (`models.ts` holds their rules). */
import type { HandlerContext } from "../types.ts";
import type { SessionHookName } from "./canonical-protocol.ts";

/** `ProtocolLimits`. */
export interface ProtocolLimits {
  max_frame_bytes: number;
  max_concurrent_requests: number;
  max_tools: number;
}

/** `ContractOffer`: what the host offers in `initialize.params.contract`. */
export interface ContractOffer {
  schema: string;
  encoding: string;
  required_capabilities: string[];
  optional_capabilities: string[];
  required_methods: string[];
  optional_methods: string[];
  limits: ProtocolLimits;
}

/** `ContractSelection`: what the extension selects in its initialize result. */
export interface ContractSelection {
  schema: string;
  encoding: string;
  capabilities: string[];
  methods: string[];
  limits: ProtocolLimits;
}

/** `InitializeRequest` (API 0.3). */
export interface InitializeRequest03 {
  api_version: "0.3";
  octet_version: string;
  extension: Record<string, unknown>;
  workspace: string;
  capabilities: Record<string, unknown>;
  contributes: Record<string, unknown>;
  flag_values: { name: string; value: unknown }[];
  host: unknown;
  contract: ContractOffer;
}

/** `ToolDefinition` (API 0.3). */
export interface ToolDefinition03 {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
}

/** `SessionBinding`: opaque host-owned ids of one session-hook binding. */
export interface SessionBinding {
  session_id: string;
  extension_instance_id: string;
  process_generation: number;
}

/** `session_start` payload. */
export interface SessionStartPayload {
  binding: SessionBinding;
}

/** `session_end` payload. */
export interface SessionEndPayload {
  binding: SessionBinding;
  outcome: "completed" | "failed" | "cancelled" | "interrupted" | "frontend_disconnected" | "shutdown" | "limit_reached";
  reason: "shutdown" | "reload" | "crash" | "cancelled";
  duration_ms: number;
}

export interface SessionHookPayloads {
  session_start: SessionStartPayload;
  session_end: SessionEndPayload;
}

/** `Disposition`: `deny` and `defer` need a reason (≤ 4,096 bytes); octet records them but keeps ownership of the session. */
export type Disposition = { kind: "continue"; reason?: string } | { kind: "deny" | "defer"; reason: string };

/** What a session hook handler returns: nothing (continue), a disposition, or `{ disposition }`. */
export type SessionHookReturn = void | null | undefined | Disposition | { disposition: Disposition };

/** A handler for `session_start` / `session_end` (API 0.3, `hook/run`). */
export type SessionHookHandler<H extends SessionHookName = SessionHookName> = (
  payload: SessionHookPayloads[H],
  ctx: HandlerContext,
) => SessionHookReturn | Promise<SessionHookReturn>;
