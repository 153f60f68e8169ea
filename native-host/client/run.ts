/**
 * One `run` as the caller sees it (docs/native-host-protocol.md §7, §8): an async
 * iterable of the host's events in order, the assembled answer text, tool
 * calls correlated by `toolCallId`, and the final result.
 *
 * Provisional output (§8.6): `model_delta` text and `output_media` since the
 * last `model_step` are provisional. When the host replaces an attempt
 * (`provider_retry`, `candidate_rejected`) the stream carries a
 * `client.discard_provisional` event right after the host's, and the
 * provisional text is dropped from {@link RunHandle.text}.
 *
 * Turns: `model_step` marks the end of an assistant turn (§7.2: "an
 * assistant turn committed"). The committed text of each turn is kept in
 * {@link RunResult.turns}, one entry per `model_step`, so a turn that only
 * called tools has an empty entry; `text` is the same turns joined.
 */
import { isKnownEventType, type EventDataByType, type FinalResultData, type HostEvent, type UnknownHostEvent, type Usage } from "./events.ts";
import type { RawEvent } from "./request-tracker.ts";

/** Emitted by the client (never by the host) when provisional output must be discarded. */
export interface DiscardProvisionalEvent {
  type: "client.discard_provisional";
  data: { reason: "provider_retry" | "candidate_rejected"; text: string; reasoning: string; media: number };
}

export type RunEvent = HostEvent | UnknownHostEvent | DiscardProvisionalEvent;

export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The admission decision, when the host reported one. */
  decision?: EventDataByType["tool_policy"]["decision"];
  /** The most recent {@link MAX_TOOL_PROGRESS} progress entries. */
  progress: EventDataByType["tool_progress"]["progress"][];
  /** Set once `tool_finish` arrived. */
  finish?: { ok: boolean; output: string; error: string };
}

export interface RunResult extends FinalResultData {
  runId: string;
  /** `accepted.data`, when the run got that far. */
  accepted?: EventDataByType["accepted"];
  /** Committed answer text assembled from `model_delta` (text channel); `output` is the host's authoritative copy. */
  text: string;
  /**
   * The committed text of each assistant turn, one entry per `model_step` in
   * order (`""` for a turn without text, e.g. one that only called tools);
   * `text` is these joined with nothing between them.
   */
  turns: string[];
  /** Sticky: the host could not fully account usage; usage figures are known subtotals. */
  usageUncertain: boolean;
  /** `run_usage` of the last `model_step`. */
  usage?: Usage;
  runCostMicrodollars?: number;
  tools: ToolCall[];
}

/** `tool_progress` entries kept per tool call (the most recent). */
export const MAX_TOOL_PROGRESS = 256;

export class RunHandle implements AsyncIterable<RunEvent> {
  readonly result: Promise<RunResult>;
  private settle!: { resolve: (r: RunResult) => void; reject: (e: Error) => void };
  private queue: RunEvent[] = [];
  private head = 0;
  private wake: (() => void) | undefined;
  private ended: { error?: Error } | undefined;
  private committed = "";
  private turnTexts: string[] = [];
  private provisional = "";
  private provisionalReasoning = "";
  private provisionalMedia = 0;
  private accepted: EventDataByType["accepted"] | undefined;
  private uncertain = false;
  private usage: Usage | undefined;
  private cost: number | undefined;
  /** Every tool call in order, and the latest call for each id (providers may reuse ids across turns). */
  private calls: ToolCall[] = [];
  private tools = new Map<string, ToolCall>();

  private iterated = false;
  private caughtUp: (() => void) | undefined;

  constructor(
    readonly requestId: string,
    readonly runId: string,
    private readonly cancelRun: () => Promise<void>,
    private retain = true,
    private readonly maxBacklog?: number,
  ) {
    this.result = new Promise<RunResult>((resolve, reject) => (this.settle = { resolve, reject }));
    // The caller may only iterate; the rejection is still delivered there.
    this.result.catch(() => {});
  }

  /** The answer so far: committed text plus the current provisional text. */
  get text(): string {
    return this.committed + this.provisional;
  }

  /**
   * The committed text of each turn delivered so far (one entry per
   * `model_step`; it can be ahead of an iterator that has not caught up);
   * see {@link RunResult.turns}.
   */
  get turns(): string[] {
    return this.turnTexts.slice();
  }

  /** Events delivered but not yet taken by the iterator. */
  get backlog(): number {
    return this.queue.length - this.head;
  }

  /**
   * @internal Read backpressure (only with `maxBacklog`): while an iterator is
   * attached and more than `maxBacklog` events wait for it, the client stops
   * reading the host. The pause ends when the iterator is down to half, when
   * it stops, or when the run ends.
   */
  backpressure(): Promise<void> | undefined {
    if (this.maxBacklog === undefined || !this.iterated || this.ended || this.backlog <= this.maxBacklog) return undefined;
    return new Promise((resolve) => (this.caughtUp = resolve));
  }

  /**
   * Cancel the run by terminating the host's process group; `result` rejects
   * with `Cancelled`. Does nothing once the run has ended.
   */
  cancel(): Promise<void> {
    return this.cancelRun();
  }

  /** @internal Called by the client for each validated event of this run. */
  deliver(raw: RawEvent): void {
    if (!isKnownEventType(raw.type)) return this.push({ ...raw, type: "unknown", hostType: raw.type });
    // Known types were shape-checked by the client.
    const event = raw as HostEvent;
    this.push(event);
    switch (event.type) {
      case "accepted":
        this.accepted = event.data;
        break;
      case "model_delta":
        if (event.data.channel === "text") this.provisional += event.data.text;
        else this.provisionalReasoning += event.data.text;
        break;
      case "output_media":
        this.provisionalMedia++;
        break;
      case "model_step":
        this.committed += this.provisional;
        this.turnTexts.push(this.provisional);
        this.provisional = this.provisionalReasoning = "";
        this.provisionalMedia = 0;
        this.usage = event.data.run_usage;
        this.cost = event.data.run_cost_microdollars;
        break;
      case "provider_retry":
      case "candidate_rejected":
        this.push({
          type: "client.discard_provisional",
          data: { reason: event.type, text: this.provisional, reasoning: this.provisionalReasoning, media: this.provisionalMedia },
        });
        this.provisional = this.provisionalReasoning = "";
        this.provisionalMedia = 0;
        break;
      case "provider_usage_uncertain":
        this.uncertain = true;
        break;
      case "tool_start": {
        const call: ToolCall = { toolCallId: event.data.toolCallId, toolName: event.data.toolName, input: event.data.input, progress: [] };
        this.calls.push(call);
        this.tools.set(call.toolCallId, call);
        break;
      }
      case "tool_policy":
        this.tool(event.data.toolCallId, event.data.toolName).decision = event.data.decision;
        break;
      case "tool_progress": {
        const progress = this.tool(event.data.toolCallId).progress;
        progress.push(event.data.progress);
        if (progress.length > MAX_TOOL_PROGRESS) progress.splice(0, progress.length - MAX_TOOL_PROGRESS);
        break;
      }
      case "tool_finish":
        this.tool(event.data.toolCallId).finish = { ok: event.data.ok, output: event.data.output, error: event.data.error };
        break;
      case "final_result":
        this.finish({
          ...event.data,
          runId: this.runId,
          accepted: this.accepted,
          text: this.committed,
          turns: this.turnTexts.slice(),
          usageUncertain: this.uncertain,
          usage: this.usage,
          runCostMicrodollars: this.cost,
          tools: this.calls,
        });
        break;
    }
  }

  private tool(id: string, name = ""): ToolCall {
    let call = this.tools.get(id);
    if (!call) {
      call = { toolCallId: id, toolName: name, input: null, progress: [] };
      this.calls.push(call);
      this.tools.set(id, call);
    }
    return call;
  }

  /** @internal The run ended with a result. */
  finish(result: RunResult): void {
    if (this.ended) return;
    this.ended = {};
    this.settle.resolve(result);
    this.wake?.();
    this.release();
  }

  /** @internal The run ended without a result. */
  fail(error: Error): void {
    if (this.ended) return;
    this.ended = { error };
    this.settle.reject(error);
    this.wake?.();
    this.release();
  }

  private push(event: RunEvent): void {
    if (!this.retain) return;
    this.queue.push(event);
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    if (this.iterated) throw new Error(`run ${this.runId} is already being iterated; a run's events can be iterated once`);
    if (!this.retain) throw new Error(`run ${this.runId} was started with retainEvents: false; use result and text`);
    this.iterated = true;
    try {
      for (;;) {
        if (this.caughtUp && this.backlog <= this.maxBacklog! / 2) this.release();
        if (this.head < this.queue.length) {
          const event = this.queue[this.head++]!;
          // Drop consumed events in batches so a long run does not keep them all.
          if (this.head >= 1024) {
            this.queue = this.queue.slice(this.head);
            this.head = 0;
          }
          yield event;
          continue;
        }
        if (this.ended) {
          if (this.ended.error) throw this.ended.error;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      // The consumer stopped iterating (or the run ended): keep nothing more, never hold the reader.
      this.retain = false;
      this.queue = [];
      this.head = 0;
      this.release();
    }
  }

  private release(): void {
    this.caughtUp?.();
    this.caughtUp = undefined;
  }
}
