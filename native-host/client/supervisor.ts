/**
 * A supervisor for one conversation with `octet-host`: what an application
 * needs around a host that serves one request at a time and is gone after a
 * cancel or a crash (docs/native-host-protocol.md §3, §13, §14).
 *
 * - Requests are queued, never refused for being second: a run starts once
 *   the previous request has ended (for a run, once its result settled).
 * - The host is started on first use and started again, with `hello` and
 *   `models`, for the next request after it was cancelled, timed out,
 *   crashed or broke the protocol. The failed request itself is not retried.
 * - Every run carries the supervisor's session id, so the run after a
 *   relaunch continues the same session file (§13: "a later run can continue
 *   the same session").
 */
import { NativeHost, type LaunchOptions, type RunControl } from "./client.ts";
import { Cancelled, HostUnavailable, InvalidRequest } from "./errors.ts";
import type { ModelInfo } from "./events.ts";
import { checkSessionId } from "./ids.ts";
import type { RunParams } from "./requests.ts";
import type { RunHandle } from "./run.ts";
import { SerialQueue } from "./serial-queue.ts";

export interface SupervisorOptions {
  /** How each host is launched (path, cwd, env, deadlines, `onStderrLine` …). Its `signal`, if any, also ends every launch. */
  launch: LaunchOptions;
  /** The conversation's session id (`A–Z a–z 0–9 - _ .`). Default: a new `session-…` id. */
  sessionId?: string;
  /** Build the catalog of each new host with `models {offline}`. Default true (no live discovery). */
  offlineModels?: boolean;
  /** Called after each launch, once `hello` and `models` succeeded (e.g. to log a relaunch). */
  onLaunch?: (host: NativeHost, models: ModelInfo[]) => void;
}

/** A run's fields without the session ones: the supervisor supplies `session_id`. */
export type SupervisedRunParams = Omit<RunParams, "session_id" | "resume_session">;

/** @deprecated Renamed {@link SupervisedRunParams}. */
export type SupervisedRunOptions = SupervisedRunParams;

export class Supervisor {
  /** The session every run continues. */
  readonly sessionId: string;
  private readonly queue = new SerialQueue();
  private current: NativeHost | undefined;
  private catalog: ModelInfo[] = [];
  private launchCount = 0;
  private runCount = 0;
  private closing: Promise<void> | undefined;

  /** Throws {@link InvalidRequest} for a session id octet's host would refuse. Starts nothing. */
  constructor(private readonly options: SupervisorOptions) {
    const sessionId = options.sessionId ?? `session-${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
    const problem = checkSessionId(sessionId);
    if (problem) throw new InvalidRequest(problem);
    this.sessionId = sessionId;
  }

  /** The current host while it is usable; undefined before the first launch and after it ended. */
  get host(): NativeHost | undefined {
    return this.current?.usable ? this.current : undefined;
  }

  /** Hosts launched so far (hello and models succeeded). */
  get launches(): number {
    return this.launchCount;
  }

  /** Requests waiting for their turn. */
  get queued(): number {
    return this.queue.size;
  }

  /**
   * Queue a run in this conversation. Resolves with its {@link RunHandle}
   * once the run was sent (after the requests queued before it, on a host
   * launched or relaunched as needed); iterate it or await `result` as with
   * {@link NativeHost.run}. `control.signal` covers the wait in the queue,
   * the launch and the run; `control.timeoutMs` counts from the run's start.
   *
   * @example
   * const supervisor = new Supervisor({ launch: { cwd: workspace, env: minimalEnv(process.env, { providerCredentials: true }) } });
   * const run = await supervisor.run({ workspace, model: "gpt-5.6", prompt: "Hello" });
   * for await (const event of run) if (event.type === "model_delta") process.stdout.write(event.data.text);
   */
  run(options: SupervisedRunParams, control: RunControl = {}): Promise<RunHandle> {
    for (const field of ["session_id", "resume_session"]) {
      if (Object.hasOwn(options, field)) return Promise.reject(new InvalidRequest(`${field} is the supervisor's: every run continues session ${this.sessionId}; use another Supervisor for another session`));
    }
    return this.queue.enqueue(
      async () => {
        const fields = { ...options, run_id: options.run_id ?? `run-${++this.runCount}`, session_id: this.sessionId };
        let host = await this.ensureHost(control.signal);
        let handle: RunHandle;
        try {
          handle = host.run(fields, control);
        } catch (error) {
          // The host ended between the check and the run (e.g. it exited while idle): once more on a new one.
          if (!(error instanceof HostUnavailable)) throw error;
          host = await this.ensureHost(control.signal);
          handle = host.run(fields, control);
        }
        return { value: handle, holdUntil: handle.result };
      },
      control.signal,
      () => new Cancelled("the run was cancelled before it started"),
    );
  }

  /** The catalog of the current host, launching one first if needed (queued like a run). */
  models(control: { signal?: AbortSignal } = {}): Promise<ModelInfo[]> {
    return this.queue.enqueue(
      async () => {
        await this.ensureHost(control.signal);
        return { value: this.catalog.slice() };
      },
      control.signal,
      () => new Cancelled("models was cancelled before it started"),
    );
  }

  /**
   * Stop: requests still waiting reject with {@link HostUnavailable}, the
   * request in flight finishes, then the host is shut down (killed if it
   * does not shut down cleanly). Later calls reject with HostUnavailable.
   */
  close(): Promise<void> {
    this.queue.close(new HostUnavailable("the supervisor was closed"));
    return (this.closing ??= this.queue.idle().then(async () => {
      const host = this.current;
      this.current = undefined;
      if (!host) return;
      if (!host.usable) {
        await host.kill();
        return;
      }
      try {
        await host.shutdown();
      } catch {
        await host.kill();
      }
    }));
  }

  /** The usable host, or a new one (hello, then models) in place of one that ended. */
  private async ensureHost(signal: AbortSignal | undefined): Promise<NativeHost> {
    if (this.current?.usable) return this.current;
    const ended = this.current;
    this.current = undefined;
    // Its group was terminated or swept already; this only waits for that to finish.
    if (ended) await ended.kill();
    const signals = [this.options.launch.signal, signal].filter((s): s is AbortSignal => s !== undefined);
    const launchSignal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const host = await NativeHost.launch({ ...this.options.launch, signal: launchSignal });
    try {
      this.catalog = await host.models({ offline: this.options.offlineModels ?? true, signal: launchSignal });
    } catch (error) {
      await host.kill();
      throw error;
    }
    this.current = host;
    this.launchCount++;
    this.options.onLaunch?.(host, this.catalog.slice());
    return host;
  }
}
