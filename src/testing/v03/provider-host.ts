/**
 * The test host's provider registry and stream ingress on API 0.3, restated
 * from octet (`provider_stream.rs` `dispatch_provider_stream_event`,
 * `decode_provider_stream_event`; docs/protocol-0.3.md §4) apart from the
 * runtime: catalog answers with a revision counter, and a strict check of
 * every `provider/event` (a stream the host opened, contiguous sequences
 * from 0, nothing after a terminal event or a cancel, ≤ 100,000 events,
 * payload ≤ 65,536 canonical bytes, closed payloads per kind).
 */
import { isObject, type JsonRecord } from "../../check.ts";
import type { Responder } from "../responders.ts";
import { canonicalText } from "./canonical-text.ts";

const MAX_EVENT_PAYLOAD_BYTES = 65_536;
const MAX_EVENTS = 100_000;
const TERMINAL = ["finished", "error"];
const INDEX = { index: "n" };
const DELTA = { index: "n", delta: "s" };
const USAGE = Object.fromEntries(["input_tokens", "cache_read_tokens", "cache_write_tokens", "cache_write_1h_tokens", "output_tokens", "reasoning_tokens", "total_tokens"].map((k) => [k, "n?"]));
/** Payload members per kind: `n` an integer ≥ 0, `s` a string, `?` optional; `null` a free payload. */
const PAYLOAD: Record<string, Record<string, string> | null> = {
  started: { response_id: "s?" },
  text_start: INDEX,
  text_delta: DELTA,
  text_end: INDEX,
  reasoning_start: INDEX,
  reasoning_delta: DELTA,
  reasoning_end: INDEX,
  tool_call_start: { index: "n", id: "s", name: "s" },
  tool_call_args_delta: DELTA,
  tool_call_end: INDEX,
  usage: USAGE,
  finished: { stop_reason: "s" },
  error: null,
  heartbeat: null,
};

/** One stream the host opened with `provider/stream`. */
interface Ingress {
  next: number;
  ended: "finished" | "error" | "cancelled" | "refused" | undefined;
  events: JsonRecord[];
  wake?: () => void;
}

export class ProviderHost {
  /** The catalog as the host holds it: provider id → model ids. */
  readonly catalog = new Map<string, string[]>();
  revision = 0;
  /** Whether `providers/complete` was received. */
  completed = false;
  private readonly streams = new Map<string, Ingress>();

  /** The built-in answer to an extension request of the provider methods, if `method` is one. */
  responder(method: string): Responder | undefined {
    if (method === "providers/register" || method === "providers/update") {
      return (params) => {
        const provider = params.provider as JsonRecord;
        this.catalog.set(String(provider.id), (params.models as JsonRecord[]).map((m) => String(m.id)));
        return this.catalogResult();
      };
    }
    if (method === "providers/unregister") {
      return (params) => {
        this.catalog.delete(String(params.provider_id));
        return this.catalogResult();
      };
    }
    if (method === "provider/auth/request" || method === "provider/auth/revoke") return () => ({ status: method.endsWith("revoke") ? "revoked" : "unavailable" });
    return undefined;
  }

  /** A provider notification from the extension; a string is a fatal violation (octet drops the connection). */
  notification(frame: JsonRecord): string | undefined {
    const params = frame.params as JsonRecord;
    if (frame.method === "providers/complete") {
      if (!isObject(params) || Object.keys(params).length > 0) return "providers/complete params must be {}";
      this.completed = true;
      return undefined;
    }
    if (frame.method !== "provider/event") return undefined;
    return this.event(params);
  }

  /** About to send `provider/stream` for `streamId` (octet opens the ingress before the request). */
  open(streamId: string): void {
    if (this.streams.has(streamId)) throw new Error(`stream ${streamId} was already opened by this host`);
    this.streams.set(streamId, { next: 0, ended: undefined, events: [] });
  }

  /** The acceptance arrived: a refusal closes the ingress. */
  accepted(streamId: string, accepted: boolean): void {
    const ingress = this.streams.get(streamId);
    if (ingress && !accepted) this.close(ingress, "refused");
  }

  /** `provider/cancel` was sent: any later event for the stream is a violation. */
  cancelled(streamId: string): void {
    const ingress = this.streams.get(streamId);
    if (ingress && !ingress.ended) this.close(ingress, "cancelled");
  }

  /** The events read so far for `streamId`, once it finished, errored, was refused or cancelled (or at the deadline). */
  async events(streamId: string, timeoutMs: number): Promise<{ events: JsonRecord[]; ended: Ingress["ended"] }> {
    const ingress = this.streams.get(streamId);
    if (!ingress) throw new Error(`stream ${streamId} was not opened by this host`);
    const deadline = performance.now() + timeoutMs;
    while (!ingress.ended) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`stream ${streamId}: no terminal event within ${timeoutMs} ms (got ${ingress.events.map((e) => e.kind).join(", ") || "none"})`);
      await Promise.race([new Promise<void>((resolve) => (ingress.wake = resolve)), Bun.sleep(Math.min(left, 100))]);
    }
    return { events: ingress.events, ended: ingress.ended };
  }

  private event(params: JsonRecord): string | undefined {
    if (!isObject(params)) return "provider/event params must be an object";
    const extra = Object.keys(params).filter((k) => !["kind", "payload", "sequence", "stream_id"].includes(k));
    if (extra.length > 0) return `provider/event has member(s) API 0.3 does not define: ${extra.join(", ")}`;
    const { stream_id: streamId, sequence, kind, payload } = params;
    const ingress = typeof streamId === "string" ? this.streams.get(streamId) : undefined;
    if (!ingress) return `provider/event for stream ${JSON.stringify(streamId)}, which the host did not open`;
    if (ingress.ended) return `provider/event for stream ${streamId} after it ${ingress.ended === "cancelled" ? "was cancelled" : ingress.ended === "refused" ? "was refused" : `ended (${ingress.ended})`}`;
    if (sequence !== ingress.next) return `provider/event for stream ${streamId}: sequence ${JSON.stringify(sequence)}, expected ${ingress.next} (contiguous from 0)`;
    if (ingress.next >= MAX_EVENTS) return `provider/event for stream ${streamId}: more than ${MAX_EVENTS} events`;
    if (typeof kind !== "string" || !(kind in PAYLOAD)) return `provider/event kind ${JSON.stringify(kind)} is not one octet decodes`;
    if (!isObject(payload)) return `provider/event ${kind}: payload must be an object`;
    const bytes = Buffer.byteLength(canonicalText(payload));
    if (bytes > MAX_EVENT_PAYLOAD_BYTES) return `provider/event ${kind}: payload of ${bytes} canonical bytes exceeds ${MAX_EVENT_PAYLOAD_BYTES}`;
    const shape = payloadViolation(PAYLOAD[kind]!, payload);
    if (shape) return `provider/event ${kind}: ${shape}`;
    ingress.next++;
    ingress.events.push({ kind, payload, sequence });
    if (TERMINAL.includes(kind)) this.close(ingress, kind as "finished" | "error");
    else ingress.wake?.();
    return undefined;
  }

  private close(ingress: Ingress, how: NonNullable<Ingress["ended"]>): void {
    ingress.ended = how;
    ingress.wake?.();
  }

  private catalogResult(): JsonRecord {
    this.revision++;
    return { model_ids: [...this.catalog.values()].flat(), provider_ids: [...this.catalog.keys()], revision: this.revision };
  }
}

function payloadViolation(spec: Record<string, string> | null, payload: JsonRecord): string | undefined {
  if (spec === null) return undefined;
  for (const key of Object.keys(payload)) if (!(key in spec)) return `payload member ${JSON.stringify(key)} is not decoded by octet`;
  for (const [key, rule] of Object.entries(spec)) {
    const value = payload[key];
    if (value === undefined) {
      if (!rule.endsWith("?")) return `payload.${key} is required`;
      continue;
    }
    if (rule.startsWith("n") && !(Number.isSafeInteger(value) && (value as number) >= 0)) return `payload.${key} must be an integer ≥ 0`;
    if (rule.startsWith("s") && typeof value !== "string") return `payload.${key} must be a string`;
  }
  if ("id" in spec && (payload.id === "" || payload.name === "")) return "tool_call_start id and name must not be empty";
  return undefined;
}

/** What {@link openProviderStream} resolves with. */
export interface ProviderStreamOutcome {
  stream_id: string;
  accepted: boolean;
  reason?: string;
  events: JsonRecord[];
  ended: "finished" | "error" | "cancelled" | "refused" | undefined;
}

/** `TestHost.providers`. */
export interface ProviderTestCalls {
  /** `provider/stream`: the acceptance, then every `provider/event` until `finished`/`error` or {@link ProviderTestCalls.cancel}. */
  stream(params: { provider_id: string; model_id: string; request: JsonRecord; stream_id?: string }, options?: { timeoutMs?: number }): Promise<ProviderStreamOutcome>;
  /** `provider/cancel`: from now on any event for `streamId` is a violation. */
  cancel(streamId: string, reason?: string): void;
  /** What `providers/register|update|unregister` left in the host's catalog, and whether `providers/complete` came. */
  readonly catalog: { revision: number; providers: ReadonlyMap<string, string[]>; completed: boolean };
}

let streams = 0;

/**
 * `provider/stream` as octet sends it (a host-chosen `stream_id`), the
 * acceptance held to `ProviderStreamAccepted`, then the events until a
 * terminal kind or a cancel. `judge` turns a violation into the host's failure.
 */
export async function openProviderStream(
  providers: ProviderHost,
  call: (params: JsonRecord) => Promise<unknown>,
  judge: (result: unknown, violation: string | undefined) => unknown,
  params: { provider_id: string; model_id: string; request: JsonRecord; stream_id?: string; authorization_lease?: string },
  timeoutMs: number,
): Promise<ProviderStreamOutcome> {
  const streamId = params.stream_id ?? `provider-1-${streams++}`;
  providers.open(streamId);
  const result = judge(await call({ ...params, stream_id: streamId }), undefined) as JsonRecord;
  judge(result, acceptanceViolation(result, streamId));
  providers.accepted(streamId, result.accepted === true);
  const { events, ended } = await providers.events(streamId, timeoutMs);
  return { ...(result as { accepted: boolean; reason?: string }), stream_id: streamId, events, ended };
}

function acceptanceViolation(result: unknown, streamId: string): string | undefined {
  if (!isObject(result)) return "provider/stream result must be an object";
  const extra = Object.keys(result).filter((k) => !["accepted", "reason", "stream_id"].includes(k));
  if (extra.length > 0) return `provider/stream result has member(s) API 0.3 does not define: ${extra.join(", ")}`;
  if (typeof result.accepted !== "boolean") return "provider/stream result accepted must be a boolean";
  if (result.stream_id !== streamId) return `provider/stream result stream_id ${JSON.stringify(result.stream_id)} is not the requested ${streamId}`;
  if ("reason" in result && (typeof result.reason !== "string" || Buffer.byteLength(result.reason) > 4096)) return "provider/stream result reason must be a string of at most 4,096 bytes";
  return undefined;
}
