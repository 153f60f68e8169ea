import { ErrorCode, RpcError } from "../errors.ts";

/** Where whole frames go: Bun's `FileSink` satisfies this. */
export interface FrameSink {
  write(chunk: string): number | Promise<number>;
  flush(): number | Promise<number>;
}

/** Queued text at which a synchronous burst is handed to the sink before the batch ends. */
const EARLY_WRITE_CHARS = 64 * 1024;

/** Settles every frame of one batch together (one promise per batch, not per frame). */
class Batch {
  text = "";
  private promise: Promise<void> | undefined;
  private resolve: (() => void) | undefined;
  private reject: ((error: Error) => void) | undefined;
  private outcome: { error?: Error } | undefined;

  /** Promise for this batch, created only when a caller wants one. */
  written(): Promise<void> {
    if (!this.promise) {
      if (this.outcome) return this.outcome.error ? Promise.reject(this.outcome.error) : Promise.resolve();
      this.promise = new Promise((resolve, reject) => {
        this.resolve = resolve;
        this.reject = reject;
      });
    }
    return this.promise;
  }

  settle(error?: Error): void {
    this.outcome = { error };
    if (error) this.reject?.(error);
    else this.resolve?.();
  }
}

/**
 * The single owner of the protocol stream. Frames are queued synchronously,
 * so they leave in exactly the order they were queued (a handler's
 * notifications always precede its reply); each batch of queued frames goes
 * to the OS in one write and is flushed before the next. `write` resolves once
 * the line was flushed (awaiting it is the backpressure); `send` is the same
 * without a promise. A failed write closes the writer: later writes reject
 * with `-32000 protocol stream is closed`.
 */
export class FrameWriter {
  private current: Batch | undefined;
  private pumping = false;
  private failure: RpcError | undefined;
  private idle: (() => void)[] = [];
  private afterFirst: (() => FrameSink | undefined) | undefined;
  /** The pump is between taking a batch and settling it. */
  private writing = false;
  /** An early write the OS has not taken yet (see `enqueue`). */
  private inflight: Promise<number> | undefined;

  constructor(
    private sink: FrameSink,
    private readonly onFailure: (error: Error) => void = () => {},
  ) {}

  /**
   * Run `switchSink` once, right after the first batch was flushed and before
   * the next one starts (nothing is in flight then); a returned sink replaces
   * the current one for every later frame.
   */
  afterFirstFlush(switchSink: () => FrameSink | undefined): void {
    this.afterFirst = switchSink;
  }

  /** Queue one encoded line (ending in LF); resolves once it was flushed. */
  write(line: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return this.enqueue(line).written();
  }

  /** Queue one encoded line without waiting for it (replies; failures are reported by `onFailure`). */
  send(line: string): void {
    if (!this.failure) this.enqueue(line);
  }

  /** Resolves when everything queued so far has been flushed (or the writer failed). */
  drained(): Promise<void> {
    if (!this.pumping && !this.current) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** True once a write failed; the stream is then closed for good. */
  get closed(): boolean {
    return this.failure !== undefined;
  }

  private enqueue(line: string): Batch {
    const batch = (this.current ??= new Batch());
    batch.text += line;
    // A long synchronous burst (e.g. a loop of notifications) starts reaching the
    // host before the handler yields: whole frames, in order, no flush yet.
    if (batch.text.length >= EARLY_WRITE_CHARS && !this.writing && !this.inflight && !this.afterFirst && !this.failure) {
      const text = batch.text;
      batch.text = "";
      try {
        const pending = this.sink.write(text);
        if (typeof pending !== "number") this.inflight = pending;
      } catch (error) {
        this.fail(batch, error as Error);
        return batch;
      }
    }
    if (!this.pumping) void this.pump();
    return batch;
  }

  private fail(batch: Batch, error: Error): void {
    this.failure = new RpcError(ErrorCode.ServerError, `protocol stream is closed: ${error.message}`);
    batch.settle(this.failure);
    if (this.current !== batch) this.current?.settle(this.failure);
    this.current = undefined;
    this.onFailure(this.failure);
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    // Let the current task queue more frames so they share one write.
    await Promise.resolve();
    try {
      let batch: Batch | undefined;
      while (!this.failure && (batch = this.current)) {
        this.current = undefined;
        this.writing = true;
        try {
          if (this.inflight) await this.inflight;
          this.inflight = undefined;
          const pending = batch.text === "" ? 0 : this.sink.write(batch.text);
          if (typeof pending !== "number") await pending;
          const flushed = this.sink.flush();
          if (typeof flushed !== "number") await flushed;
          if (this.afterFirst) {
            const next = this.afterFirst();
            this.afterFirst = undefined;
            if (next) this.sink = next;
          }
          batch.settle();
        } catch (error) {
          this.fail(batch, error as Error);
        } finally {
          this.writing = false;
        }
      }
    } finally {
      this.pumping = false;
      for (const resolve of this.idle.splice(0)) resolve();
    }
  }
}
