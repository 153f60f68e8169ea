/** Where whole frames go: Bun's `FileSink` satisfies this. */
export interface FrameSink {
  write(chunk: string): number | Promise<number>;
  flush(): number | Promise<number>;
}

/**
 * The single owner of the protocol stream. `write` queues a whole encoded
 * line synchronously, so frames leave in exactly the order they were queued
 * (a handler's notifications always precede its reply), and resolves once the
 * line was flushed to the OS; awaiting it is the backpressure. A failed write
 * closes the writer and every later write rejects.
 */
export class FrameWriter {
  private queue: { line: string; done: () => void; fail: (e: Error) => void }[] = [];
  private pumping = false;
  private failure: Error | undefined;
  private idle: (() => void)[] = [];
  private afterFirst: (() => FrameSink | undefined) | undefined;

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
    const written = new Promise<void>((done, fail) => this.queue.push({ line, done, fail }));
    if (!this.pumping) void this.pump();
    return written;
  }

  /** Resolves when everything queued so far has been flushed (or the writer failed). */
  drained(): Promise<void> {
    if (!this.pumping && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** True once a write failed; the stream is then closed for good. */
  get closed(): boolean {
    return this.failure !== undefined;
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    // Let the current task queue more frames so they share one flush.
    await Promise.resolve();
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        try {
          // One native write per batch: whole lines only, in queue order.
          let text = "";
          for (const item of batch) text += item.line;
          const pending = this.sink.write(text);
          if (typeof pending !== "number") await pending;
          const flushed = this.sink.flush();
          if (typeof flushed !== "number") await flushed;
          if (this.afterFirst) {
            const next = this.afterFirst();
            this.afterFirst = undefined;
            if (next) this.sink = next;
          }
          for (const item of batch) item.done();
        } catch (error) {
          this.failure = new Error(`protocol stream is closed: ${(error as Error).message}`);
          for (const item of [...batch, ...this.queue]) item.fail(this.failure);
          this.queue = [];
          this.onFailure(this.failure);
        }
      }
    } finally {
      this.pumping = false;
      for (const resolve of this.idle.splice(0)) resolve();
    }
  }
}
