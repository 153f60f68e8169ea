import { ErrorCode, RpcError } from "../errors.ts";
import type { WireLine } from "./encode.ts";

/** Where whole frames go: Bun's `FileSink` satisfies this (it keeps write order and buffers natively). */
export interface FrameSink {
  write(chunk: WireLine): number | Promise<number>;
  flush(): number | Promise<number>;
}

/** Queued text at which a long synchronous burst is handed to the sink before the task ends. */
const EARLY_WRITE_CHARS = 64 * 1024;

/** Frames at least this long (characters of text, bytes of encoded ones) are counted by {@link FrameWriter.longFrames}. */
export const LONG_FRAME_LENGTH = 4096;

/** One flush cycle: every frame written before it started settles with it. */
class Flush {
  /** Made by the first `done()`; `write` hands it out directly from then on. */
  promise: Promise<void> | undefined;
  private resolve: (() => void) | undefined;
  private reject: ((error: Error) => void) | undefined;
  private outcome: { error?: Error } | undefined;

  /** Promise for this cycle, created only when a caller wants one. */
  done(): Promise<void> {
    if (this.outcome) return this.outcome.error ? Promise.reject(this.outcome.error) : Promise.resolve();
    this.promise ??= new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    return this.promise;
  }

  settle(error?: Error): void {
    this.outcome = { error };
    if (error) this.reject?.(error);
    else this.resolve?.();
  }
}

/**
 * The single owner of the protocol stream. Frames are queued whole, in call
 * order (so a handler's notifications always precede its reply); the frames
 * of one task go to the sink in one write, a long burst every 64 KiB so it
 * reaches the host while it is still being produced, and a flush follows.
 * `write` resolves after the flush that covers the frame (awaiting it is the
 * backpressure); `send` is the same without a promise. Until the first flush
 * has completed, frames are held so that the sink can be switched then (see
 * {@link FrameWriter.afterFirstFlush}). A failed write closes the writer:
 * later writes reject with `-32000 protocol stream is closed`.
 */
export class FrameWriter {
  private pending: Flush | undefined;
  /** The cycle being flushed. */
  private cycle: Flush | undefined;
  private flushing = false;
  private failure: RpcError | undefined;
  private idle: (() => void)[] = [];
  private afterFirst: (() => FrameSink | undefined) | undefined;
  /** Frames held until the first flush completed (`undefined` once it has). */
  private held: WireLine[] | undefined = [];

  /**
   * `detach` runs before the writer schedules a continuation of its own (a flush cycle, the end of a
   * buffered write), so that the embedder can clear what the continuation would otherwise keep alive:
   * the runtime ends a request's ambient scope there (scope.ts `leaveScope`), or the cycle would keep
   * that request, and the frames it read and wrote, until the host had read the flush.
   */
  constructor(
    private sink: FrameSink,
    private readonly onFailure: (error: Error) => void = () => {},
    private readonly detach: () => void = () => {},
  ) {}

  /**
   * Run `switchSink` once, right after the first flush completed (nothing is
   * in flight then); a returned sink replaces the current one for every later
   * frame.
   */
  afterFirstFlush(switchSink: () => FrameSink | undefined): void {
    this.afterFirst = switchSink;
  }

  /**
   * The first frame was written and flushed past this writer (the initialize reply, first-reply.ts):
   * nothing is held from now on; `error` is why that write failed, which closes the writer.
   */
  firstFlushDone(error?: Error): void {
    this.held = undefined;
    if (error) this.fail(error);
  }

  /** Queue one encoded line (ending in LF); resolves once it was flushed. */
  write(line: WireLine): Promise<void> {
    // A short text frame joining a flush someone already awaits (a burst of progress events): no calls.
    const pending = this.pending;
    if (pending !== undefined && pending.promise !== undefined && this.held === undefined && typeof line === "string" && line.length < LONG_FRAME_LENGTH && this.text.length + line.length < EARLY_WRITE_CHARS) {
      this.text += line;
      return pending.promise;
    }
    return this.writeOther(line);
  }

  /** {@link write} for the first frame of a flush cycle and any frame the short path does not take (out of line: see docs/design.md, "Hot functions"). */
  private writeOther(line: WireLine): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const flush = this.enqueue(line);
    return flush ? flush.done() : Promise.reject(this.failure);
  }

  /** Queue one encoded line without waiting for it (failures are reported by `onFailure`). */
  send(line: WireLine): void {
    if (!this.failure) this.enqueue(line);
  }

  /** Resolves when everything queued so far has been flushed (or the writer failed). */
  drained(): Promise<void> {
    if (!this.flushing && !this.pending) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private handedOverLength = 0;

  /** Length of the frames of at least {@link LONG_FRAME_LENGTH} queued so far (what the garbage pacer counts). */
  get longFrames(): number {
    return this.longFramesLength;
  }

  private longFramesLength = 0;
  /** What the last completed flush covered (the sink had given it all to the OS). */
  private flushedLength = 0;
  private flushMark = 0;
  private writableWaiters: (() => void)[] = [];

  /**
   * Frames queued or handed to the sink but not yet taken by the OS: it grows
   * when the host stops reading stdout (a pipe holds 64 KiB).
   */
  get backlog(): number {
    return this.handedOverLength - this.flushedLength + this.text.length + (this.held?.length ?? 0);
  }

  /**
   * Resolves once the backlog is at most `low` (at once if it already is, or
   * when the writer failed). The reader awaits this before reading more, so a
   * host that stops reading stdout is no longer sent replies it cannot take:
   * it meets a full stdin pipe instead, and memory stays bounded.
   */
  whenBelow(low: number): Promise<void> {
    if (this.backlog <= low || this.failure) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.backlog <= low || this.failure) resolve();
        else this.writableWaiters.push(check);
      };
      this.writableWaiters.push(check);
    });
  }

  /** True once a write failed; the stream is then closed for good. */
  get closed(): boolean {
    return this.failure !== undefined;
  }

  private enqueue(line: WireLine): Flush | undefined {
    // Small frames of one task share one sink write (the usual frame is appended here; any other out of line).
    if (typeof line === "string" && line.length < LONG_FRAME_LENGTH && this.held === undefined && this.text.length + line.length < EARLY_WRITE_CHARS) this.text += line;
    else if (!this.enqueueOther(line)) return undefined;
    const flush = (this.pending ??= new Flush());
    if (!this.flushing) {
      this.flushing = true;
      // Let the current task queue more frames so they share one flush.
      this.detach();
      queueMicrotask(this.flushNext);
    }
    return flush;
  }

  /** {@link enqueue} for a long frame, one of bytes, one held before the first flush, or one that fills 64 KiB: false when the sink failed. */
  private enqueueOther(line: WireLine): boolean {
    if (line.length >= LONG_FRAME_LENGTH) this.longFramesLength += line.length;
    if (this.held !== undefined) this.held.push(line);
    else if (typeof line === "string") {
      // A long burst is handed over every 64 KiB.
      this.text += line;
      if (this.text.length >= EARLY_WRITE_CHARS && !this.handOverText()) return false;
    } else if (!this.handOverText() || !this.handToSink(line)) return false;
    return true;
  }

  /** Frames of the current task not yet handed to the sink. */
  private text = "";

  private handOverText(): boolean {
    if (this.text === "") return true;
    const text = this.text;
    this.text = "";
    return this.handToSink(text);
  }

  private handToSink(line: WireLine): boolean {
    try {
      const accepted = this.sink.write(line);
      this.handedOverLength += line.length;
      // A promise means the sink buffered the rest; its flush waits for it.
      if (typeof accepted !== "number") {
        this.detach();
        accepted.then(undefined, this.onWriteError);
      }
      return true;
    } catch (error) {
      this.fail(error as Error);
      return false;
    }
  }

  // The flush cycle is written with callbacks rather than an async loop: it
  // runs once per reply under pipelined load, so it allocates as little as it can.

  /** Start a cycle for the frames queued so far, or go idle. */
  private readonly flushNext = (): void => {
    const flush = this.pending;
    if (this.failure || !flush) return this.finish();
    this.pending = undefined;
    this.cycle = flush;
    try {
      if (this.held !== undefined && this.held.length > 0) {
        const held = this.held;
        this.held = [];
        let accepted: number | Promise<number> = 0;
        for (const line of held) {
          accepted = this.sink.write(line);
          this.handedOverLength += line.length;
        }
        if (typeof accepted !== "number") return void accepted.then(this.flushSink, this.onCycleError);
      }
      if (!this.handOverText()) return;
      this.flushSink();
    } catch (error) {
      this.onCycleError(error);
    }
  };

  private readonly flushSink = (): void => {
    try {
      this.flushMark = this.handedOverLength;
      const flushed = this.sink.flush();
      if (typeof flushed !== "number") return void flushed.then(this.cycleDone, this.onCycleError);
      this.cycleDone();
    } catch (error) {
      this.onCycleError(error);
    }
  };

  private readonly cycleDone = (): void => {
    this.flushedLength = this.flushMark;
    if (this.writableWaiters.length > 0) for (const check of this.writableWaiters.splice(0)) check();
    if (this.held !== undefined) this.releaseHeld();
    const flush = this.cycle;
    this.cycle = undefined;
    flush?.settle();
    this.flushNext();
  };

  private readonly onCycleError = (error: unknown): void => {
    this.fail(error as Error, this.cycle);
    this.cycle = undefined;
    this.finish();
  };

  private finish(): void {
    this.flushing = false;
    if (this.writableWaiters.length > 0) for (const check of this.writableWaiters.splice(0)) check();
    if (this.idle.length > 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** After the first flush: switch the sink if asked, then write straight through. */
  private releaseHeld(): void {
    const switchSink = this.afterFirst;
    this.afterFirst = undefined;
    const next = switchSink?.();
    if (next) this.sink = next;
    const rest = this.held ?? [];
    this.held = undefined;
    for (const line of rest) if (!this.handToSink(line)) return;
  }

  private readonly onWriteError = (error: Error): void => this.fail(error);

  private fail(error: Error, flush?: Flush): void {
    if (this.failure) return;
    this.failure = new RpcError(ErrorCode.ServerError, `protocol stream is closed: ${error.message}`);
    flush?.settle(this.failure);
    this.pending?.settle(this.failure);
    this.pending = undefined;
    this.onFailure(this.failure);
  }
}
