import { format } from "node:util";
import type { Logger, LogLevel } from "../log.ts";
import type { FrameSink } from "./frame-writer.ts";

/** The process's protocol output and its structured stderr, once claimed. */
export interface ClaimedStdio {
  /** Sink for protocol frames: the real stdout. */
  protocol: FrameSink;
  /** Write one structured line to stderr. */
  stderrLine(line: string): void;
  /** Resolve once stderr output has been handed to the OS. */
  flushStderr(): Promise<void>;
}

let claimed: ClaimedStdio | undefined;

/**
 * Take ownership of stdout for the protocol (spec §1.3, DESIGN "stdout belongs
 * to the runtime"):
 * - the real stdout is duplicated to a private descriptor used only by the
 *   frame writer, and fd 1 is pointed at a pipe the runtime reads, so that
 *   anything else writing to fd 1 (`Bun.write(Bun.stdout)`, native code,
 *   child processes inheriting stdout) becomes structured stderr log lines;
 * - `console.*`, `process.stdout.write` and `process.stderr.write` are routed
 *   through the structured logger, so stderr stays one JSON object per line;
 * - uncaught exceptions and unhandled rejections are logged, not printed.
 * Idempotent: the second call returns the first claim.
 */
export function claimStdio(logger: Logger): ClaimedStdio {
  if (claimed) return claimed;
  const stderrSink = Bun.stderr.writer();
  const stderrLine = (line: string) => {
    stderrSink.write(line + "\n");
    stderrSink.flush();
  };
  logger.setOutput(stderrLine);
  const fds = redirectStdoutFd();
  const protocol: FrameSink = fds === undefined ? Bun.stdout.writer() : Bun.file(fds.protocol).writer();
  if (fds) void logStrayOutput(fds.stray, logger);
  routeConsole(logger);
  routeStream(process.stdout, logger, "info", "stdout");
  routeStream(process.stderr, logger, "warning", "stderr");
  process.on("uncaughtException", (error) => logger.error("uncaught exception", { error: describe(error) }));
  process.on("unhandledRejection", (reason) => logger.error("unhandled rejection", { error: describe(reason) }));
  claimed = {
    protocol,
    stderrLine,
    flushStderr: async () => {
      await stderrSink.flush();
    },
  };
  return claimed;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * `dup(1)` for the protocol, then point fd 1 at a new pipe. Undefined (JS-level
 * routing only) where libc cannot be reached through Bun's FFI.
 */
function redirectStdoutFd(): { protocol: number; stray: number } | undefined {
  try {
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    const name = process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6";
    const libc = dlopen(name, {
      dup: { args: [FFIType.i32], returns: FFIType.i32 },
      dup2: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      pipe: { args: [FFIType.ptr], returns: FFIType.i32 },
      close: { args: [FFIType.i32], returns: FFIType.i32 },
    });
    const protocol = libc.symbols.dup(1);
    if (protocol < 0) return undefined;
    const ends = new Int32Array(2);
    if (libc.symbols.pipe(ptr(ends)) < 0 || libc.symbols.dup2(ends[1]!, 1) < 0) {
      libc.symbols.close(protocol);
      return undefined;
    }
    libc.symbols.close(ends[1]!);
    return { protocol, stray: ends[0]! };
  } catch {
    return undefined;
  }
}

/** Turn whatever reaches the redirected fd 1 into `info` log lines. */
async function logStrayOutput(fd: number, logger: Logger): Promise<void> {
  const decoder = new TextDecoder();
  let partial = "";
  const emit = (line: string) => {
    const text = line.replace(/\r$/, "");
    if (text.trim() !== "") logger.write("info", text, { source: "stdout" });
  };
  try {
    for await (const chunk of Bun.file(fd).stream()) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop() ?? "";
      lines.forEach(emit);
    }
  } catch {
    /* the pipe closed */
  }
  emit(partial);
}

const CONSOLE_LEVELS: [string, LogLevel][] = [
  ["log", "info"],
  ["info", "info"],
  ["debug", "debug"],
  ["trace", "debug"],
  ["warn", "warning"],
  ["error", "error"],
  ["dir", "info"],
  ["table", "info"],
];

function routeConsole(logger: Logger): void {
  for (const [method, level] of CONSOLE_LEVELS) {
    (console as unknown as Record<string, unknown>)[method] = (...args: unknown[]) =>
      logger.write(level, format(...args), { source: "console" });
  }
}

function routeStream(stream: NodeJS.WriteStream, logger: Logger, level: LogLevel, source: string): void {
  let partial = "";
  const flushPartial = () => {
    if (partial.trim() !== "") logger.write(level, partial, { source });
    partial = "";
  };
  (stream as unknown as { write: unknown }).write = (chunk: unknown, encodingOrCallback?: unknown, callback?: unknown) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line.replace(/\r$/, "").trim() !== "") logger.write(level, line.replace(/\r$/, ""), { source });
    const done = typeof encodingOrCallback === "function" ? encodingOrCallback : callback;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  };
  process.once("exit", flushPartial);
}
