import type { Logger } from "../log.ts";
import { type FrameSink, FrameWriter, LONG_FRAME_LENGTH } from "../wire/frame-writer.ts";
import { type LineEvent, lineLength, type SplitEvent, TextLineSplitter } from "../wire/line-splitter.ts";
import { type ReadResult, readAhead } from "../wire/read-ahead.ts";
import { claimStdio } from "../wire/stdio.ts";
import type { Opening } from "./first-reply.ts";
import { GarbagePacer } from "./garbage-pacer.ts";
import { leaveScope } from "./scope.ts";

/**
 * The transport: where the bytes of a session are read and written. `serve`
 * owns stdin reading (one `LineSplitter` over Bun's stream), the single
 * `FrameWriter` on stdout, stdio claiming and sealing (done already when
 * first-reply.ts answered initialize), backpressure and the garbage pacer;
 * what the frames mean is the endpoint's business (a `Connection`). Tests and
 * embedders pass their own streams.
 */

/** I/O overrides for embedding the runtime (tests); by default it claims stdin/stdout. */
export interface RunOptions {
  input?: ReadableStream<Uint8Array>;
  output?: FrameSink;
  /** End the process with status 0 once stopped (default true when using stdio). */
  exit?: boolean;
}

/** How stdin's bytes are cut into frames: octet's LF lines (`LineSplitter`) unless the endpoint brings its own. */
export interface Framer {
  push(chunk: Uint8Array, emit: (event: SplitEvent) => void): void;
  end(emit: (event: SplitEvent) => void): void;
}

/** What `serve` drives: one split event at a time (decoded ASCII lines as `text`), then the end of input. */
export interface Endpoint {
  receive(event: LineEvent): void;
  endOfInput(): Promise<void>;
  /** Framing other than the legacy wire's (API 0.3's canonical frames, `canonical-framer.ts`). */
  readonly framer?: Framer;
}

/** What the endpoint gets from the transport. */
export interface Channel {
  writer: FrameWriter;
  /** No author code may run before this resolves (fds 1 and 2 are sealed once the first frame is out). */
  handlersReady: Promise<void> | undefined;
  /** Call once the endpoint has finished: `serve` then returns (or ends the process). */
  stop(): void;
}

/**
 * Dispatching stops while this much output waits for the host to read stdout, and resumes below the
 * low mark; meanwhile stdin is read ahead, raw and bounded, so an EOF behind the stall is seen.
 */
const WRITE_BACKLOG_HIGH = 4 * 1024 * 1024;
const WRITE_BACKLOG_LOW = 1024 * 1024;

/**
 * Serve one session until the endpoint stops; with stdio, the process then exits 0. `opening` is
 * stdio already claimed and read from (first-reply.ts): its chunks are framed first, and an
 * initialize it answered means the first frame is out and stdio sealed.
 */
export async function serve(
  io: RunOptions,
  log: Logger,
  limits: { maxMessageBytes: number; gcPacingBytes: number },
  open: (channel: Channel) => Endpoint,
  opening?: Opening,
): Promise<void> {
  // Start reading first: the host's initialize arrives while the rest is set up.
  const reader = opening?.reader ?? (io.input ?? Bun.stdin.stream()).getReader();
  const firstRead = opening?.next ?? reader.read();
  const stdio = io.output === undefined ? (opening?.stdio ?? claimStdio(log)) : undefined;
  const exit = io.exit ?? (io.input === undefined && io.output === undefined);
  // `Promise.withResolvers`, never `new Promise(executor)` before the initialize reply: the constructor's
  // first use costs ~0.1 ms and ~16 page faults (docs/performance.md).
  const { promise: stopped, resolve: stop } = Promise.withResolvers<void>();
  const answered = opening?.answered;
  const writer = new FrameWriter(answered?.sink ?? io.output ?? stdio!.protocol, () => log.info("extension protocol stream closed"), leaveScope);
  let handlersReady: Promise<void> | undefined;
  if (answered) {
    // The first frame is out and stdio sealed (first-reply.ts); a reply that could not be written sealed nothing.
    writer.firstFlushDone(answered.failure);
    handlersReady = answered.failure === undefined ? Promise.resolve() : new Promise<void>(() => {});
  } else if (stdio) {
    const { promise, resolve: sealed } = Promise.withResolvers<void>();
    handlersReady = promise;
    writer.afterFirstFlush(() => {
      const sink = stdio.seal();
      sealed();
      return sink;
    });
  }
  const endpoint = open({ writer, handlersReady, stop });
  void readLoop(reader, opening?.chunks ?? [], firstRead, endpoint, writer, log, limits);
  await stopped;
  if (exit) {
    await stdio?.flushStderr();
    process.exit(0);
  }
}

/**
 * The host is not reading stdout: dispatch no more requests until it does (docs/protocol-0.2.md §8.10), but
 * read ahead to an EOF already written; what was read is dispatched on resuming, or before EOF. Gives the
 * read to await next, none once the input ended; a read error is thrown. (Out of line: the read loop
 * runs once per chunk, and the JIT compiles what it holds.)
 */
async function whileHostStalls(
  reader: { read(): Promise<ReadResult> },
  next: Promise<ReadResult>,
  writer: FrameWriter,
  take: (chunk: Uint8Array) => void,
  log: Logger,
): Promise<{ next?: Promise<ReadResult> }> {
  const ahead = await readAhead(reader, next, writer.whenBelow(WRITE_BACKLOG_LOW));
  for (const chunk of ahead.chunks) take(chunk);
  if (!ahead.ended) return { next: ahead.next! };
  if (ahead.error !== undefined) throw ahead.error;
  log.info("stdin ended while the host was not reading stdout", { read_ahead_bytes: ahead.chunks.reduce((n, c) => n + c.length, 0) });
  return {};
}

async function readLoop(
  reader: { read(): Promise<ReadResult> },
  readBefore: Uint8Array[],
  firstRead: Promise<ReadResult>,
  endpoint: Endpoint,
  writer: FrameWriter,
  log: Logger,
  limits: { maxMessageBytes: number; gcPacingBytes: number },
): Promise<void> {
  const splitter = endpoint.framer ?? new TextLineSplitter(limits.maxMessageBytes);
  // Only long frames are paced: the garbage of short ones is the collector's own business (docs/performance.md).
  let longFramesIn = 0;
  const countLong = (event: LineEvent) => {
    const length = lineLength(event, limits.maxMessageBytes);
    if (length >= LONG_FRAME_LENGTH) longFramesIn += length;
  };
  const emit = (event: LineEvent) => {
    // The usual line (decoded ASCII, short) costs two reads here.
    if (event.kind !== "text" || event.text.length >= LONG_FRAME_LENGTH) countLong(event);
    endpoint.receive(event);
  };
  const pacer = new GarbagePacer(limits.gcPacingBytes);
  const take = (chunk: Uint8Array) => {
    splitter.push(chunk, emit);
    pacer.pace(longFramesIn + writer.longFrames);
  };
  let failure: unknown;
  try {
    for (const chunk of readBefore) take(chunk);
    for (let next: Promise<ReadResult> | undefined = firstRead; next !== undefined; ) {
      const { done, value } = await next;
      if (done || !value) break;
      take(value);
      next = reader.read();
      if (writer.backlog > WRITE_BACKLOG_HIGH) next = (await whileHostStalls(reader, next, writer, take, log)).next;
    }
  } catch (error) {
    failure = error;
  }
  if (failure !== undefined) log.info("extension protocol stream closed", { error: (failure as Error)?.message ?? String(failure) });
  splitter.end(emit);
  await endpoint.endOfInput();
}
