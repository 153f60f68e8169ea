import type { Logger } from "../log.ts";
import { type FrameSink, FrameWriter } from "../wire/frame-writer.ts";
import { LineSplitter, type SplitEvent } from "../wire/line-splitter.ts";
import { claimStdio } from "../wire/stdio.ts";
import { GarbagePacer } from "./garbage-pacer.ts";

/**
 * The transport: where the bytes of a session are read and written. `serve`
 * owns stdin reading (one `LineSplitter` over Bun's stream), the single
 * `FrameWriter` on stdout, stdio claiming and sealing, backpressure and the
 * garbage pacer; what the frames mean is the endpoint's business (a
 * `Connection`). Tests and embedders pass their own streams.
 */

/** I/O overrides for embedding the runtime (tests); by default it claims stdin/stdout. */
export interface RunOptions {
  input?: ReadableStream<Uint8Array>;
  output?: FrameSink;
  /** End the process with status 0 once stopped (default true when using stdio). */
  exit?: boolean;
}

/** What `serve` drives: one split event at a time, then the end of input. */
export interface Endpoint {
  receive(event: SplitEvent): void;
  endOfInput(): Promise<void>;
}

/** What the endpoint gets from the transport. */
export interface Channel {
  writer: FrameWriter;
  /** No author code may run before this resolves (fds 1 and 2 are sealed once the first frame is out). */
  handlersReady: Promise<void> | undefined;
  /** Call once the endpoint has finished: `serve` then returns (or ends the process). */
  stop(): void;
}

/** Reading stops while this much output waits for the host to read stdout, and resumes below the low mark. */
const WRITE_BACKLOG_HIGH = 4 * 1024 * 1024;
const WRITE_BACKLOG_LOW = 1024 * 1024;

/** Serve one session until the endpoint stops; with stdio, the process then exits 0. */
export async function serve(
  io: RunOptions,
  log: Logger,
  limits: { maxMessageBytes: number; gcPacingBytes: number },
  open: (channel: Channel) => Endpoint,
): Promise<void> {
  // Start reading first: the host's initialize arrives while the rest is set up.
  const reader = (io.input ?? Bun.stdin.stream()).getReader();
  const firstRead = reader.read();
  const stdio = io.output === undefined ? claimStdio(log) : undefined;
  const exit = io.exit ?? (io.input === undefined && io.output === undefined);
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const writer = new FrameWriter(io.output ?? stdio!.protocol, () => log.info("extension protocol stream closed"));
  let sealed: () => void = () => {};
  const handlersReady = stdio ? new Promise<void>((resolve) => (sealed = resolve)) : undefined;
  if (stdio) {
    writer.afterFirstFlush(() => {
      const sink = stdio.seal();
      sealed();
      return sink;
    });
  }
  const endpoint = open({ writer, handlersReady, stop });
  void readLoop(reader, firstRead, endpoint, writer, log, limits);
  await stopped;
  if (exit) {
    await stdio?.flushStderr();
    process.exit(0);
  }
}

async function readLoop(
  reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> },
  firstRead: Promise<{ done: boolean; value?: Uint8Array }>,
  endpoint: Endpoint,
  writer: FrameWriter,
  log: Logger,
  limits: { maxMessageBytes: number; gcPacingBytes: number },
): Promise<void> {
  const splitter = new LineSplitter(limits.maxMessageBytes);
  const emit = (event: SplitEvent) => endpoint.receive(event);
  const pacer = new GarbagePacer(limits.gcPacingBytes);
  let received = 0;
  try {
    for (let next = firstRead; ; next = reader.read()) {
      const { done, value } = await next;
      if (done || !value) break;
      splitter.push(value, emit);
      received += value.length;
      pacer.pace(received + writer.handedOver);
      // The host is not reading stdout: read no more requests until it does (spec §8.10).
      if (writer.backlog > WRITE_BACKLOG_HIGH) await writer.whenBelow(WRITE_BACKLOG_LOW);
    }
  } catch (error) {
    log.info("extension protocol stream closed", { error: (error as Error).message });
  }
  splitter.end(emit);
  await endpoint.endOfInput();
}
