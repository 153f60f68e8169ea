/**
 * The script language of the native-host double (`bin/octet-host-double`).
 *
 * The double behaves like octet 0.8.0's `octet-host` (protocol 1) unless a
 * scenario says otherwise. A scenario is chosen with the environment
 * variable `OCTET_HOST_DOUBLE_SCENARIO`: a {@link Scenario} as inline JSON
 * (the value starts with `{`) or the path of a JSON file holding one.
 * `OCTET_HOST_DOUBLE_RECORD`, when set, names a file to which every request
 * line the double reads is appended verbatim (with LF), so tests can assert
 * what a client sent.
 *
 * A scenario is checked when it is loaded (`scenario-check.ts`): an unknown
 * key or a value of the wrong type is reported on stderr and the double
 * exits 2 before reading anything. When the steps for a request have
 * written no terminal event, or several, a warning goes to stderr (the
 * script still runs); requests whose steps write `raw` bytes are not
 * checked, as those bytes are not parsed.
 */
import type { CatalogEntry } from "./catalog.ts";

/** Envelope fields a step may override (`null` removes the field). */
export interface EnvelopePatch {
  protocol_version?: unknown;
  request_id?: unknown;
  run_id?: unknown;
  session_id?: unknown;
  seq?: unknown;
  type?: unknown;
  [extra: string]: unknown;
}

export type Step =
  /**
   * One event for the current request, enveloped as the real host does
   * (request_id, run_id/session_id for runs, next seq). `envelope` overrides
   * or (with null) removes envelope fields; a `seq` override also moves the
   * counter, so later events continue from it. `splitAt` writes the encoded
   * line in pieces cut at these byte offsets, 5 ms apart.
   *
   * Without `data`, the event gets the data the real host would write: in a
   * run, `accepted` (model, resolved model, session file, tools, policy),
   * `started` (`{model}`), `settled` (completed, the session head) and
   * `final_result` (completed, the text of the last `model_delta`s committed
   * by a `model_step`, the counts of `model_step`s and `tool_start`s so far,
   * the session file); `hello`: the hello data; `models`: the catalog;
   * `shutdown` while answering shutdown: `{accepted:true}`; otherwise `{}`.
   * An `accepted` event counts as the run's accepted (a later `defaultRun`
   * does not write another). Scripted data is written as given (no
   * clipping). An event over 1,048,575 bytes is replaced by the
   * outbound-oversize `protocol_error` and ends the request.
   */
  | { event: string; data?: Record<string, unknown>; envelope?: EnvelopePatch; splitAt?: number[] }
  /**
   * The realistic events of a successful run (accepted … final_result) for `answer` (default "You said: <prompt>").
   * `accepted` is left out when an earlier step of the run already wrote it; media are checked after it.
   * `envPresence` (instead of `answer`) makes the answer report which of these environment variables the
   * double was started with, as `NAME=set` or `NAME=unset` separated by spaces: names only, never values,
   * so a test can check what a client passed to the host without a secret reaching any output.
   */
  | { defaultRun: true; answer?: string; envPresence?: string[] }
  /** `accepted` as the real host writes it for this run. */
  | { accepted: true }
  /** Bytes written verbatim to stdout, nothing added (include "\n" for a whole line). */
  | { raw: string; splitAt?: number[] }
  /**
   * A line of `bytes` bytes including its LF: a JSON event padded with spaces inside `data`
   * (a `model_delta`'s `text` is the padding; other types get whitespace in an empty `data`).
   * Written even when over the frame limit (a deliberate fault).
   */
  | { paddedEvent: string; bytes: number }
  /** Free text on stderr, `repeat` times (default 1). */
  | { stderr: string; repeat?: number }
  /** Wait this long (the double reads nothing meanwhile, like the real host during a run). */
  | { sleepMs: number }
  /** Stay alive and silent until signalled. */
  | { stall: true }
  /** Exit now with this status, like a crash: spawned children are left running. */
  | { exit: number }
  /** Signal the double itself (e.g. "SIGKILL"). */
  | { signal: NodeJS.Signals }
  /**
   * Start a child in the double's process group (e.g. ["sleep", "600"]); its pid goes to stderr as
   * `child-pid <n>`. It is killed when the double is signalled, and stopped (TERM, 400 ms, KILL) when
   * the double exits at EOF or after `shutdown`.
   */
  | { spawn: string[] };

export interface Scenario {
  /** Steps written before anything is read (a banner, for example). Their events have no request_id unless `envelope` adds one. */
  preamble?: Step[];
  /** Replaces the reply to `hello`. Default: the real host's hello event. */
  hello?: Step[];
  /** Merged into the default hello `data` (`null` removes a key; `features` is merged one level deeper). */
  helloData?: Record<string, unknown>;
  /**
   * Models merged by id into the double's default catalog (claude-sonnet-4.5, gpt-5.6, gpt-audio-1.5):
   * an entry with a known id overrides the keys it gives, others are added. The catalog is what `models`
   * lists and what a run without `base_url` must name — an unknown `model` fails at seq 1 with
   * `Unknown model: ModelId("<id>")`. See {@link CatalogEntry} for the defaults of omitted keys.
   */
  catalog?: CatalogEntry[];
  /** Replaces the reply to `models`. Default: the catalog, sorted by id. */
  models?: Step[];
  /**
   * Scripts for `run` requests that pass the checks of docs/native-host-protocol.md §5 and the
   * run validation: the n-th such run uses `runs[n]`, the last one repeats. Default:
   * `[{ defaultRun: true }]`.
   */
  runs?: Step[][];
  /** Replaces the reply to `shutdown`. Default: `shutdown {accepted:true}`, flush, exit 0. After these steps the double exits 0 (unless a step exited). */
  shutdown?: Step[];
  /** Ignore SIGTERM (so a client must escalate to SIGKILL). */
  ignoreSigterm?: boolean;
}
