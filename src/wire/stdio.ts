import type { Logger, LogLevel } from "../log.ts";
import type { FrameSink } from "./frame-writer.ts";
import type * as NodeFs from "node:fs";
import { protocolDescriptor } from "./protocol-descriptor.ts";
import type { StrayReader } from "./stray-output.ts";

/** node:fs, loaded when first needed: importing it costs ~0.5 ms of start-up. */
const fs = (): typeof NodeFs => require("node:fs");
/** What lands behind fds 1 and 2 once sealed (a chunk of its own under `--splitting`: only the seal needs it). */
const stray = (): typeof import("./stray-output.ts") => require("./stray-output.ts");

/** The process's protocol output and its structured stderr, once claimed. */
export interface ClaimedStdio {
  /**
   * Sink for protocol frames until {@link ClaimedStdio.seal}: the real stdout, on the descriptor a
   * launcher handed it on (protocol-descriptor.ts) else fd 1; the private copy if sealed at import.
   */
  protocol: FrameSink;
  /**
   * Move fds 1 and 2 (see {@link sealStdioNow}) and return the private
   * protocol sink, or undefined where neither way works. Call while no frame
   * is being written, before any handler runs. Idempotent.
   */
  seal(): FrameSink | undefined;
  /** Resolve once stderr output has been handed to the OS. */
  flushStderr(): Promise<void>;
}

let claimed: ClaimedStdio | undefined;

/** Time the exit may spend logging stray output still unread. */
const STRAY_EXIT_BUDGET_MS = 750;

/**
 * Take ownership of stdout for the protocol and keep stderr structured
 * (docs/protocol-0.2.md §1.3, §8.9; DESIGN "stdout belongs to the runtime"), in two steps so
 * that the first reply is not delayed by loading node:fs:
 * - claim (at `run()`): `console.*` is logged at its own level, uncaught
 *   errors are logged, frames go to the real stdout;
 * - seal (after the first frame is flushed, before any handler runs; at
 *   import with `octet-extension/seal`): the real stdout and stderr are
 *   reopened as private descriptors used only by the frame writer and the
 *   logger, and fds 1 and 2 are pointed at unlinked files the runtime reads
 *   back, so anything else written there (`Bun.write(Bun.stdout)`,
 *   `process.stdout.write`, native code, child processes, Bun's own warnings)
 *   becomes structured log lines (`info` for fd 1, `warning` for fd 2).
 *   Where fds cannot be moved, `process.stdout`/`stderr` writes are routed at
 *   JS level instead.
 * Started by a launcher that moved stdout (see protocol-descriptor.ts), fd 1
 * is stderr from the first instruction and frames go to the launcher's
 * descriptor; sealing then also closes that descriptor, keeping a private
 * copy children cannot inherit.
 */
export function claimStdio(logger: Logger): ClaimedStdio {
  if (claimed) return claimed;
  logger.setOutput(writeStderrLine);
  routeConsole(logger);
  installErrorLogging(logger);
  errorLogging!.serving = true;
  strayLogger = logger;
  let routed = false;
  const launched = protocolDescriptor(logger);
  claimed = {
    // Sealed at import (`octet-extension/seal`): frames go to the private copy from the start.
    protocol: sealed ? sealed.protocol : launched !== undefined ? Bun.file(launched).writer() : Bun.stdout.writer(),
    seal: () => {
      const done = sealStdioNow(logger);
      if (done) return done.protocol;
      if (!routed) {
        routed = true;
        routeStream(process.stdout, logger, "info", "stdout");
        routeStream(process.stderr, logger, "warning", "stderr");
      }
      return undefined;
    },
    flushStderr: async () => {
      // Logging stray output must not hold the exit past octet's 2 s: what is left is counted instead.
      const deadline = performance.now() + STRAY_EXIT_BUDGET_MS;
      const left = (sealed?.readers ?? []).reduce((sum, reader) => sum + reader.finish(deadline), 0);
      if (left > 0) logger.warning("stray output not logged before exit", { bytes: left });
      await stderrSink?.flush();
    },
  };
  return claimed;
}

/** fds 1 and 2 once moved: the private protocol sink and the readers of what lands behind them. */
let sealed: { protocol: FrameSink; readers: StrayReader[] } | null | undefined;
/** Where stray output is logged: the logger of whoever sealed, then the running extension's. */
let strayLogger: Logger | undefined;

/**
 * Move fds 1 and 2 now (see {@link claimStdio}); `null` where neither way
 * works. Idempotent. From then on the stderr logger writes to the private
 * copy of fd 2, and stray output is logged through `logger` until `run()`
 * claims stdio.
 */
export function sealStdioNow(logger: Logger): { protocol: FrameSink; readers: StrayReader[] } | null {
  if (sealed !== undefined) return sealed;
  const fds = redirectStdio(protocolDescriptor(logger));
  if (!fds) return (sealed = null);
  strayLogger ??= logger;
  void stderrSink?.flush();
  stderrSink = Bun.file(fds.stderr).writer();
  const log = (level: LogLevel, source: string) => (line: string) => strayLogger!.write(level, line, { source });
  let readers: StrayReader[] = [];
  if (fds.kind === "file") {
    const { StrayReader, pollStrayReaders } = stray();
    readers = [new StrayReader(fds.strayStdout, 1, log("info", "stdout")), new StrayReader(fds.strayStderr, 2, log("warning", "stderr"))];
    pollStrayReaders(readers);
  } else {
    void logPipe(fds.strayStdout, log("info", "stdout"));
    void logPipe(fds.strayStderr, log("warning", "stderr"));
  }
  return (sealed = { protocol: Bun.file(fds.stdout).writer(), readers });
}

/** Whether an octet host launched this process (it sets both, docs/protocol-0.2.md §1.5). */
export function launchedByHost(): boolean {
  return process.env.OCTET_EXTENSION_NAME !== undefined && process.env.OCTET_EXTENSION_API_VERSION !== undefined;
}

let errorLogging: { serving: boolean } | undefined;

/**
 * Log uncaught exceptions and unhandled rejections as structured lines instead
 * of Bun's raw traces (docs/protocol-0.2.md §1.3). Before `run()` serves (a registration error
 * at module load) the process then exits 1; once serving it keeps going.
 * Installed when an Extension is constructed. Idempotent.
 */
export function installErrorLogging(logger: Logger): void {
  if (errorLogging) return;
  const state = (errorLogging = { serving: false });
  const report = (message: string) => (error: unknown) => {
    logger.error(message, { error: describe(error) });
    if (!state.serving) process.exit(1);
  };
  process.on("uncaughtException", report("uncaught exception"));
  process.on("unhandledRejection", report("unhandled rejection"));
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

interface Redirected {
  stdout: number;
  stderr: number;
  /** Read side of what now sits behind fd 1 and fd 2. */
  strayStdout: number;
  strayStderr: number;
  /** Unlinked files (never block a writer, see stray-output.ts), or pipes where no temporary file can be made. */
  kind: "file" | "pipe";
}

/**
 * Keep private copies of the protocol stream (`protocolFd`, else fd 1) and of
 * fd 2, then point fds 1 and 2 elsewhere (see {@link Redirected}). Undefined
 * where neither way works.
 */
function redirectStdio(protocolFd: number | undefined): Redirected | undefined {
  const reopened = reopenStdio(protocolFd);
  if (reopened) return reopened;
  try {
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    const linux = process.platform === "linux";
    const name = process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6";
    const { symbols: c } = dlopen(name, {
      dup: { args: [FFIType.i32], returns: FFIType.i32 },
      dup2: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      pipe: { args: [FFIType.ptr], returns: FFIType.i32 },
      close: { args: [FFIType.i32], returns: FFIType.i32 },
      // Variadic: called with a fixed third argument only where that is the same call (Linux).
      fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    });
    // The launcher's descriptor is already private (fd 1 is stderr): it is kept, not copied.
    const stdout = protocolFd ?? c.dup(1);
    const stderr = c.dup(2);
    if (stdout < 0 || stderr < 0) return undefined;
    // F_SETFD, FD_CLOEXEC: a child process never inherits the private copies.
    if (linux) for (const fd of [stdout, stderr]) c.fcntl(fd, 2, 1);
    const { openStrayFile } = stray();
    const outFile = openStrayFile("stdout");
    const errFile = outFile && openStrayFile("stderr");
    if (outFile && errFile) {
      if (c.dup2(outFile.write, 1) < 0 || c.dup2(errFile.write, 2) < 0) return undefined;
      c.close(outFile.write);
      c.close(errFile.write);
      return { stdout, stderr, strayStdout: outFile.read, strayStderr: errFile.read, kind: "file" };
    }
    const out = new Int32Array(2);
    const err = new Int32Array(2);
    if (c.pipe(ptr(out)) < 0 || c.pipe(ptr(err)) < 0) return undefined;
    if (c.dup2(out[1]!, 1) < 0 || c.dup2(err[1]!, 2) < 0) return undefined;
    c.close(out[1]!);
    c.close(err[1]!);
    return { stdout, stderr, strayStdout: out[0]!, strayStderr: err[0]!, kind: "pipe" };
  } catch {
    return undefined;
  }
}

/** Turn whatever reaches a redirected descriptor into log lines. */
async function logPipe(fd: number, write: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let partial = "";
  const emit = (line: string) => {
    const text = line.replace(/\r$/, "");
    if (text.trim() !== "") write(text);
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

/**
 * Under an octet host (it sets `OCTET_EXTENSION_NAME` and
 * `OCTET_EXTENSION_API_VERSION`, docs/protocol-0.2.md §1.5), send `console.*` to structured
 * stderr from the moment the SDK is imported, so that printing at module top
 * level or before `run()` cannot reach stdout (fatal for octet). Elsewhere (a
 * test runner, a script that merely constructs an `Extension`) the console is
 * left alone until `run()`.
 */
export function routeConsoleWhenHosted(logger: Logger): void {
  if (launchedByHost()) routeConsole(logger);
}

let stderrSink: ReturnType<typeof Bun.stderr.writer> | undefined;

/**
 * Write one line to stderr (the private copy of fd 2 once sealed), flushed
 * at once: every structured log line goes through here. The sink is made on
 * the first line (a FileSink costs ~0.07 ms the first reply need not wait for).
 */
export function writeStderrLine(line: string): void {
  stderrSink ??= Bun.stderr.writer();
  stderrSink.write(line + "\n");
  void stderrSink.flush();
}

/** Where routed `console.*` calls go: the latest logger to claim the console. */
let consoleLogger: Logger | undefined;

/** Install the `console.*` routes once; a later call only changes the logger they write to. */
function routeConsole(logger: Logger): void {
  const installed = consoleLogger !== undefined;
  consoleLogger = logger;
  if (installed) return;
  const format = (args: unknown[]) => args.map((a) => (typeof a === "string" ? a : Bun.inspect(a))).join(" ");
  for (const [method, level] of CONSOLE_LEVELS) {
    (console as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => consoleLogger!.write(level, format(args), { source: "console" });
  }
}

/** JS-level fallback: line-buffer a Node stream's writes into log lines. */
function routeStream(stream: NodeJS.WriteStream, logger: Logger, level: LogLevel, source: string): void {
  let partial = "";
  (stream as unknown as { write: unknown }).write = (chunk: unknown, encodingOrCallback?: unknown, callback?: unknown) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") logger.write(level, line.replace(/\r$/, ""), { source });
    const done = typeof encodingOrCallback === "function" ? encodingOrCallback : callback;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  };
  process.once("exit", () => {
    if (partial.trim() !== "") logger.write(level, partial, { source });
  });
}

/**
 * Seal without FFI (a few system calls, ~0.1 ms, against ~0.7 ms to load
 * libc through `bun:ffi`): open a private copy of fds 1 and 2 through
 * `/proc/self/fd` (`/dev/fd` on macOS), then close each and reopen the stray
 * file in its place (`open` takes the lowest free descriptor). For pipes (as
 * under octet), terminals and files; a socket cannot be reopened.
 * Bun opens every file close-on-exec, so the private copies never leak into
 * child processes, while the new fds 1 and 2 reach children that inherit
 * stdio (the spawn sets them up explicitly). A launcher's `protocolFd` is
 * reopened the same way, then closed.
 */
function reopenStdio(protocolFd: number | undefined): Redirected | undefined {
  const dir = process.platform === "linux" ? "/proc/self/fd" : process.platform === "darwin" ? "/dev/fd" : undefined;
  if (!dir) return undefined;
  let flags: [number, number];
  try {
    const mode = (fd: number) => {
      const stat = fs().fstatSync(fd);
      // A regular file is reopened appending (its own offset would overwrite); a socket cannot be reopened.
      if (stat.isFIFO() || stat.isCharacterDevice()) return fs().constants.O_WRONLY;
      if (stat.isFile()) return fs().constants.O_WRONLY | fs().constants.O_APPEND;
      return undefined;
    };
    const out = mode(protocolFd ?? 1);
    const err = mode(2);
    if (out === undefined || err === undefined) return undefined;
    flags = [out, err];
    fs().fstatSync(0); // open: a closed fd 0 would be the lowest free descriptor
  } catch {
    return undefined;
  }
  const opened: number[] = [];
  try {
    const stdout = fs().openSync(`${dir}/${protocolFd ?? 1}`, flags[0]);
    opened.push(stdout);
    const stderr = fs().openSync(`${dir}/2`, flags[1]);
    opened.push(stderr);
    const { openStrayPath } = stray();
    const out = openStrayPath("stdout");
    const err = openStrayPath("stderr");
    if (!out || !err) return undefined;
    opened.push(out.read, err.read);
    for (const [fd, stray] of [[1, out], [2, err]] as const) {
      fs().closeSync(fd);
      const reopened = fs().openSync(stray.path, fs().constants.O_WRONLY | fs().constants.O_APPEND);
      fs().unlinkSync(stray.path);
      // Another thread took the free number first: move the file where it belongs (FFI, rare).
      if (reopened !== fd) moveDescriptor(reopened, fd);
    }
    if (protocolFd !== undefined) fs().closeSync(protocolFd);
    return { stdout, stderr, strayStdout: out.read, strayStderr: err.read, kind: "file" };
  } catch {
    for (const fd of opened) {
      try {
        fs().closeSync(fd);
      } catch {
        /* already closed */
      }
    }
    return undefined;
  }
}

/** `dup2(from, to)` then `close(from)`, through libc; throws where FFI is unavailable. */
function moveDescriptor(from: number, to: number): void {
  const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
  const { symbols: c } = dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", {
    dup2: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
  });
  if (c.dup2(from, to) < 0) throw new Error(`cannot move fd ${from} to ${to}`);
  c.close(from);
}
