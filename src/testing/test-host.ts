import { encodeFrame } from "../wire/encode.ts";
import { readId, wireId, type RequestId } from "../wire/ids.ts";
import { parseJson, readUnsigned64 } from "../wire/json.ts";
import { MAX_CHILD_WORKER_REQUESTS, MAX_EXTENSION_REQUEST_IDS, MAX_MESSAGE_BYTES, MAX_OUTSTANDING_EXTENSION_REQUESTS } from "../wire/limits.ts";
import { checkInitializeResult, checkNotification, checkRequest, checkResponseEnvelope, FATAL_CHILD_OVERFLOW, holdsChildWorker } from "./host-rules.ts";
import { checkProgressParams, checkServiceRequest, defaultReply, OPERATION_SCOPED } from "./host-services.ts";
import { checkSnapshot } from "../runtime/presentation.ts";
import { cleanupLaunch, pathWithBun, planLaunch, type LaunchPlan } from "./launch.ts";
import { temporaryDirectory } from "./temp-dirs.ts";
import { type HostManifest, loadManifest } from "./manifest.ts";
import { HostLineReader, type HostReadEvent } from "./stdout-reader.ts";


type Obj = Record<string, unknown>;

/** The two API 0.2 features a host always requires. */
export const REQUIRED_FEATURES = ["request_cancellation", "content_parts"];
/** octet's default optional offer for API 0.2 (spec §3.1). */
export const DEFAULT_OPTIONAL_FEATURES = ["request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools"];

export interface TestHostOptions {
  /** Workspace root (cwd of the extension); default: a fresh temporary directory. */
  workspace?: string;
  /** The host's own environment, filtered as octet does (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** `octet_version` sent in initialize (default `"0.8.0"`). */
  octetVersion?: string;
  /** API 0.2 offer (default: required two, octet's five optional, limit 64). */
  offer?: { required?: string[]; optional?: string[]; maxConcurrentRequests?: number };
  /** Timeout for each host request in ms (default 30 000, as octet). */
  requestTimeoutMs?: number;
  /** Add a `bun` to PATH when there is none (default true; false to test bundles that must not need Bun). */
  addBunToPath?: boolean;
  /** `OCTET_EXTENSION_SCRATCH` to use and keep (default: a fresh directory removed at exit). */
  scratch?: string;
  /** Treat non-JSON stderr lines as violations (octet 0.8.0 runtime contract; default true). */
  strictStderr?: boolean;
}

/** One recorded frame. */
export interface TranscriptEntry {
  from: "host" | "extension";
  /** The line as written, without LF. */
  text: string;
  /** Parsed frame (undefined for lines that were not JSON). */
  frame?: Obj;
}

/** The error reply of a host request, thrown by {@link TestHost.call}. */
export class ReplyError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "ReplyError";
  }
}

/** The extension did something the octet host treats as fatal; the process was killed. */
export class HostViolation extends Error {
  override name = "HostViolation";
}

/** Scripted answer to an extension→host request: a result, or `TestHost.errorReply(...)`, or `TestHost.noReply`. */
export type Responder = (params: Obj, frame: Obj) => unknown;

const ERROR_REPLY = Symbol("errorReply");
const NO_REPLY = Symbol("noReply");

interface Pending {
  method: string;
  resolve(reply: Obj): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Extension requests made on its behalf and not yet answered. */
  children: Set<RequestId>;
  /** Last `$/progress` sequence seen for it. */
  progressSequence: number;
}

/**
 * A strict stand-in for octet 0.8.0's extension host, for tests. It launches an
 * extension exactly as octet does, speaks the legacy wire, records every frame,
 * and fails loudly (killing the process, rejecting pending calls) on anything
 * octet would treat as fatal (spec §1.9).
 *
 * @example
 * const host = await TestHost.start("examples/hello-world");
 * await host.initialize();
 * expect(await host.callTool("hello_world", { name: "Ada" })).toEqual({ content: "Hello, Ada!", is_error: false, metadata: {} });
 * expect(await host.shutdown()).toBe(0);
 */
export class TestHost {
  readonly transcript: TranscriptEntry[] = [];
  /** Raw stderr lines. */
  readonly stderr: string[] = [];
  /** Fatal rule breaks (octet would have killed the extension). */
  readonly violations: string[] = [];
  /** Non-fatal host diagnostics (ignored frames, late replies, …). */
  readonly diagnostics: string[] = [];
  /** Resolves with the exit code once the process is gone. */
  readonly exited: Promise<number>;
  /** Features agreed in initialize (API 0.2). */
  features: ReadonlySet<string> = new Set();

  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly responders = new Map<string, Responder>();
  private readonly extensionIds = new Set<RequestId>();
  /** Extension→host requests not yet answered, with their methods. */
  private readonly outstandingExtension = new Map<RequestId, string>();
  private initialized = false;
  private sentRaw = false;
  private offered = { features: [] as string[], required: [] as string[] };
  private exitCode: number | undefined;
  /** Set by the first fatal violation: like octet, the host stops reading the extension's stdout. */
  private closed = false;
  /** Settles when stdout and stderr have been read to their end. */
  private readonly drained: Promise<unknown>;
  private frameWaiters: { predicate: (e: TranscriptEntry) => boolean; resolve: (e: TranscriptEntry) => void; reject: (error: unknown) => void }[] = [];

  private constructor(
    readonly manifest: HostManifest,
    readonly workspace: string,
    private readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">,
    private readonly plan: LaunchPlan,
    private readonly options: TestHostOptions,
  ) {
    this.drained = Promise.all([this.readStdout(), this.readStderr()]).catch((error: Error) => {
      this.diagnostics.push(`test host reader failed: ${error.message}`);
    });
    this.exited = proc.exited.then(async (code) => {
      this.exitCode = code;
      // Judge the process on everything it wrote (a last partial line, a last stderr record)
      // before failing pending calls; a grandchild holding a pipe open cannot delay this long.
      await Promise.race([this.drained, Bun.sleep(1_000)]);
      cleanupLaunch(plan);
      const tail = this.stderr.slice(-5).join("\n");
      for (const [, p] of this.pending) p.reject(new Error(`extension exited (status ${code}) before replying to ${p.method}${tail ? `; stderr:\n${tail}` : ""}`));
      this.pending.clear();
      return code;
    });
  }

  /** Launch the extension whose `extension.toml` is at `manifestPath` (file or directory). */
  static async start(manifestPath: string, options: TestHostOptions = {}): Promise<TestHost> {
    const manifest = loadManifest(manifestPath);
    const workspace = options.workspace ?? temporaryDirectory("octet-workspace-");
    const hostEnv = { ...(options.env ?? process.env) };
    if (options.addBunToPath !== false) hostEnv.PATH = pathWithBun(hostEnv.PATH);
    const plan = planLaunch(manifest, { workspace, hostEnv, scratch: options.scratch });
    const proc = Bun.spawn(plan.argv, { cwd: plan.cwd, env: plan.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    return new TestHost(manifest, workspace, proc, plan, options);
  }

  /** A scripted error reply for {@link TestHost.onRequest}. */
  static errorReply(code: number, message: string, data?: unknown): unknown {
    return { [ERROR_REPLY]: true, code, message, data };
  }

  /** Return this from a responder to leave the request unanswered. */
  static readonly noReply: unknown = NO_REPLY;

  /** Answer extension→host requests of `method` with `responder`. */
  onRequest(method: string, responder: Responder): this {
    this.responders.set(method, responder);
    return this;
  }

  /** Process id of the extension. */
  get pid(): number {
    return this.proc.pid;
  }

  /** Scratch directory (`OCTET_EXTENSION_SCRATCH`). */
  get scratch(): string {
    return this.plan.scratch;
  }

  // ---- host → extension ------------------------------------------------------------

  /** Initialize params built from the manifest, as octet sends them (spec §3.1). */
  initializeParams(): Obj {
    const m = this.manifest;
    const contributes: Obj = {
      tools: m.contributes.tools,
      commands: m.contributes.commands,
      hooks: m.contributes.hooks,
      ui: m.contributes.ui,
      context: m.contributes.context,
      tool_renderers: m.contributes.tool_renderers,
      notifications: m.contributes.notifications,
      confirmations: m.contributes.confirmations,
    };
    if (m.contributes.presentation) contributes.presentation = true;
    const capabilities: Obj = { filesystem: m.capabilities.filesystem, process: m.capabilities.process, network: m.capabilities.network };
    if (m.capabilities.secrets.length > 0) capabilities.secrets = m.capabilities.secrets;
    const params: Obj = {
      api_version: m.api_version,
      octet_version: this.options.octetVersion ?? "0.8.0",
      extension: { name: m.name, version: m.version, manifest_path: m.path, source: "explicit" },
      workspace: this.workspace,
      capabilities,
      contributes,
      host: this.hostState(),
    };
    if (m.api_version === "0.2") {
      const offer = this.options.offer ?? {};
      params.protocol = {
        version: "0.2",
        required_features: offer.required ?? REQUIRED_FEATURES,
        optional_features: offer.optional ?? DEFAULT_OPTIONAL_FEATURES,
        limits: { max_concurrent_requests: offer.maxConcurrentRequests ?? 64 },
      };
    }
    return params;
  }

  /** Send `initialize` (id 1) and validate the reply as octet does. Returns the result. */
  async initialize(params: Obj = this.initializeParams()): Promise<Obj> {
    const protocol = params.protocol as Obj | undefined;
    const required = (protocol?.required_features as string[] | undefined) ?? [];
    const optional = (protocol?.optional_features as string[] | undefined) ?? [];
    this.offered = { features: [...required, ...optional], required };
    const result = (await this.call("initialize", params)) as Obj;
    const violation = checkInitializeResult(result, this.manifest, this.offered);
    if (violation) {
      this.fatal(`invalid initialize response: ${violation}`);
      throw new HostViolation(`octet would kill the extension: invalid initialize response: ${violation}`);
    }
    const features = (result.protocol as Obj | undefined)?.features;
    this.features = new Set(Array.isArray(features) ? (features as string[]) : []);
    this.catalogTools = ((result.tools ?? []) as Obj[]).map((t) => String(t.name));
    this.initialized = true;
    return result;
  }

  /** Default `params.context` for requests (spec §3). */
  executionContext(extra: Obj = {}): Obj {
    return { workspace: this.workspace, execution_scope: null, host: this.hostState(), ...extra };
  }

  /** The owner triple this host issues (API 0.2 session-owned requests carry it). */
  readonly resourceOwner = { session_id: "test-session", extension_instance_id: "0123456789abcdef0123456789abcdef", process_generation: 1 };

  /** Context for a session-owned request: on API 0.2 it carries {@link TestHost.resourceOwner}. */
  private ownedContext(extra: Obj = {}): Obj {
    const context = this.executionContext(extra);
    if (this.manifest.api_version === "0.2") context.resource_owner = this.resourceOwner;
    return context;
  }

  /** Host-side tool catalog epoch (API 0.2 with `dynamic_tools`). */
  catalogRevision = 0;
  /** Tool names of the host-side catalog, in publication order. */
  catalogTools: string[] = [];

  private hostState(): Obj {
    return { session_id: null, session_name: null, model: "test-model", reasoning: null, active_skills: [] };
  }

  /** Send a request and resolve with the raw reply frame (`{result}` or `{error}`). */
  request(method: string, params?: unknown, options: { id?: number } = {}): Promise<Obj> {
    const id = options.id ?? this.nextId++;
    const frame: Obj = { jsonrpc: "2.0", id, method };
    if (params !== undefined) frame.params = params;
    const line = encodeFrame(frame, Number.MAX_SAFE_INTEGER);
    if (Buffer.byteLength(line) > MAX_MESSAGE_BYTES) {
      return Promise.reject(new Error(`the host refuses to send a ${Buffer.byteLength(line)}-byte frame (limit ${MAX_MESSAGE_BYTES} incl. LF)`));
    }
    return new Promise((resolve, reject) => {
      const timeout = this.options.requestTimeoutMs ?? 30_000;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (this.manifest.api_version === "0.2") this.notify("$/cancelRequest", { id, reason: "timeout" });
        reject(new Error(`${method} (id ${id}) timed out after ${timeout} ms`));
      }, timeout);
      this.pending.set(id, { method, resolve, reject, timer, children: new Set(), progressSequence: 0 });
      this.writeLine(line);
    });
  }

  /** Send a request; resolve with its result or throw {@link ReplyError}. */
  async call(method: string, params?: unknown): Promise<unknown> {
    const reply = await this.request(method, params);
    if ("error" in reply) {
      const error = reply.error as Obj;
      throw new ReplyError(error.code as number, error.message as string, error.data);
    }
    return reply.result;
  }

  /** `tool/call`. Context defaults to {@link TestHost.executionContext} with an execution scope. */
  callTool(name: string, args: unknown = {}, options: { context?: Obj; catalogRevision?: number } = {}): Promise<unknown> {
    const params: Obj = { name, arguments: args, context: options.context ?? this.ownedContext({ execution_scope: `scope-${this.nextId}` }) };
    if (options.catalogRevision !== undefined) params.catalog_revision = options.catalogRevision;
    else if (this.features.has("dynamic_tools")) params.catalog_revision = this.catalogRevision;
    return this.call("tool/call", params);
  }

  /** `command/execute`. */
  executeCommand(name: string, args: string[] = []): Promise<unknown> {
    return this.call("command/execute", { name, arguments: args, context: this.ownedContext() });
  }

  /** `hook/run`. */
  runHook(hook: string, payload: Obj): Promise<unknown> {
    return this.call("hook/run", { hook, payload, context: this.ownedContext() });
  }

  /** `context/collect`. */
  collectContext(prompt: string | null = null): Promise<unknown> {
    return this.call("context/collect", { prompt, context: this.ownedContext() });
  }

  /** `status/collect`. */
  collectStatus(surface: string): Promise<unknown> {
    return this.call("status/collect", { surface, context: this.executionContext() });
  }

  /** `tool/render`. */
  renderTool(name: string, args: Obj, output: string | null, isError = false): Promise<unknown> {
    return this.call("tool/render", { name, arguments: args, output, is_error: isError, context: this.executionContext() });
  }

  /** Send a notification. */
  notify(method: string, params?: unknown): void {
    const frame: Obj = { jsonrpc: "2.0", method };
    if (params !== undefined) frame.params = params;
    this.writeLine(encodeFrame(frame, Number.MAX_SAFE_INTEGER));
  }

  /** Send `$/cancelRequest` for a host request id (API 0.2). */
  cancel(id: number, reason = "user"): void {
    this.notify("$/cancelRequest", { id, reason });
  }

  /** The id the next request will use. */
  peekNextId(): number {
    return this.nextId;
  }

  /** Write raw bytes/text to stdin (a newline is appended unless `newline: false`). For malformed-input tests. */
  sendRaw(data: string | Uint8Array, options: { newline?: boolean } = {}): void {
    this.sentRaw = true;
    this.trackRawRequest(data);
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    this.proc.stdin.write(bytes);
    if (options.newline !== false) this.proc.stdin.write("\n");
    this.proc.stdin.flush();
    this.transcript.push({ from: "host", text: Buffer.from(bytes).toString("utf8") });
  }

  /** A request written raw still makes its id an active host request (a valid parent) until answered. */
  private trackRawRequest(data: string | Uint8Array): void {
    const text = typeof data === "string" ? data : Buffer.from(data).toString("utf8");
    for (const line of text.split("\n")) {
      let frame: unknown;
      try {
        frame = parseJson(line);
      } catch {
        continue;
      }
      if (typeof frame !== "object" || frame === null || !("method" in frame)) continue;
      const id = readUnsigned64(frame, "id");
      if (id === undefined || typeof id === "bigint" || this.pending.has(id)) continue;
      this.pending.set(id, { method: String((frame as Obj).method), resolve: () => {}, reject: () => {}, timer: undefined, children: new Set(), progressSequence: 0 });
    }
  }

  /** Send a lifecycle notification (API 0.2, feature `lifecycle_events`). */
  lifecycle(method: string, params: Obj): void {
    this.notify(method, params);
  }

  /** Wait for a host reply with this id to arrive after sending it raw. */
  waitForReply(id: unknown, timeoutMs = 10_000): Promise<Obj> {
    const key = idKey(id);
    return this.waitForFrame((f) => !("method" in f) && idKey(f.id) === key, timeoutMs);
  }

  /**
   * Wait for an extension frame matching `predicate` (already-received frames
   * count). A predicate that throws rejects this wait with its error.
   */
  waitForFrame(predicate: (frame: Obj) => boolean, timeoutMs = 10_000): Promise<Obj> {
    try {
      const seen = this.transcript.find((e) => e.from === "extension" && e.frame && predicate(e.frame));
      if (seen) return Promise.resolve(seen.frame!);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        predicate: (e: TranscriptEntry) => e.from === "extension" && e.frame !== undefined && predicate(e.frame),
        resolve: (e: TranscriptEntry) => {
          clearTimeout(timer);
          resolve(e.frame!);
        },
        reject: (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.frameWaiters = this.frameWaiters.filter((w) => w !== waiter);
        reject(new Error(`no matching extension frame within ${timeoutMs} ms`));
      }, timeoutMs);
      this.frameWaiters.push(waiter);
    });
  }

  /** Frames the extension wrote, parsed. */
  extensionFrames(): Obj[] {
    return this.transcript.filter((e) => e.from === "extension" && e.frame).map((e) => e.frame!);
  }

  /** Notifications the extension sent, optionally of one method. */
  notifications(method?: string): Obj[] {
    return this.extensionFrames().filter((f) => "method" in f && !("id" in f) && (method === undefined || f.method === method));
  }

  /** Parsed structured stderr lines. */
  logs(): Obj[] {
    const out: Obj[] = [];
    for (const line of this.stderr) {
      try {
        out.push(JSON.parse(line) as Obj);
      } catch {
        /* reported as a violation when strict */
      }
    }
    return out;
  }

  /** Send `shutdown`, expect `{}`, and wait (≤ 2 s, as octet) for the process to exit. Returns the exit code. */
  async shutdown(params: Obj = {}): Promise<number> {
    const result = await this.call("shutdown", params);
    if (JSON.stringify(result) !== "{}") this.diagnostics.push(`shutdown acknowledged with ${JSON.stringify(result)}`);
    const code = await Promise.race([this.exited, Bun.sleep(2_000).then(() => undefined)]);
    if (code === undefined) {
      this.fatal("process did not exit within 2 s after acknowledging shutdown");
      await this.exited;
      this.assertHealthy(); // throws: the violation was just recorded
    }
    this.assertHealthy();
    return code!;
  }

  /**
   * Close stdin (EOF) and wait for the exit code. Like {@link TestHost.shutdown}, throws
   * {@link HostViolation} if the extension broke a fatal rule (for example exited in the
   * middle of a stdout line) or, when strict, wrote unstructured stderr.
   */
  async closeStdin(): Promise<number> {
    if (this.exitCode === undefined) this.proc.stdin.end();
    const code = await this.exited;
    this.assertHealthy();
    return code;
  }

  /** Kill the process (what octet does on a fatal violation). */
  kill(): void {
    if (this.exitCode === undefined) this.proc.kill("SIGKILL");
  }

  /** Throw if the extension broke a fatal rule or (strict) wrote unstructured stderr. */
  assertHealthy(): void {
    if (this.violations.length > 0) throw new HostViolation(`octet would have killed the extension:\n- ${this.violations.join("\n- ")}`);
  }

  // ---- extension → host ---------------------------------------------------------

  private writeLine(line: string): void {
    if (this.exitCode !== undefined) throw new Error("the extension has exited");
    this.transcript.push({ from: "host", text: line.slice(0, -1), frame: JSON.parse(line) as Obj });
    this.proc.stdin.write(line);
    this.proc.stdin.flush();
  }

  private fatal(message: string): void {
    this.violations.push(message);
    this.closed = true;
    this.kill();
    const error = new HostViolation(`octet would kill the extension: ${message}`);
    for (const [, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
  }

  private async readStdout(): Promise<void> {
    // octet aborts once the buffered line (CR included, LF excluded) reaches 1,048,576 bytes.
    const reader = new HostLineReader(MAX_MESSAGE_BYTES);
    const onEvent = (event: HostReadEvent) => {
      // After a fatal violation octet has closed the connection: nothing more is read.
      if (this.closed) return;
      if (event.kind === "oversize") return this.fatal(`stdout line reached the ${MAX_MESSAGE_BYTES}-byte frame limit (1 MiB, CR included, LF excluded)`);
      if (event.kind === "unterminated") return this.fatal("EOF in the middle of a stdout line");
      this.onLine(event.bytes);
    };
    for await (const chunk of this.proc.stdout) reader.push(chunk, onEvent);
    reader.end(onEvent);
  }

  private async readStderr(): Promise<void> {
    let partial = "";
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stderr) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) this.onStderrLine(line);
    }
    if (partial !== "") this.onStderrLine(partial);
  }

  private onStderrLine(line: string): void {
    this.stderr.push(line);
    if (this.options.strictStderr === false || line.trim() === "") return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      record = undefined;
    }
    const r = record as Obj | undefined;
    const ok = r !== undefined && typeof r === "object" && r !== null && !Array.isArray(r)
      && ["debug", "info", "warning", "error"].includes(r.level as string) && typeof r.message === "string";
    if (!ok) this.violations.push(`unstructured stderr line: ${line.slice(0, 200)}`);
  }

  private onLine(bytes: Uint8Array): void {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return this.fatal("stdout line is not valid UTF-8");
    }
    if (text.trim() === "") return;
    let frame: unknown;
    try {
      frame = parseJson(text);
    } catch {
      this.transcript.push({ from: "extension", text });
      return this.fatal(`non-JSON on stdout: ${text.slice(0, 200)}`);
    }
    if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return this.fatal(`stdout frame is not an object: ${text.slice(0, 200)}`);
    if (/\\u[dD][89a-fA-F]/.test(text) && !wellFormed(frame)) return this.fatal(`unpaired UTF-16 surrogate escape on stdout (octet's parser rejects it): ${text.slice(0, 200)}`);
    const f = frame as Obj;
    const entry: TranscriptEntry = { from: "extension", text, frame: f };
    this.transcript.push(entry);
    if (f.jsonrpc !== "2.0") return this.fatal(`frame without "jsonrpc":"2.0": ${text.slice(0, 200)}`);
    if (!("method" in f)) this.onResponse(f);
    else if (!this.initialized) return this.fatal(`extension sent ${String(f.method)} before its initialize response`);
    else if ("id" in f) this.onExtensionRequest(f);
    else this.onExtensionNotification(f);
    for (const waiter of [...this.frameWaiters]) {
      let matched: boolean;
      try {
        matched = waiter.predicate(entry);
      } catch (error) {
        this.frameWaiters = this.frameWaiters.filter((w) => w !== waiter);
        waiter.reject(error);
        continue;
      }
      if (matched) {
        this.frameWaiters = this.frameWaiters.filter((w) => w !== waiter);
        waiter.resolve(entry);
      }
    }
  }

  private onResponse(frame: Obj): void {
    const violation = checkResponseEnvelope(frame);
    // A host that wrote raw (possibly malformed) input itself gets replies to it, ids and all.
    if (violation && this.sentRaw) {
      this.diagnostics.push(`reply to raw input: ${violation}`);
      return;
    }
    if (violation) return this.fatal(violation);
    const id = Number(readUnsigned64(frame, "id"));
    const pending = this.pending.get(id);
    if (!pending) {
      this.diagnostics.push(`response for unknown or settled host id ${String(frame.id)} ignored`);
      return;
    }
    this.pending.delete(id);
    clearTimeout(pending.timer);
    // octet accepts other frames as soon as it has read a successful initialize reply.
    if (pending.method === "initialize" && "result" in frame) this.initialized = true;
    // When a parent settles, the host cancels its unresolved children (spec §4).
    for (const child of pending.children) {
      if (!this.outstandingExtension.has(child)) continue;
      this.outstandingExtension.delete(child);
      this.notify("$/cancelRequest", { id: wireId(child), reason: "parent settled" });
    }
    pending.resolve(frame);
  }

  private onExtensionNotification(frame: Obj): void {
    const method = String(frame.method);
    const verdict = checkNotification(method, frame.params, this.manifest, this.features);
    if (verdict === "ignored") return void this.diagnostics.push(`unknown notification ${method} ignored`);
    if (verdict) return this.fatal(verdict);
    const params = frame.params as Obj;
    if (method === "$/cancelRequest") {
      const target = readId(params);
      if (target.kind === "valid") this.outstandingExtension.delete(target.id);
    } else if (method === "$/progress") {
      const bad = checkProgressParams(params, this.features);
      if (bad) return this.fatal(bad);
      const request = this.pending.get(Number(readUnsigned64(params, "request_id")));
      const sequence = Number(readUnsigned64(params, "sequence"));
      if (!request) return void this.diagnostics.push(`progress for inactive request ${String(params.request_id)} ignored`);
      if (sequence <= request.progressSequence) return void this.diagnostics.push(`progress sequence ${sequence} not increasing for ${String(params.request_id)} ignored`);
      request.progressSequence = sequence;
    } else if (method === "presentation/update") {
      const bad = this.checkPresentation(params);
      if (bad) return this.fatal(bad);
    }
  }

  private checkPresentation(params: Obj): string | undefined {
    if (typeof params !== "object" || params === null) return "presentation/update params must be an object";
    const extra = Object.keys(params).filter((k) => !["parent_request_id", "resource_owner", "snapshot"].includes(k));
    if (extra.length) return `presentation/update has unknown keys ${extra.join(", ")}`;
    if ("parent_request_id" in params && "resource_owner" in params) return "presentation/update with both parent_request_id and resource_owner";
    try {
      checkSnapshot(params.snapshot, this.manifest.contributes.commands);
    } catch (error) {
      return `invalid presentation snapshot: ${(error as Error).message}`;
    }
    if ("parent_request_id" in params) {
      const parent = readUnsigned64(params, "parent_request_id");
      if (parent === undefined || !this.pending.has(Number(parent))) return `presentation/update for an unknown or settled parent ${String(params.parent_request_id)}`;
    }
    if ("resource_owner" in params && JSON.stringify(params.resource_owner) !== JSON.stringify(this.resourceOwner)) {
      return "presentation/update with a stale or foreign resource_owner";
    }
    return undefined;
  }

  private onExtensionRequest(frame: Obj): void {
    const id = readId(frame);
    const method = String(frame.method);
    let requestId: RequestId;
    if (id.kind !== "valid") return this.fatal(`${method} request with an invalid id`);
    requestId = id.id;
    if (typeof requestId === "string" ? Buffer.byteLength(requestId) > 256 : readUnsigned64(frame, "id") === undefined) {
      return this.fatal(`${method} request id must be a u64 or a string of at most 256 bytes`);
    }
    if (this.extensionIds.has(requestId)) return this.fatal(`extension request id ${String(frame.id)} reused`);
    this.extensionIds.add(requestId);
    if (this.extensionIds.size > MAX_EXTENSION_REQUEST_IDS) return this.fatal("more than 65,536 extension request ids in one generation");
    this.outstandingExtension.set(requestId, method);
    if (this.outstandingExtension.size > MAX_OUTSTANDING_EXTENSION_REQUESTS) return this.fatal("more than 128 outstanding extension requests");
    if (holdsChildWorker(method) && this.childWorkersBusy() > MAX_CHILD_WORKER_REQUESTS) {
      const limit = `extension child worker limit ${MAX_CHILD_WORKER_REQUESTS} exceeded`;
      // octet drops the connection for these three; secret and agent requests get an error reply.
      if (FATAL_CHILD_OVERFLOW.has(method)) return this.fatal(limit);
      return this.replyToExtension(requestId, TestHost.errorReply(-32000, limit));
    }
    const violation = checkRequest(method, frame.params, this.manifest, this.features) ?? checkServiceRequest(method, frame.params);
    if (violation) return this.fatal(violation);
    const params = (frame.params ?? {}) as Obj;
    if (this.manifest.api_version === "0.2" && OPERATION_SCOPED.has(method)) {
      const parentId = readUnsigned64(params, "parent_request_id");
      if (parentId === undefined) return this.fatal(`${method} requires parent_request_id`);
      const parent = this.pending.get(Number(parentId));
      if (!parent) {
        return this.replyToExtension(requestId, TestHost.errorReply(-32800, "parent request is no longer active", { parent_request_id: wireId(parentId) }));
      }
      parent.children.add(requestId);
      const ownerBound = method === "artifact/publish" || method === "secret/get" || method.startsWith("agent/");
      if (ownerBound && parent.method !== "tool/call" && parent.method !== "command/execute") {
        return this.replyToExtension(requestId, TestHost.errorReply(-32002, `${method} requires a host-owned session context`));
      }
    }
    const responder = this.responders.get(method) ?? this.builtInResponder(method);
    void Promise.resolve()
      .then(() => responder((frame.params ?? {}) as Obj, frame))
      .then(
        (value) => this.replyToExtension(requestId, value),
        (error: Error) => this.replyToExtension(requestId, TestHost.errorReply(-32603, error.message)),
      );
  }

  /** Unanswered requests that hold one of octet's child workers. */
  private childWorkersBusy(): number {
    let busy = 0;
    for (const method of this.outstandingExtension.values()) if (holdsChildWorker(method)) busy++;
    return busy;
  }

  /** octet's own answers for requests no test scripted. */
  private builtInResponder(method: string): Responder {
    if (method === "tools/register" || method === "tools/unregister") {
      return (params) => {
        const names = new Set(this.catalogTools);
        if (method === "tools/register") for (const tool of params.tools as Obj[]) names.add(String(tool.name));
        else for (const name of params.names as string[]) names.delete(name);
        this.catalogRevision++;
        this.catalogTools = [...names];
        return { revision: this.catalogRevision, tools: this.catalogTools };
      };
    }
    return (params) => {
      const reply = defaultReply(method, params, this.manifest);
      return "error" in reply ? TestHost.errorReply(reply.error.code, reply.error.message) : reply.result;
    };
  }

  private replyToExtension(id: RequestId, value: unknown): void {
    if (value === NO_REPLY || this.exitCode !== undefined) return;
    if (!this.outstandingExtension.has(id)) return;
    this.outstandingExtension.delete(id);
    const frame: Obj = { jsonrpc: "2.0", id: wireId(id) };
    if (typeof value === "object" && value !== null && ERROR_REPLY in value) {
      const e = value as unknown as { code: number; message: string; data?: unknown };
      frame.error = e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data };
    } else {
      frame.result = value;
    }
    this.writeLine(encodeFrame(frame, Number.MAX_SAFE_INTEGER));
  }
}

/** No string (member name or value) holds an unpaired surrogate. */
function wellFormed(value: unknown): boolean {
  if (typeof value === "string") return value.isWellFormed();
  if (Array.isArray(value)) return value.every(wellFormed);
  if (typeof value === "object" && value !== null) return Object.entries(value).every(([k, v]) => k.isWellFormed() && wellFormed(v));
  return true;
}

/** Compares ids of any JSON type, big integers (`bigint`) included. */
function idKey(id: unknown): string {
  return typeof id === "bigint" ? id.toString() : JSON.stringify(id);
}
