/**
 * The native-host client (spec native-host, all of it): launches `octet-host`
 * as its own process-group leader, validates `hello` before any work, sends
 * one request at a time and checks every event the host writes. Any protocol
 * violation kills the host's group and makes the instance unusable; a dead or
 * silent host never leaves a call hanging: stdout EOF and the host's exit are
 * both watched (a grandchild holding stdout open cannot hide an exit), and
 * deadlines terminate the group. Once the host has exited, members left in its
 * group are killed.
 */
import { LineSplitter, lineBytes } from "./line-splitter.ts";
import { minimalEnv } from "./environment.ts";
import {
  Cancelled,
  HandshakeError,
  HostExited,
  HostSpawnError,
  HostUnavailable,
  InvalidRequest,
  NativeHostError,
  ProtocolViolation,
  RequestRejected,
  Timeout,
  UnsupportedProtocolVersion,
} from "./errors.ts";
import type { ModelInfo } from "./events.ts";
import { validateHello, type HelloInfo } from "./hello.ts";
import { forgetOnExit, killOnExit } from "./exit-cleanup.ts";
import { signalGroup, terminateGroup, type Exit } from "./process-group.ts";
import { RequestTracker, type RawEvent } from "./request-tracker.ts";
import { DEFAULT_MAX_FRAME_BYTES, encodeRequest, type Command, type RunParams } from "./requests.ts";
import { RunHandle } from "./run.ts";
import { StderrLines } from "./stderr-lines.ts";
import { StderrTail } from "./stderr-tail.ts";
import { credentialValues } from "./provider-credentials.ts";
import { parseEventLine } from "./strict-json.ts";

export interface LaunchOptions {
  /** The host executable. Default `octet-host`, looked up on the `PATH` of `env`. */
  path?: string;
  /** The host's working directory (it builds offline catalogs from it). Default: the current directory. */
  cwd?: string;
  /** The host's whole environment. Default {@link minimalEnv}(). */
  env?: Record<string, string>;
  /** Deadline for the hello reply. Default 10 s. */
  handshakeTimeoutMs?: number;
  /** Deadline for `models` and `shutdown` replies. Default 60 s. */
  requestTimeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when the group is terminated. Default 4 s. */
  graceMs?: number;
  /** stderr bytes kept for diagnostics. Default 64 KiB. */
  stderrTailBytes?: number;
  /** Strings masked in stderr tails and lines (credentials in `env`, and api keys and header values of runs, are added automatically). */
  secrets?: string[];
  /**
   * Aborting it while `launch()` runs terminates the host and makes `launch()`
   * throw {@link Cancelled}; already aborted, nothing is started. It has no
   * effect once `launch()` returned.
   */
  signal?: AbortSignal;
  /**
   * Called with each line the host writes on stderr, e.g. to forward it to the
   * application's logger: without its line end, decoded leniently, secrets
   * masked; a line longer than `stderrTailBytes` arrives in pieces. Exceptions
   * it throws are ignored. The stderr tail is kept either way.
   */
  onStderrLine?: (line: string) => void;
}

export interface RunControl {
  /** Terminate the host and reject with {@link Timeout} when the run takes longer. Default: no deadline. */
  timeoutMs?: number;
  /** Aborting it cancels the run (as {@link RunHandle.cancel}); already aborted, `run()` throws {@link Cancelled}. */
  signal?: AbortSignal;
  /**
   * Keep events for iteration (default true). With false the run is only
   * observed through `result` and `text`, and events are not retained.
   */
  retainEvents?: boolean;
  /**
   * Read backpressure: while an iterator is attached and more events than
   * this wait for it, stop reading the host (it then blocks on its stdout)
   * until the iterator is down to half. Do not await `result` inside the loop
   * then: the loop has to keep pulling. Default: no limit.
   */
  maxBacklog?: number;
}

interface Pending {
  tracker: RequestTracker;
  onEvent(event: RawEvent, terminal: boolean): void;
  fail(error: Error): void;
  /** Resolves once the consumer caught up (read backpressure); undefined when no wait is needed. */
  backpressure?(): Promise<void> | undefined;
}

/** How long stdout may stay open after the host exited and its group was swept (a process outside the group may hold it). */
const STDOUT_AFTER_EXIT_MS = 2_000;

type State = { kind: "ready" } | { kind: "closing" } | { kind: "dead"; error: Error };

export class NativeHost {
  /** The validated hello reply. */
  hello!: HelloInfo;
  /** Resolves when the host process ended. */
  readonly exited: Promise<Exit>;
  private state: State = { kind: "ready" };
  private pending: Pending | undefined;
  private counter = 0;
  private readonly secrets = new Set<string>();
  private readonly stderr: StderrTail;
  private readonly options: Required<Omit<LaunchOptions, "path" | "cwd" | "env" | "secrets" | "signal" | "onStderrLine">>;
  private cancelling: Error | undefined;
  private stdinOpen = true;
  /** Set once the end of the host (stdout closed or exited) was handled. */
  private over = false;
  private groupSwept = false;
  private terminating: Promise<Exit> | undefined;
  private stdoutDone!: () => void;
  private readonly stdoutClosed = new Promise<void>((resolve) => (this.stdoutDone = resolve));

  private constructor(
    private readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">,
    options: LaunchOptions,
    env: Record<string, string>,
  ) {
    this.options = {
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      graceMs: options.graceMs ?? 4_000,
      stderrTailBytes: options.stderrTailBytes ?? 64 * 1024,
    };
    for (const secret of [...(options.secrets ?? []), ...credentialValues(env)]) this.secrets.add(secret);
    const lines = options.onStderrLine && new StderrLines(this.options.stderrTailBytes, options.onStderrLine, () => this.secrets);
    this.stderr = new StderrTail(proc.stderr, this.options.stderrTailBytes, () => this.secrets, lines);
    this.exited = proc.exited.then(() => ({ code: proc.signalCode ? null : proc.exitCode, signal: proc.signalCode ? String(proc.signalCode) : null }));
    void this.readEvents();
    void this.watchExit();
  }

  /**
   * Start the host and complete the handshake. Throws {@link HostSpawnError}
   * when it cannot start or dies first, {@link HandshakeError} when its hello
   * describes a host this client cannot drive, {@link ProtocolViolation},
   * {@link Timeout}, or {@link Cancelled} when `options.signal` aborts; the
   * host is terminated in every failure case.
   */
  static async launch(options: LaunchOptions = {}): Promise<NativeHost> {
    if (options.signal?.aborted) throw new Cancelled("launch was cancelled before the host was started");
    const env = options.env ?? minimalEnv();
    const path = options.path ?? "octet-host";
    let proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
    try {
      const command = path.includes("/") ? path : (Bun.which(path, { PATH: env.PATH ?? "" }) ?? path);
      proc = Bun.spawn([command], { cwd: options.cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
    } catch (error) {
      throw new HostSpawnError(`cannot start ${path}: ${(error as Error).message}`);
    }
    killOnExit(proc.pid);
    const host = new NativeHost(proc, options, env);
    try {
      const hello = await host.request("hello", {}, host.options.handshakeTimeoutMs, options.signal);
      host.hello = validateHello(hello.data);
    } catch (error) {
      await host.kill();
      if (error instanceof HostExited) throw new HostSpawnError(`${path} ended before completing the handshake (${error.signal ?? `status ${error.exitCode}`})`, error.exitCode, error.stderrTail);
      if (error instanceof RequestRejected) throw new HandshakeError(`octet-host handshake failed: hello was rejected: ${error.error}`);
      throw error;
    }
    return host;
  }

  /** The process id, which is also the process group id. */
  get pid(): number {
    return this.proc.pid;
  }

  /** The last bytes the host wrote on stderr (bounded, secrets masked). */
  get stderrTail(): string {
    return this.stderr.text();
  }

  /** stderr bytes received in total (the tail keeps at most `stderrTailBytes`). */
  get stderrBytes(): number {
    return this.stderr.total;
  }

  /** Whether a request is in flight. */
  get busy(): boolean {
    return this.pending !== undefined;
  }

  /**
   * Whether this instance can still serve requests: false once it was shut
   * down, had its stdin closed, was cancelled or killed, failed, or the host
   * exited. A request in flight does not make it unusable.
   */
  get usable(): boolean {
    return this.state.kind === "ready" && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /**
   * The model catalog (docs/native-host-protocol.md §6.2). `offline` suppresses live discovery while
   * it is built. Protocol 1 has no in-band abort: aborting `signal` while the
   * request is pending terminates the host (as a run's cancel does) and
   * rejects with {@link Cancelled}; already aborted, nothing is written and
   * the host stays usable.
   */
  async models(options: { offline?: boolean; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ModelInfo[]> {
    const reply = await this.request("models", { offline: options.offline }, options.timeoutMs ?? this.options.requestTimeoutMs, options.signal);
    return reply.data.models as ModelInfo[];
  }

  /**
   * Start a run (docs/native-host-protocol.md §6.3). Local checks happen now: an invalid request, a
   * request in flight, or an unusable host throw before anything is written.
   */
  run(options: RunParams, control: RunControl = {}): RunHandle {
    const runId = options.run_id ?? `run-${++this.counter}`;
    const fields = { ...options, run_id: runId } as Record<string, unknown>;
    const requestId = this.nextRequestId("req");
    const line = this.prepare("run", requestId, fields);
    if (control.signal?.aborted) throw new Cancelled(`run ${runId} was cancelled before it was sent`);
    for (const secret of [options.api_key, ...Object.values(options.custom_headers ?? {})]) if (secret) this.secrets.add(secret);
    let pending!: Pending;
    // Cancelling a run only ever ends that run: once it finished, cancel() does nothing.
    const handle = new RunHandle(requestId, runId, () => this.cancel(new Cancelled(`run ${runId} was cancelled`), pending), control.retainEvents ?? true, control.maxBacklog);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => void handle.cancel();
    const cleanup = () => {
      clearTimeout(timer);
      control.signal?.removeEventListener("abort", onAbort);
    };
    pending = {
      tracker: new RequestTracker("run", requestId, runId, options.session_id),
      onEvent: (event, terminal) => {
        if (event.type === "protocol_error") {
          cleanup();
          return handle.fail(rejection(event, requestId));
        }
        handle.deliver(event);
        if (terminal) cleanup();
      },
      fail: (error) => {
        cleanup();
        handle.fail(error);
      },
      backpressure: () => handle.backpressure(),
    };
    this.begin(line, pending);
    if (control.timeoutMs !== undefined) {
      const ms = control.timeoutMs;
      timer = setTimeout(() => void this.cancel(new Timeout(`run ${runId}`, ms), pending), ms);
    }
    control.signal?.addEventListener("abort", onAbort, { once: true });
    return handle;
  }

  /**
   * Ask the host to stop (docs/native-host-protocol.md §6.4) and wait for it to exit. Throws
   * {@link HostExited} when it exits with a non-zero status after replying.
   */
  async shutdown(options: { timeoutMs?: number } = {}): Promise<Exit> {
    await this.request("shutdown", {}, options.timeoutMs ?? this.options.requestTimeoutMs);
    this.endInput();
    const exit = await this.waitExit(options.timeoutMs ?? this.options.requestTimeoutMs);
    this.state = { kind: "dead", error: new HostUnavailable("the host was shut down") };
    if (exit.code !== 0) throw new HostExited(exit.code, exit.signal, this.stderrTail, "after acknowledging shutdown");
    return exit;
  }

  /**
   * Close the host's stdin. An idle host exits 0; a running one finishes its
   * run first (closing stdin is not a cancel). No request can follow.
   */
  endInput(): void {
    if (this.state.kind === "ready") this.state = { kind: "closing" };
    if (!this.stdinOpen) return;
    this.stdinOpen = false;
    try {
      void this.proc.stdin.end();
    } catch {
      /* already closed */
    }
  }

  /**
   * Terminate the host's process group now (SIGTERM, grace, SIGKILL) and wait
   * for it. A request in flight fails with {@link Cancelled}.
   */
  async kill(): Promise<Exit> {
    if (this.pending) await this.cancel(new Cancelled("the host was killed"), this.pending);
    if (this.state.kind !== "dead") this.state = { kind: "dead", error: new HostUnavailable("the host was terminated") };
    return this.terminate(this.options.graceMs);
  }

  /**
   * Terminate the group, unless the host already exited and its group was
   * swept. One termination at a time: a second SIGTERM would make the real
   * host skip its cleanup of shell children (docs/native-host-protocol.md §13).
   */
  private terminate(graceMs: number): Promise<Exit> {
    if (this.groupSwept) return this.exited;
    return (this.terminating ??= terminateGroup(this.pid, this.exited, graceMs).then((exit) => {
      this.sweepGroup();
      return exit;
    }));
  }

  // ---- requests ------------------------------------------------------------------------

  private nextRequestId(prefix: string): string {
    return `${prefix}-${++this.counter}`;
  }

  /** The encoded line, after the state and every local check (throws; writes nothing). */
  private prepare(command: Command, requestId: string, fields: Record<string, unknown>): string {
    if (this.state.kind === "dead") throw new HostUnavailable(`the host is no longer usable: ${this.state.error.message}`);
    if (this.state.kind === "closing") throw new HostUnavailable("the host is shutting down (stdin closed)");
    if (this.pending) throw new InvalidRequest(`a ${this.pending.tracker.command} request (${this.pending.tracker.requestId}) is in flight; protocol 1 serves one request at a time`);
    return encodeRequest(command, requestId, fields, this.hello);
  }

  private begin(line: string, pending: Pending): void {
    this.pending = pending;
    try {
      this.proc.stdin.write(line);
      void this.proc.stdin.flush();
    } catch {
      // The pipe is gone; the exit watcher reports HostExited.
    }
  }

  /**
   * Send a hello/models/shutdown request and resolve with its terminal event.
   * Aborting `signal` while it is pending terminates the host ({@link Cancelled}).
   */
  private request(command: Exclude<Command, "run">, fields: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<RawEvent> {
    return new Promise((resolve, reject) => {
      const requestId = this.nextRequestId(command === "hello" ? "hello" : command);
      const what = command === "hello" ? "launch" : command;
      let line: string;
      try {
        line = this.prepare(command, requestId, fields);
      } catch (error) {
        return reject(error);
      }
      if (signal?.aborted) return reject(new Cancelled(`${what} was cancelled before it was sent`));
      const timer = setTimeout(() => void this.cancel(new Timeout(command, timeoutMs), pending), timeoutMs);
      const onAbort = () => void this.cancel(new Cancelled(`${what} was cancelled while ${requestId} was pending; the host was terminated`), pending);
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const pending: Pending = {
        tracker: new RequestTracker(command, requestId),
        onEvent: (event) => {
          cleanup();
          if (event.type !== "protocol_error") return resolve(event);
          const error = rejection(event, requestId);
          // An oversized hello/models reply ends the host (docs/native-host-protocol.md §9.4): no further request can be served.
          if (event.data.discarded_type !== undefined) this.state = { kind: "dead", error };
          reject(error);
        },
        fail: (error) => {
          cleanup();
          reject(error);
        },
      };
      this.begin(line, pending);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  // ---- reading events ------------------------------------------------------------------

  private async readEvents(): Promise<void> {
    const limit = () => (this.hello?.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES) - 1;
    let splitterLimit = limit();
    let splitter = new LineSplitter(splitterLimit);
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    let problem: string | undefined;
    const onLine = (event: { violation?: string; text?: string }) => {
      if (problem) return;
      problem = event.violation ?? this.dispatch(event.text!);
    };
    const classify = (e: { kind: string; parts?: Uint8Array[] }): { violation?: string; text?: string } => {
      if (e.kind === "oversize") return { violation: `the host wrote a line over the ${limit() + 1}-byte frame limit` };
      if (e.kind === "unterminated") return { violation: "the host's stdout ended inside a line (truncated frame)" };
      try {
        return { text: decoder.decode(lineBytes(e.parts!)) };
      } catch {
        return { violation: "the host wrote a line that is not valid UTF-8" };
      }
    };
    try {
      for await (const chunk of this.proc.stdout) {
        // A host announcing a smaller frame limit is held to it from its next line on.
        if (splitter.pending === 0 && splitterLimit !== limit()) splitter = new LineSplitter((splitterLimit = limit()));
        splitter.push(chunk, (e) => onLine(classify(e)));
        if (problem) break;
        // A consumer far behind pauses reading; the host then waits on its stdout.
        const caughtUp = this.pending?.backpressure?.();
        // After the host exited only the pipe's last buffer is left: read it regardless.
        if (caughtUp) await Promise.race([caughtUp, this.exited]);
      }
    } catch {
      /* the pipe broke: treated as EOF */
    }
    if (!problem) splitter.end((e) => onLine(classify(e)));
    this.stdoutDone();
    if (problem) return this.violate(problem);
    await this.hostEnded();
  }

  /**
   * The host's exit ends it even when stdout stays open: members left in its
   * group (which may hold the pipe) are killed at once, then stdout gets a
   * little time to deliver what the host wrote last.
   */
  private async watchExit(): Promise<void> {
    await this.exited;
    this.sweepGroup();
    await Promise.race([this.stdoutClosed, Bun.sleep(STDOUT_AFTER_EXIT_MS)]);
    await this.hostEnded();
  }

  /** SIGKILL what is left of the group once the leader exited (once: the pgid may be reused afterwards). */
  private sweepGroup(): void {
    if (this.groupSwept) return;
    this.groupSwept = true;
    signalGroup(this.pid, "SIGKILL");
    forgetOnExit(this.pid);
  }

  /** Route one line; returns a violation or undefined. */
  private dispatch(text: string): string | undefined {
    const parsed = parseEventLine(text);
    if (!parsed.ok) return `the host wrote a line that is ${parsed.reason}: ${preview(text)}`;
    const pending = this.pending;
    if (!pending) {
      if (this.cancelling) return undefined;
      return `the host wrote a ${JSON.stringify(parsed.value.type)} event (request_id ${JSON.stringify(parsed.value.request_id)}) while no request was in flight`;
    }
    const checked = pending.tracker.check(parsed.value);
    if (!checked.ok) return checked.violation;
    if (this.cancelling) return undefined;
    if (checked.terminal) this.pending = undefined;
    pending.onEvent(checked.event, checked.terminal);
    return undefined;
  }

  /** A protocol violation: poison the instance, terminate the group (1 s grace at most), fail the request in flight. */
  private async violate(message: string): Promise<void> {
    if (this.state.kind === "dead" && !this.pending) return;
    const pending = this.pending;
    this.pending = undefined;
    this.state = { kind: "dead", error: new ProtocolViolation(message) };
    await this.terminate(Math.min(this.options.graceMs, 1000));
    await Promise.race([this.stderr.done, Bun.sleep(200)]);
    const error = new ProtocolViolation(message, this.stderrTail);
    this.state = { kind: "dead", error };
    pending?.fail(this.cancelling ?? error);
  }

  /** The host is gone (stdout ended or it exited): wait for its exit, sweep its group, fail what is pending. Runs once. */
  private async hostEnded(): Promise<void> {
    if (this.over) return;
    this.over = true;
    const exit = await this.waitExit(2_000);
    this.sweepGroup();
    await Promise.race([this.stderr.done, Bun.sleep(200)]);
    const pending = this.pending;
    this.pending = undefined;
    const error = this.cancelling ?? new HostExited(exit.code, exit.signal, this.stderrTail, pending ? `while ${pending.tracker.requestId} was pending` : "");
    if (this.state.kind !== "dead") this.state = { kind: "dead", error: exit.code === 0 && !pending ? new HostUnavailable("the host exited") : error };
    pending?.fail(error);
  }

  /** The exit of the host, terminating its group when it does not exit within `ms`. */
  private async waitExit(ms: number): Promise<Exit> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
    const first = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (first !== "late") return first;
    return this.terminate(this.options.graceMs);
  }

  /**
   * Cancellation and deadlines: terminate the group; `target` fails with
   * `reason`. Nothing happens unless `target` is still the request in flight.
   */
  private async cancel(reason: NativeHostError, target: Pending): Promise<void> {
    if (this.cancelling || this.pending !== target) return;
    this.cancelling = reason;
    this.pending = undefined;
    this.state = { kind: "dead", error: reason };
    await this.terminate(this.options.graceMs);
    target.fail(reason);
  }
}

/** The error for a `protocol_error` event answering request `requestId`. */
function rejection(event: RawEvent, requestId: string): RequestRejected {
  const error = String(event.data.error);
  return error === "unsupported protocol version" ? new UnsupportedProtocolVersion(error, event.data, requestId) : new RequestRejected(error, event.data, requestId);
}

function preview(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
