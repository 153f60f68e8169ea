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
 *   frame writer, and fd 1 is pointed at stderr, so that anything else that
 *   writes to fd 1 (native code, inherited child processes) lands on stderr;
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
  const protocolFd = privateStdoutFd();
  const protocol: FrameSink = protocolFd === undefined ? Bun.stdout.writer() : Bun.file(protocolFd).writer();
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

/** dup(1) for the protocol, then dup2(2, 1). Undefined when libc is not reachable. */
function privateStdoutFd(): number | undefined {
  try {
    // Imported lazily so that a platform without FFI still runs (JS-level routing only).
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const name = process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6";
    const libc = dlopen(name, {
      dup: { args: [FFIType.i32], returns: FFIType.i32 },
      dup2: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    });
    const fd = libc.symbols.dup(1);
    if (fd < 0) return undefined;
    if (libc.symbols.dup2(2, 1) < 0) return undefined;
    return fd;
  } catch {
    return undefined;
  }
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
