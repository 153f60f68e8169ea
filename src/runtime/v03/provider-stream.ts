import { errorText } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { CanonicalValueError, encodeCanonical } from "../../wire/canonical-frame.ts";
import { STREAM_EVENT_KINDS } from "./models.ts";
import { BOUNDS } from "./canonical-protocol.ts";
import type { ProviderEvent, ProviderStreamHandler, ProviderStreamRequest } from "./provider-types.ts";

const TERMINAL = new Set(["finished", "error"]);
const USAGE = ["input_tokens", "cache_read_tokens", "cache_write_tokens", "cache_write_1h_tokens", "output_tokens", "reasoning_tokens", "total_tokens"];
/** Each kind's payload members as octet decodes them (closed): `name` required, `name?` optional; `*` is free. */
const PAYLOADS: Record<string, { members: string[]; types: Record<string, "integer" | "string"> }> = {
  started: { members: ["response_id?"], types: { response_id: "string" } },
  text_start: { members: ["index"], types: { index: "integer" } },
  text_end: { members: ["index"], types: { index: "integer" } },
  reasoning_start: { members: ["index"], types: { index: "integer" } },
  reasoning_end: { members: ["index"], types: { index: "integer" } },
  tool_call_end: { members: ["index"], types: { index: "integer" } },
  text_delta: { members: ["index", "delta"], types: { index: "integer", delta: "string" } },
  reasoning_delta: { members: ["index", "delta"], types: { index: "integer", delta: "string" } },
  tool_call_args_delta: { members: ["index", "delta"], types: { index: "integer", delta: "string" } },
  tool_call_start: { members: ["index", "id", "name"], types: { index: "integer", id: "string", name: "string" } },
  usage: { members: USAGE.map((m) => `${m}?`), types: Object.fromEntries(USAGE.map((m) => [m, "integer" as const])) },
  finished: { members: ["stop_reason"], types: { stop_reason: "string" } },
};
/** Let the writer flush this often while a handler yields without waiting. */
const YIELD_EVERY = 64;

/**
 * One accepted `provider/stream`: runs the author's handler and sends each
 * event it yields as `provider/event` with sequence 0, 1, 2, … (octet
 * `dispatch_provider_stream_event`). A payload over 65,536 canonical bytes,
 * the 100,001st event, an unknown kind, a throw, or an end without `finished`
 * becomes one `error` event. After `cancel()` or a terminal event nothing more
 * is sent for the stream.
 */
export class ProviderStream {
  private readonly controller = new AbortController();
  private sequence = 0;
  private ended = false;

  constructor(
    readonly request: ProviderStreamRequest,
    private readonly send: (params: Record<string, unknown>) => void,
    private readonly log: Logger,
    private readonly onEnd: () => void,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** `provider/cancel` or the stream ending: no further event; the handler's signal aborts. */
  cancel(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.controller.abort(reason);
    this.onEnd();
  }

  /** Drive `handler` to its end (called once the acceptance is written). */
  async run(handler: ProviderStreamHandler): Promise<void> {
    const { stream_id: streamId, provider_id: providerId, model_id: modelId } = this.request;
    try {
      const events = handler(this.request, { streamId, providerId, modelId, signal: this.signal });
      for await (const event of events as AsyncIterable<ProviderEvent>) {
        if (this.ended) break;
        const problem = this.emit(event);
        if (problem) {
          this.fail(problem);
          break;
        }
        if (this.ended) break;
        if (this.sequence % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      if (!this.ended) this.fail("the stream handler ended without a finished event");
    } catch (error) {
      if (!this.ended) this.fail(errorText(error));
      else this.log.debug("provider stream handler stopped after the stream ended", { stream_id: streamId, error: errorText(error) });
    }
  }

  /** Send one event; a string says why it cannot be sent. */
  private emit(event: ProviderEvent): string | undefined {
    if (event === null || typeof event !== "object") return "a provider event must be an object {kind, payload}";
    const { kind, payload } = event as { kind: unknown; payload: unknown };
    if (typeof kind !== "string" || !(STREAM_EVENT_KINDS as readonly string[]).includes(kind)) return `unknown provider event kind ${JSON.stringify(kind)}`;
    const value = payload === undefined ? {} : payload;
    if (value === null || typeof value !== "object" || Array.isArray(value)) return `provider event ${kind}: payload must be an object`;
    const shape = payloadProblem(kind, value as Record<string, unknown>);
    if (shape) return `provider event ${kind}: ${shape}`;
    let bytes: number;
    try {
      bytes = Buffer.byteLength(encodeCanonical(value));
    } catch (error) {
      if (error instanceof CanonicalValueError) return `provider event ${kind}: ${error.message}`;
      throw error;
    }
    if (bytes > BOUNDS.max_provider_stream_event_bytes) return `provider event ${kind}: payload of ${bytes} bytes exceeds max_provider_stream_event_bytes ${BOUNDS.max_provider_stream_event_bytes}`;
    if (this.sequence >= BOUNDS.max_provider_stream_events - (TERMINAL.has(kind) ? 0 : 1)) return `the stream reached max_provider_stream_events ${BOUNDS.max_provider_stream_events}`;
    this.send({ kind, payload: value, sequence: this.sequence++, stream_id: this.request.stream_id });
    if (TERMINAL.has(kind)) this.finish();
    return undefined;
  }

  /** One terminal `error` event carrying `message`, then the end. */
  private fail(message: string): void {
    if (this.ended) return;
    this.log.error("provider stream failed", { stream_id: this.request.stream_id, error: message });
    const text = Buffer.byteLength(message) > 4096 ? `${Buffer.from(message).subarray(0, 4000).toString()}…` : message;
    try {
      this.send({ kind: "error", payload: { message: text }, sequence: this.sequence++, stream_id: this.request.stream_id });
    } catch (error) {
      this.log.error("provider stream error event not sent", { error: errorText(error) });
    }
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.controller.abort("finished");
    this.onEnd();
  }
}

/** Why `payload` is not what octet decodes for `kind` (closed members, integers ≥ 0, non-empty tool call id and name). */
function payloadProblem(kind: string, payload: Record<string, unknown>): string | undefined {
  const spec = PAYLOADS[kind];
  if (!spec) return undefined; // error, heartbeat: free
  const names = spec.members.map((m) => m.replace(/\?$/, ""));
  for (const key of Object.keys(payload)) if (!names.includes(key)) return `payload member ${JSON.stringify(key)} is not one of ${names.join(", ") || "(none)"}`;
  for (const member of spec.members) {
    const name = member.replace(/\?$/, "");
    const value = payload[name];
    if (value === undefined) {
      if (!member.endsWith("?")) return `payload.${name} is required`;
      continue;
    }
    if (spec.types[name] === "integer" && !(Number.isSafeInteger(value) && (value as number) >= 0)) return `payload.${name} must be an integer ≥ 0`;
    if (spec.types[name] === "string" && typeof value !== "string") return `payload.${name} must be a string`;
  }
  if (kind === "tool_call_start" && (payload.id === "" || payload.name === "")) return "payload id and name must not be empty";
  return undefined;
}
