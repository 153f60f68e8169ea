/**
 * The per-request event rules a client enforces (docs/native-host-protocol.md §8, §15.3–8):
 * envelope types, request id (or `invalid` for an error the host could not
 * attribute), seq from 1 without gaps, run/session id echoes, one terminal
 * event, and the terminal types each command may end with.
 */
import { checkEventData, isKnownEventType, TERMINAL_TYPES } from "./events.ts";
import type { Command } from "./requests.ts";

/** An event whose envelope passed the checks. */
export type RawEvent = { type: string; data: Record<string, unknown>; seq: number; request_id: string; run_id?: string; session_id?: string; [more: string]: unknown };

export type Checked =
  | { ok: true; event: RawEvent; terminal: boolean }
  | { ok: false; violation: string };

const TERMINAL_FOR: Record<Command, readonly string[]> = {
  hello: ["hello", "protocol_error"],
  models: ["models", "protocol_error"],
  shutdown: ["shutdown", "protocol_error"],
  run: ["final_result", "protocol_error"],
};

export class RequestTracker {
  private seq = 0;
  private done = false;

  constructor(
    readonly command: Command,
    readonly requestId: string,
    readonly runId?: string,
    readonly sessionId?: string,
  ) {}

  check(frame: Record<string, unknown>): Checked {
    const fail = (violation: string): Checked => ({ ok: false, violation });
    if (frame.protocol_version !== 1) return fail(`event protocol_version is ${JSON.stringify(frame.protocol_version)}, expected the integer 1`);
    const { request_id: id, seq, type, data } = frame;
    if (typeof id !== "string") return fail("event request_id is not a string");
    if (typeof type !== "string") return fail("event type is not a string");
    if (!Number.isSafeInteger(seq) || (seq as number) < 1) return fail(`event seq ${JSON.stringify(seq)} is not a positive integer`);
    if (typeof data !== "object" || data === null || Array.isArray(data)) return fail(`${type} event data is not an object`);
    if (this.done) return fail(`${type} event for request ${JSON.stringify(id)} after its terminal event`);
    const unattributed = id === "invalid";
    if (unattributed) {
      // The host could not read the request's id: only a first, terminal protocol_error is possible.
      if (type !== "protocol_error" || seq !== 1 || this.seq !== 0) return fail(`unexpected ${type} event (seq ${seq}) under request_id "invalid"`);
    } else if (id !== this.requestId) {
      return fail(`event for unknown request_id ${JSON.stringify(id)} (in flight: ${JSON.stringify(this.requestId)})`);
    }
    if (seq !== this.seq + 1) return fail(`seq ${seq} after ${this.seq} for request ${JSON.stringify(this.requestId)} (gap or repeat)`);
    if (this.command === "run") {
      const scoped = !(type === "protocol_error" && seq === 1);
      if (frame.run_id !== undefined && frame.run_id !== this.runId) return fail(`run_id ${JSON.stringify(frame.run_id)} does not match the run's ${JSON.stringify(this.runId)}`);
      if (scoped && frame.run_id === undefined) return fail(`${type} event (seq ${seq}) lacks run_id`);
      if (this.sessionId === undefined && frame.session_id !== undefined) return fail(`session_id ${JSON.stringify(frame.session_id)} on an event of a run sent without one`);
      if (this.sessionId !== undefined && (scoped || frame.session_id !== undefined) && frame.session_id !== this.sessionId) {
        return fail(`session_id ${JSON.stringify(frame.session_id) ?? "missing"} does not match the run's ${JSON.stringify(this.sessionId)}`);
      }
      if (TERMINAL_TYPES.has(type) && !TERMINAL_FOR.run.includes(type)) return fail(`a run cannot end with a ${type} event`);
    } else {
      if (!TERMINAL_FOR[this.command].includes(type)) return fail(`${this.command} request answered with a ${type} event`);
      if (frame.run_id !== undefined || frame.session_id !== undefined) return fail(`${type} event carries run_id/session_id, which only run events have`);
    }
    const shape = checkEventData(type, data as Record<string, unknown>);
    if (shape) return fail(shape);
    if (this.command === "run") {
      const order = this.order.check(type);
      if (order) return fail(`${order} (seq ${seq})`);
    }
    this.seq = seq as number;
    const terminal = TERMINAL_TYPES.has(type);
    if (terminal) this.done = true;
    return { ok: true, event: frame as RawEvent, terminal };
  }

  private readonly order = new RunOrder();
}

/** Events that only occur while the run streams (between `accepted` and `settled`). */
const STREAMING = new Set([
  "model_delta", "output_media", "provider_lifecycle", "provider_retry", "provider_waiting_for_network", "provider_operation_retry",
  "provider_usage_uncertain", "candidate_rejected", "tool_start", "tool_policy", "tool_progress", "tool_finish", "model_step",
  "steering_delivered", "follow_up_delivered", "compaction_start", "compaction_finish",
]);

/**
 * The order of a run's events (docs/native-host-protocol.md §8) where the spec states it: a run
 * opens with `accepted` or its terminal event (`final_result`,
 * `protocol_error`), `started` comes once and after `accepted`, and after
 * `settled` only `extension_notification` and the terminal event follow.
 * Rules the spec only infers (tool call ids, `settled` after `started`) are
 * left alone: breaking them must not cost a working host. Unknown types pass
 * anywhere.
 */
class RunOrder {
  private phase: "open" | "accepted" | "started" | "settled" = "open";

  check(type: string): string | undefined {
    const phase = this.phase;
    if (type === "protocol_error" || !isKnownEventType(type)) return undefined;
    if (phase === "open" && type !== "accepted" && type !== "final_result") return `a run must open with accepted or a terminal event, not ${type}`;
    if (type === "final_result" || type === "extension_notification") return undefined;
    if (type === "accepted") {
      if (phase !== "open") return "accepted twice";
      this.phase = "accepted";
    } else if (type === "started") {
      if (phase !== "accepted") return `started in phase ${phase}`;
      this.phase = "started";
    } else if (type === "settled") {
      if (phase === "settled") return "settled twice";
      this.phase = "settled";
    } else if (STREAMING.has(type) && phase === "settled") {
      return `${type} after settled`;
    }
    return undefined;
  }
}
