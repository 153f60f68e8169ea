import { wireId, type RequestId } from "../wire/ids.ts";
import { readUnsigned64 } from "../wire/json.ts";
import { MAX_MESSAGE_BYTES } from "../wire/limits.ts";
import { builtInResponder, HostResources } from "./built-in-responders.ts";
import { HostBulkStore } from "./bulk-store.ts";
import { HostConnection } from "./host-connection.ts";
import { ExtensionProcess } from "./extension-process.ts";
import { HostViolation, ReplyError } from "./host-errors.ts";
import { flagValues, initializeParams, offeredFeatures, requestContext } from "./host-params.ts";
import { checkInitializeResult, checkResponseEnvelope } from "./host-rules.ts";
import { type HostManifest, loadManifest } from "./manifest.ts";
import { HostMonitor } from "./monitor.ts";
import type { TestHostOptions } from "./host-options.ts";
import { errorReply, NO_REPLY, replyFrame, Responders, type Responder } from "./responders.ts";
import { HostStderr } from "./host-stderr.ts";
import { parseLogs, readStderr } from "./stderr-reader.ts";
import { decodeStdoutLine } from "./stdout-frames.ts";
import { readStdout, type HostReadEvent } from "./stdout-reader.ts";
import { temporaryDirectory } from "./temp-dirs.ts";
import { Transcript, type TranscriptEntry } from "./transcript.ts";
import { canonicalText } from "./v03/canonical-text.ts";
import { readCanonicalStdout } from "./v03/frame-reader.ts";
import { CanonicalHostSession } from "./v03/host-session.ts";
import { extensionMessageViolation, hookResultViolation, toolResultViolation } from "./v03/rules.ts";
import { type LifecycleMethod, negotiatesFeatures } from "../protocol.ts";
import type { HookPayload, LifecyclePayloads } from "../runtime/kinds.ts";
import type { ContextEntry, HookName, Surface } from "../runtime/types.ts";
import { type CommandOutput, commandReply, contextReply, defaultSurface, type HookOutput, hookReply, renderReply, type RenderOutput, type StatusContribution, statusReply } from "./kind-helpers.ts";
import type { Menu } from "../runtime/menu.ts";
import { menuViolation } from "./menu-rules.ts";
import { compareFrames, normaliseFrames, parse, readRecording, recordable, recordedReplies, type ReplayDifference, writeRecording } from "./replay.ts";

export { HostViolation, ReplyError } from "./host-errors.ts";
export { DEFAULT_OPTIONAL_FEATURES, DEFAULT_OPTIONAL_FEATURES_04, REQUIRED_FEATURES } from "./host-params.ts";
export type { TestHostOptions } from "./host-options.ts";
export type { Responder } from "./responders.ts";
export type { TranscriptEntry } from "./transcript.ts";
export type { CommandOutput, HookOutput, RenderOutput, StatusContribution } from "./kind-helpers.ts";

type Obj = Record<string, unknown>;

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
  readonly transcript: TranscriptEntry[];
  /**
   * Raw stderr lines, the latest ones only (`stderrWindow`; older ones are
   * counted in {@link TestHost.stderrDropped}). A line octet would cut
   * (over 1 MiB − 1 bytes) is kept in pieces, as octet logs it.
   */
  readonly stderr: string[] = [];
  /** Fatal rule breaks (octet would have killed the extension). */
  readonly violations: string[];
  /** Non-fatal host diagnostics (ignored frames, late replies, …). */
  readonly diagnostics: string[];
  /** Resolves with the exit code once the process is gone. */
  readonly exited: Promise<number>;
  /** Features agreed in initialize (API 0.2). */
  features: ReadonlySet<string> = new Set();
  /** The owner triple this host issues (API 0.2 session-owned requests carry it). */
  readonly resourceOwner = { session_id: "test-session", extension_instance_id: "0123456789abcdef0123456789abcdef", process_generation: 1 };
  /** Host-side tool catalog epoch (API 0.2 with `dynamic_tools`). */
  catalogRevision = 0;
  /** Tool names of the host-side catalog, in publication order. */
  catalogTools: string[] = [];

  private readonly log: Transcript;
  private readonly connection: HostConnection;
  private readonly monitor: HostMonitor;
  private readonly responders: Responders;
  private readonly stderrLines: HostStderr;
  /** The API 0.3 side (canonical wire, `src/testing/v03/`), for a 0.3 manifest. */
  private readonly v03: CanonicalHostSession | undefined;

  /** The resource refs this host minted (API 0.4, `resource_refs_v1`), by token. */
  readonly resources = new HostResources();

  /** The host's bulk objects when started with `bulk: true` on API 0.4 (its transfer directory and committed blobs). */
  readonly bulk: HostBulkStore | undefined;

  private constructor(
    readonly manifest: HostManifest,
    readonly workspace: string,
    private readonly child: ExtensionProcess,
    private readonly options: TestHostOptions,
  ) {
    this.log = new Transcript();
    this.transcript = this.log.entries;
    this.v03 = manifest.api_version === "0.3" ? new CanonicalHostSession(manifest) : undefined;
    this.connection = new HostConnection(child, this.log, {
      timeoutMs: () => options.requestTimeoutMs ?? 30_000,
      cancelOnTimeout: () => negotiatesFeatures(manifest.api_version) || this.v03 !== undefined,
      ...(this.v03 ? { encode: (frame: Obj) => `${canonicalText(frame)}\n` } : {}),
    });
    this.monitor = new HostMonitor(manifest, {
      features: () => this.features,
      active: (id) => this.connection.active(id),
      resourceOwner: this.resourceOwner,
    });
    this.violations = this.monitor.violations;
    this.diagnostics = this.monitor.diagnostics;
    this.stderrLines = new HostStderr(this.stderr, this.violations, options.strictStderr !== false, options.stderrWindow);
    if (options.bulk && manifest.api_version === "0.4") this.bulk = new HostBulkStore();
    this.responders = new Responders((method) => builtInResponder(method, manifest, this, this.bulk, this.resources));
    const drained = Promise.all([
      this.v03 ? readCanonicalStdout(child.stdout, (event) => this.onStdout(event), () => this.v03!.bound) : readStdout(child.stdout, (event) => this.onStdout(event)),
      readStderr(child.stderr, (line, part) => this.stderrLines.line(line, part)),
    ]).catch((error: Error) => {
      this.diagnostics.push(`test host reader failed: ${error.message}`);
    });
    // Judge the process on everything it wrote (a last partial line, a last stderr record)
    // before failing pending calls.
    this.exited = child.gone(drained).then((code) => {
      const tail = this.stderr.slice(-5).join("\n");
      const exitedBefore = (request: { method: string }) => new Error(`extension exited (status ${code}) before replying to ${request.method}${tail ? `; stderr:\n${tail}` : ""}`);
      this.connection.rejectAll(exitedBefore, { stopTimers: false });
      return code;
    });
  }

  /** Launch the extension whose `extension.toml` is at `manifestPath` (file or directory). */
  static async start(manifestPath: string, options: TestHostOptions = {}): Promise<TestHost> {
    const loaded = loadManifest(manifestPath);
    const manifest = options.entrypoint ? { ...loaded, entrypoint: { ...loaded.entrypoint, command: options.entrypoint.command, args: options.entrypoint.args ?? [] } } : loaded;
    flagValues(manifest, options.flags); // octet refuses unknown flags before it starts anything
    const workspace = options.workspace ?? temporaryDirectory("octet-workspace-");
    const child = ExtensionProcess.launch(manifest, { workspace, env: options.env, addBunToPath: options.addBunToPath, scratch: options.scratch });
    return new TestHost(manifest, workspace, child, options);
  }

  /**
   * Replay a recorded session (`saveTranscript`) against the extension in
   * `manifestPath`: the host side is played in the recorded order, the
   * extension's requests get the recorded replies, and its frames are
   * compared with the recording after normalising its own request ids and
   * timing fields. `differences` is empty when the replay matches.
   */
  static async replay(recordingPath: string, manifestPath: string, options: { timeoutMs?: number } = {}): Promise<{ differences: ReplayDifference[]; frames: number; violations: string[] }> {
    const recording = readRecording(recordingPath);
    const timeout = options.timeoutMs ?? 10_000;
    // Only the host-offer facts come from the file; what runs is always the project's own entry point.
    const { offer, flags, octetVersion } = recording.options;
    const host = await TestHost.start(manifestPath, { offer, flags, octetVersion, requestTimeoutMs: timeout });
    let exited = false;
    void host.exited.then(() => (exited = true));
    try {
      for (const [method, replies] of recordedReplies(recording.frames)) {
        host.onRequest(method, () => {
          const reply = replies.shift();
          if (!reply) return TestHost.errorReply(-32603, `replay: no recorded reply left for ${method}`);
          const error = reply.error as Obj | undefined;
          return error ? TestHost.errorReply(error.code as number, error.message as string, error.data) : reply.result;
        });
      }
      const extensionRequests = new Set(
        recording.frames
          .filter((f) => f.from === "extension")
          .map((f) => parse(f.text))
          .filter((f): f is Obj => f !== undefined && typeof f.method === "string" && "id" in f)
          .map((f) => JSON.stringify(f.id)),
      );
      const caughtUp = async (count: number) => {
        const deadline = performance.now() + timeout;
        while (host.extensionFrames().length < count && !exited && performance.now() < deadline) await Bun.sleep(5);
      };
      let extensionBefore = 0;
      const pending: Promise<unknown>[] = [];
      for (const entry of recording.frames) {
        if (entry.from === "extension") {
          extensionBefore++;
          continue;
        }
        const frame = parse(entry.text);
        if (frame && !("method" in frame) && extensionRequests.has(JSON.stringify(frame.id))) continue; // the responders answer these
        await caughtUp(extensionBefore);
        if (exited) break;
        if (frame?.method === "initialize" && typeof frame.id === "number") pending.push(host.initialize(frame.params as Obj).catch(() => undefined));
        else if (frame && typeof frame.method === "string" && typeof frame.id === "number") pending.push(host.request(frame.method, frame.params, { id: frame.id }).catch(() => undefined));
        else if (frame && typeof frame.method === "string" && !("id" in frame)) host.notify(frame.method, frame.params);
        else host.sendRaw(entry.text);
      }
      await caughtUp(extensionBefore);
      await Promise.race([Promise.all(pending), Bun.sleep(timeout)]);
      await Promise.race([host.exited, Bun.sleep(2_500)]);
      const expected = normaliseFrames(recording.frames);
      const actual = normaliseFrames(host.transcript);
      return { differences: compareFrames(expected, actual), frames: expected.length, violations: [...host.violations] };
    } finally {
      host.kill();
    }
  }

  /** A scripted error reply for {@link TestHost.onRequest}. */
  static errorReply(code: number, message: string, data?: unknown): unknown {
    return errorReply(code, message, data);
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
    return this.child.pid;
  }

  /** Scratch directory (`OCTET_EXTENSION_SCRATCH`). */
  get scratch(): string {
    return this.child.scratch;
  }

  // ---- host → extension ------------------------------------------------------------

  /** Initialize params built from the manifest, as octet sends them (spec §3.1). */
  initializeParams(): Obj {
    if (this.v03) return this.v03.initializeParams(this.workspace, this.options);
    return initializeParams(this.manifest, this.workspace, this.options, this.bulk?.offer());
  }

  /** Send `initialize` (id 1) and validate the reply as octet does. Returns the result. */
  async initialize(params: Obj = this.initializeParams()): Promise<Obj> {
    if (this.v03) return this.initialize03(this.v03, params);
    const offered = offeredFeatures(params);
    const result = (await this.call("initialize", params)) as Obj;
    const violation = checkInitializeResult(result, this.manifest, offered);
    if (violation) {
      this.fatal(`invalid initialize response: ${violation}`);
      throw new HostViolation(`octet would kill the extension: invalid initialize response: ${violation}`);
    }
    const features = (result.protocol as Obj | undefined)?.features;
    this.features = new Set(Array.isArray(features) ? (features as string[]) : []);
    this.catalogTools = ((result.tools ?? []) as Obj[]).map((t) => String(t.name));
    this.monitor.initialized = true;
    return result;
  }

  /** Default `params.context` for requests (spec §3). */
  executionContext(extra: Obj = {}): Obj {
    return requestContext(this.workspace, extra);
  }

  /** Context for a session-owned request: on API 0.2 it carries {@link TestHost.resourceOwner}. */
  private ownedContext(extra: Obj = {}): Obj {
    const context = this.executionContext(extra);
    if (negotiatesFeatures(this.manifest.api_version)) context.resource_owner = this.resourceOwner;
    return context;
  }

  /** Send a request and resolve with the raw reply frame (`{result}` or `{error}`). */
  request(method: string, params?: unknown, options: { id?: number } = {}): Promise<Obj> {
    return this.connection.request(method, params, options.id);
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
    if (this.v03) return this.callTool03(name, args, options.context);
    const params: Obj = { name, arguments: args, context: options.context ?? this.ownedContext({ execution_scope: `scope-${this.peekNextId()}` }) };
    if (options.catalogRevision !== undefined) params.catalog_revision = options.catalogRevision;
    else if (this.features.has("dynamic_tools")) params.catalog_revision = this.catalogRevision;
    return this.call("tool/call", params);
  }

  /** `command/execute`; the result as octet reads it (docs/testing.md "Each kind"). */
  async executeCommand(name: string, args: string[] = []): Promise<CommandOutput> {
    return commandReply(await this.call("command/execute", { name, arguments: args, context: this.ownedContext() }));
  }

  /** `hook/run` with the payload octet sends for `hook`; the answer as octet reads it. */
  runHook<H extends HookName>(hook: H, payload: HookPayload<H>): Promise<HookOutput<H>>;
  runHook(hook: string, payload: Obj): Promise<HookOutput>;
  async runHook(hook: string, payload: Obj): Promise<HookOutput> {
    return hookReply(await this.call("hook/run", { hook, payload, context: this.ownedContext() }));
  }

  /** `context/collect` for `prompt`; the entries as octet reads them. */
  async collectContext(prompt: string | null = null): Promise<ContextEntry[]> {
    return contextReply(await this.call("context/collect", { prompt, context: this.ownedContext() }));
  }

  /** `status/collect` for `surface` (default: the first of `contributes.ui`); null or the item as octet reads it. */
  async collectStatus(surface: Surface = defaultSurface(this.manifest)): Promise<StatusContribution | null> {
    return statusReply(await this.call("status/collect", { surface, context: this.executionContext() }), this.manifest);
  }

  /**
   * `menu/collect` (needs `contributes.menu = true`). The menu is checked as
   * octet checks it; one that octet would reject throws {@link HostViolation}
   * (octet falls back to a menu of the declared commands).
   */
  async collectMenu(): Promise<Menu> {
    if (!this.manifest.contributes.menu) throw new Error("octet sends menu/collect only with contributes.menu = true");
    const menu = await this.call("menu/collect", { context: this.ownedContext() });
    const violation = menuViolation(menu, this.manifest.contributes.commands);
    if (violation) throw new HostViolation(`octet would reject this menu: ${violation}`);
    return menu as Menu;
  }

  /**
   * `resource/dispose` for `refs` (reason "retired"), as octet sends it for
   * retired records; the reply must report each one `completed` or `failed`,
   * else octet ends the process generation ({@link HostViolation}).
   */
  async disposeResources(refs: Obj[]): Promise<{ resource: Obj; status: string }[]> {
    const reply = (await this.call("resource/dispose", { resources: refs, reason: "retired" })) as Obj;
    const results = Array.isArray(reply?.results) ? (reply.results as Obj[]) : undefined;
    const ok = results?.length === refs.length && results.every((r, i) => JSON.stringify(r.resource) === JSON.stringify(refs[i]) && (r.status === "completed" || r.status === "failed"));
    if (!ok) {
      this.fatal("resource/dispose reply does not report every resource completed or failed");
      throw new HostViolation("octet would end the generation: resource/dispose reply does not report every resource completed or failed");
    }
    return results as { resource: Obj; status: string }[];
  }

  /** Call `listener` with every line from now on, in both directions, as it is written or read (`octet-extension inspect` shows them live). */
  watch(listener: (entry: TranscriptEntry) => void): void {
    this.log.listen(listener);
  }

  /**
   * Save this session's frames (both directions, in order) for
   * {@link TestHost.replay} and `octet-extension replay`: answers to
   * `secret/get` and secret `input/request` hold `SECRET_PLACEHOLDER`;
   * the file is written atomically with mode 0600.
   */
  saveTranscript(path: string): void {
    const { offer, flags, octetVersion } = this.options;
    writeRecording(path, {
      format: "octet-transcript/1",
      extension: { name: this.manifest.name, api_version: this.manifest.api_version },
      options: { ...(offer ? { offer } : {}), ...(flags ? { flags } : {}), ...(octetVersion ? { octetVersion } : {}) },
      frames: recordable(this.transcript),
    });
  }

  /** `shortcut/execute`, as octet sends it when the user presses a declared shortcut's key. */
  async runShortcut(name: string): Promise<CommandOutput> {
    if (!this.manifest.contributes.shortcuts.some((s) => s.name === name)) throw new Error(`${name} is not a shortcut declared in contributes.shortcuts`);
    return commandReply(await this.call("shortcut/execute", { name, context: this.ownedContext() }));
  }

  /** `tool/render` of a call of tool `name` (its arguments, output and error flag); the segments as octet reads them. */
  async renderTool(name: string, args: Obj, output: string | null, isError = false): Promise<RenderOutput> {
    return renderReply(await this.call("tool/render", { name, arguments: args, output, is_error: isError, context: this.executionContext() }));
  }

  /** Send a notification. */
  notify(method: string, params?: unknown): void {
    this.connection.notify(method, params);
  }

  /** Send `$/cancelRequest` for a host request id (API 0.2). */
  cancel(id: number, reason = "user"): void {
    this.notify("$/cancelRequest", { id, reason });
  }

  /** The id the next request will use. */
  peekNextId(): number {
    return this.connection.peekNextId();
  }

  /** Write raw bytes/text to stdin (a newline is appended unless `newline: false`). For malformed-input tests. */
  sendRaw(data: string | Uint8Array, options: { newline?: boolean } = {}): void {
    this.connection.sendRaw(data, options.newline !== false);
  }

  /** Send a lifecycle notification (API 0.2, feature `lifecycle_events`) with the params octet sends for it. */
  lifecycle<E extends LifecycleMethod>(method: E, params: LifecyclePayloads[E]): void;
  lifecycle(method: string, params: Obj): void;
  lifecycle(method: string, params: Obj): void {
    this.notify(method, params);
  }

  /** Wait for a host reply with this id to arrive after sending it raw. */
  waitForReply(id: unknown, timeoutMs = 10_000): Promise<Obj> {
    return this.log.waitForReply(id, timeoutMs);
  }

  /**
   * Wait for an extension frame matching `predicate` (already-received frames
   * count). A predicate that throws rejects this wait with its error.
   */
  waitForFrame(predicate: (frame: Obj) => boolean, timeoutMs = 10_000): Promise<Obj> {
    return this.log.waitForFrame(predicate, timeoutMs);
  }

  /** Frames the extension wrote, parsed. */
  extensionFrames(): Obj[] {
    return this.log.extensionFrames();
  }

  /** Notifications the extension sent, optionally of one method. */
  notifications(method?: string): Obj[] {
    return this.log.notifications(method);
  }

  /** stderr lines no longer kept in {@link TestHost.stderr}, and their length in UTF-16 code units. */
  get stderrDropped(): { lines: number; chars: number } {
    return { ...this.stderrLines.window.dropped };
  }

  /** Parsed structured stderr lines. */
  logs(): Obj[] {
    return parseLogs(this.stderr);
  }

  /** Send `shutdown`, expect `{}`, and wait (≤ 2 s, as octet) for the process to exit. Returns the exit code. */
  async shutdown(params: Obj = {}): Promise<number> {
    const result = await this.call("shutdown", params);
    if (this.v03 && JSON.stringify(result) !== '{"terminal":"shutdown"}') this.violations.push(`API 0.3 shutdown must be acknowledged with {"terminal":"shutdown"}, not ${JSON.stringify(result)}`);
    else if (!this.v03 && JSON.stringify(result) !== "{}") this.diagnostics.push(`shutdown acknowledged with ${JSON.stringify(result)}`);
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
    this.child.endStdin();
    const code = await this.exited;
    this.assertHealthy();
    return code;
  }

  /** Kill the process (what octet does on a fatal violation). */
  kill(): void {
    this.child.kill();
  }

  /** Throw if the extension broke a fatal rule or (strict) wrote unstructured stderr. */
  assertHealthy(): void {
    if (this.violations.length > 0) throw new HostViolation(`octet would have killed the extension:\n- ${this.violations.join("\n- ")}`);
  }

  // ---- API 0.3 (canonical wire) -------------------------------------------------------

  private async initialize03(v03: CanonicalHostSession, params: Obj): Promise<Obj> {
    v03.expectInitialize(this.peekNextId(), params);
    const result = (await this.call("initialize", params)) as Obj;
    const violation = v03.checkInitialize(result, params);
    if (violation) {
      this.fatal(`invalid initialize response: ${violation}`);
      throw new HostViolation(`octet would kill the extension: invalid initialize response: ${violation}`);
    }
    this.catalogTools = ((result.tools ?? []) as Obj[]).map((t) => String(t.name));
    return result;
  }

  /** API 0.3 `tool/call {name, arguments, context}`; the result is held to the 0.3 shape. */
  private async callTool03(name: string, args: unknown, context: Obj | undefined): Promise<unknown> {
    const params = { name, arguments: args, context: context ?? this.executionContext({ execution_scope: `scope-${this.peekNextId()}` }) };
    return this.checked03("tool/call", await this.call("tool/call", params), toolResultViolation);
  }

  /** API 0.3 `hook/run {hook, payload}` for `session_start` / `session_end`; resolves with `{disposition}`. */
  async runSessionHook(hook: "session_start" | "session_end", payload: Obj): Promise<Obj> {
    if (!this.v03) throw new Error("runSessionHook is API 0.3's hook/run; use runHook on the legacy wire");
    return this.checked03("hook/run", await this.call("hook/run", { hook, payload }), hookResultViolation) as Obj;
  }

  /** The contract an API 0.3 extension selected (after `initialize`). */
  get contract03(): { capabilities: ReadonlySet<string>; methods: ReadonlySet<string>; limits: Obj } | undefined {
    return this.v03?.selected;
  }

  private checked03(method: string, result: unknown, rule: (result: unknown) => string | undefined): unknown {
    const violation = rule(result);
    if (violation) {
      this.fatal(`invalid ${method} result: ${violation}`);
      throw new HostViolation(`octet would kill the extension: invalid ${method} result: ${violation}`);
    }
    return result;
  }

  /** A request or notification from an API 0.3 extension: a selected extension→host method, else refused or fatal. */
  private onExtensionMessage03(v03: CanonicalHostSession, frame: Obj): void {
    const verdict = extensionMessageViolation(frame, v03.selectedMethods);
    if (verdict.fatal) return this.fatal(verdict.fatal);
    if (!("id" in frame)) {
      if (verdict.refuse) this.diagnostics.push(`notification ignored: ${verdict.refuse}`);
      return;
    }
    const id = frame.id as string | number;
    if (!v03.admit(id)) return this.fatal(`extension request id ${JSON.stringify(id)} reused`);
    const reply = (value: unknown) => {
      if (value === NO_REPLY || this.child.exitCode !== undefined || !v03.settle(id)) return;
      this.connection.send(replyFrame(id, value));
    };
    if (verdict.refuse) {
      this.diagnostics.push(verdict.refuse);
      return reply(errorReply(-32601, "unknown or unnegotiated method", { method: frame.method }));
    }
    this.responders.serve(frame, reply);
  }

  // ---- extension → host ---------------------------------------------------------

  /** Like octet: kill the process and fail every pending call; nothing more is read. */
  private fatal(message: string): void {
    this.monitor.fatal(message);
    this.kill();
    const error = new HostViolation(`octet would kill the extension: ${message}`);
    this.connection.rejectAll(() => error, { stopTimers: true });
  }

  private onStdout(event: HostReadEvent): void {
    // After a fatal violation octet has closed the connection: nothing more is read.
    if (this.monitor.closed) return;
    if (this.v03) {
      const { entry, violation } = this.v03.decode(event);
      if (entry) this.log.record(entry);
      if (violation) return this.fatal(violation);
      if (entry) this.route(entry);
      return;
    }
    if (event.kind === "oversize") return this.fatal(`stdout line reached the ${MAX_MESSAGE_BYTES}-byte frame limit (1 MiB, CR included, LF excluded)`);
    if (event.kind === "unterminated") return this.fatal("EOF in the middle of a stdout line");
    const { entry, violation } = decodeStdoutLine(event.bytes);
    if (entry) this.log.record(entry);
    if (violation) return this.fatal(violation);
    if (entry) this.route(entry);
  }

  /** Hand a frame to the rules for its kind, then to the waits it matches. */
  private route(entry: TranscriptEntry): void {
    const frame = entry.frame!;
    if (!("method" in frame)) this.onResponse(frame);
    else if (!this.monitor.initialized) return this.fatal(`extension sent ${String(frame.method)} before its initialize response`);
    else if (this.v03) this.onExtensionMessage03(this.v03, frame);
    else if ("id" in frame) this.onExtensionRequest(frame);
    else this.onExtensionNotification(frame);
    this.log.release(entry);
  }

  private onResponse(frame: Obj): void {
    const violation = checkResponseEnvelope(frame);
    // A host that wrote raw (possibly malformed) input itself gets replies to it, ids and all.
    if (violation && this.connection.sentRaw) {
      this.diagnostics.push(`reply to raw input: ${violation}`);
      return;
    }
    if (violation) return this.fatal(violation);
    const request = this.connection.take(Number(readUnsigned64(frame, "id")));
    if (!request) {
      this.diagnostics.push(`response for unknown or settled host id ${String(frame.id)} ignored`);
      return;
    }
    // octet accepts other frames as soon as it has read a successful initialize reply.
    if (request.method === "initialize" && "result" in frame) this.monitor.initialized = true;
    // When a parent settles, the host cancels its unresolved children (spec §4).
    for (const child of request.children) {
      if (this.monitor.settle(child)) this.notify("$/cancelRequest", { id: wireId(child), reason: "parent settled" });
    }
    request.resolve(frame);
  }

  private onExtensionNotification(frame: Obj): void {
    const violation = this.monitor.notification(frame);
    if (violation) this.fatal(violation);
  }

  private onExtensionRequest(frame: Obj): void {
    const verdict = this.monitor.request(frame);
    if (verdict.kind === "fatal") return this.fatal(verdict.violation);
    if (verdict.kind === "refuse") return this.answer(verdict.id, errorReply(verdict.error.code, verdict.error.message, verdict.error.data));
    this.responders.serve(frame, (value) => this.answer(verdict.id, value));
  }

  /** Reply to an extension request, unless told not to, the process is gone, or it is no longer outstanding. */
  private answer(id: RequestId, value: unknown): void {
    if (value === NO_REPLY || this.child.exitCode !== undefined) return;
    if (!this.monitor.settle(id)) return;
    this.connection.send(replyFrame(id, value));
  }
}
