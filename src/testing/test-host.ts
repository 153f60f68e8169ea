import type { JsonRecord } from "../check.ts";
import type { LifecycleMethod } from "../protocol.ts";
import type { HookPayload, LifecyclePayloads } from "../runtime/kinds.ts";
import type { Menu } from "../runtime/menu.ts";
import type { ContextEntry, HookName, Surface } from "../runtime/types.ts";
import { disposalResults, HostResources } from "./built-in-responders.ts";
import type { HostBulkStore } from "./bulk-store.ts";
import { ExtensionProcess } from "./extension-process.ts";
import { HostViolation, replyResult } from "./host-errors.ts";
import type { TestHostOptions } from "./host-options.ts";
import { agreedFeatures, flagValues, initializeParams, offeredFeatures, ownedContext, requestContext } from "./host-params.ts";
import { checkInitializeResult } from "./host-rules.ts";
import { assembleHost, type HostParts, providerCalls } from "./host-parts.ts";
import { type CommandOutput, commandReply, contextReply, defaultSurface, type HookOutput, hookReply, menuReply, renderReply, type RenderOutput, type StatusContribution, statusReply } from "./kind-helpers.ts";
import { type HostManifest, loadManifest } from "./manifest.ts";
import { sessionRecording, writeRecording } from "./replay.ts";
import { replaySession, type ReplayOutcome } from "./replay-session.ts";
import { errorReply, NO_REPLY, type Responder } from "./responders.ts";
import { parseLogs } from "./stderr-reader.ts";
import { temporaryDirectory } from "./temp-dirs.ts";
import type { TranscriptEntry } from "./transcript.ts";
import { hookResultViolation, toolResultViolation } from "./v03/rules.ts";
export { HostViolation, ReplyError } from "./host-errors.ts";
export { DEFAULT_OPTIONAL_FEATURES, DEFAULT_OPTIONAL_FEATURES_04, REQUIRED_FEATURES } from "./host-params.ts";
export type { TestHostOptions } from "./host-options.ts";
export type { Responder } from "./responders.ts";
export type { TranscriptEntry } from "./transcript.ts";
export type { CommandOutput, HookOutput, RenderOutput, StatusContribution } from "./kind-helpers.ts";

/**
 * A strict stand-in for octet 0.8.0's extension host, for tests. It launches an
 * extension exactly as octet does, speaks the legacy wire, records every frame,
 * and fails loudly (killing the process, rejecting pending calls) on anything
 * octet would treat as fatal (docs/protocol-0.2.md §1.9). A facade: frames are
 * routed by `frame-router.ts`, judged by `monitor.ts`, answered by `responders.ts`.
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
  /** The resource refs this host minted (API 0.4, `resource_refs_v1`), by token. */
  readonly resources = new HostResources();
  /** The host's bulk objects when started with `bulk: true` on API 0.4 (its transfer directory and committed blobs). */
  readonly bulk: HostBulkStore | undefined;
  /** API 0.3 model providers (`v03/provider-host.ts`): `stream(params)` → acceptance and checked events, `cancel(streamId)`, `catalog`. */
  readonly providers = providerCalls(() => this.parts, (method, params) => this.call(method, params));

  /** The parts this facade delegates to (`host-parts.ts`). */
  private readonly parts: HostParts;
  /** API 0.3: session lifecycle, the in-memory bus and the migration helpers (`v03/services-host.ts`). */
  readonly services03: HostParts["services03"];

  private constructor(
    readonly manifest: HostManifest,
    readonly workspace: string,
    private readonly child: ExtensionProcess,
    private readonly options: TestHostOptions,
  ) {
    this.parts = assembleHost(manifest, child, options, this);
    ({ bulk: this.bulk, exited: this.exited } = this.parts);
    this.transcript = this.parts.log.entries;
    ({ violations: this.violations, diagnostics: this.diagnostics, services03: this.services03 } = { ...this.parts.monitor, ...this.parts });
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

  /** Replay a recording of `saveTranscript` against the extension in `manifestPath` (`replay-session.ts`); `differences` is empty when it matches. */
  static replay(recordingPath: string, manifestPath: string, options: { timeoutMs?: number } = {}): Promise<ReplayOutcome> {
    return replaySession(recordingPath, manifestPath, options.timeoutMs ?? 10_000, (path, hostOptions) => TestHost.start(path, hostOptions));
  }

  /** A scripted error reply for {@link TestHost.onRequest}. */
  static errorReply(code: number, message: string, data?: unknown): unknown {
    return errorReply(code, message, data);
  }

  /** Return this from a responder to leave the request unanswered. */
  static readonly noReply: unknown = NO_REPLY;

  /** Answer extension→host requests of `method` with `responder`. */
  onRequest(method: string, responder: Responder): this {
    this.parts.responders.set(method, responder);
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

  /** Initialize params built from the manifest, as octet sends them (docs/protocol-0.2.md §3.1). */
  initializeParams(): JsonRecord {
    if (this.parts.v03) return this.services03!.offer(this.parts.v03.initializeParams(this.workspace, this.options));
    return initializeParams(this.manifest, this.workspace, this.options, this.bulk?.offer());
  }

  /** Send `initialize` (id 1) and validate the reply as octet does. Returns the result. */
  async initialize(params: JsonRecord = this.initializeParams()): Promise<JsonRecord> {
    this.parts.v03?.expectInitialize(this.peekNextId(), params);
    const result = (await this.call("initialize", params)) as JsonRecord;
    const violation = this.parts.v03 ? this.parts.v03.checkInitialize(result, params) : checkInitializeResult(result, this.manifest, offeredFeatures(params));
    this.parts.router.judge(result, violation && `invalid initialize response: ${violation}`);
    this.catalogTools = ((result.tools ?? []) as JsonRecord[]).map((t) => String(t.name));
    if (this.parts.v03) return this.services03!.initialized(this.parts.v03.selected?.methods), result;
    this.features = agreedFeatures(result);
    this.parts.monitor.initialized = true;
    return result;
  }

  /** Default `params.context` for requests (docs/protocol-0.2.md §3). */
  executionContext(extra: JsonRecord = {}): JsonRecord {
    return requestContext(this.workspace, extra);
  }

  /** Context for a session-owned request: on API 0.2 it carries {@link TestHost.resourceOwner}. */
  private ownedContext(extra: JsonRecord = {}): JsonRecord {
    return ownedContext(this.manifest.api_version, this.workspace, this.resourceOwner, extra);
  }

  /** Send a request and resolve with the raw reply frame (`{result}` or `{error}`). */
  request(method: string, params?: unknown, options: { id?: number } = {}): Promise<JsonRecord> {
    return this.parts.connection.request(method, params, options.id);
  }

  /** Send a request; resolve with its result or throw {@link ReplyError}. */
  async call(method: string, params?: unknown): Promise<unknown> {
    return replyResult(await this.request(method, params));
  }

  /** `tool/call`. Context defaults to {@link TestHost.executionContext} with an execution scope; on API 0.3 the result is held to the 0.3 shape. */
  async callTool(name: string, args: unknown = {}, options: { context?: JsonRecord; catalogRevision?: number } = {}): Promise<unknown> {
    const scope = { execution_scope: `scope-${this.peekNextId()}` };
    if (this.parts.v03) return this.parts.router.judgeResult("tool/call", await this.call("tool/call", { name, arguments: args, context: options.context ?? this.executionContext(scope) }), toolResultViolation);
    const params: JsonRecord = { name, arguments: args, context: options.context ?? this.ownedContext(scope) };
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
  runHook(hook: string, payload: JsonRecord): Promise<HookOutput>;
  async runHook(hook: string, payload: JsonRecord): Promise<HookOutput> {
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
   * `menu/collect` (needs `contributes.menu = true`), checked as octet checks it (`menu-rules.ts`): a menu
   * octet would reject (and replace by the declared commands) throws {@link HostViolation}.
   */
  async collectMenu(): Promise<Menu> {
    if (!this.manifest.contributes.menu) throw new Error("octet sends menu/collect only with contributes.menu = true");
    return menuReply(await this.call("menu/collect", { context: this.ownedContext() }), this.manifest);
  }

  /** `shortcut/execute`, as octet sends it when the user presses a declared shortcut's key. */
  async runShortcut(name: string): Promise<CommandOutput> {
    if (!this.manifest.contributes.shortcuts.some((s) => s.name === name)) throw new Error(`${name} is not a shortcut declared in contributes.shortcuts`);
    return commandReply(await this.call("shortcut/execute", { name, context: this.ownedContext() }));
  }

  /** `tool/render` of a call of tool `name` (its arguments, output and error flag); the segments as octet reads them. */
  async renderTool(name: string, args: JsonRecord, output: string | null, isError = false): Promise<RenderOutput> {
    return renderReply(await this.call("tool/render", { name, arguments: args, output, is_error: isError, context: this.executionContext() }));
  }

  /**
   * `resource/dispose` for retired `refs` (reason "retired"); a reply that does not report each one
   * `completed` or `failed` ends the process generation, as in octet ({@link HostViolation}).
   */
  async disposeResources(refs: JsonRecord[]): Promise<{ resource: JsonRecord; status: string }[]> {
    const results = disposalResults(await this.call("resource/dispose", { resources: refs, reason: "retired" }), refs);
    return this.parts.router.judge(results!, results ? undefined : "resource/dispose reply does not report every resource completed or failed", "octet would end the generation");
  }

  /** API 0.3 `hook/run {hook, payload}` for `session_start` / `session_end`; resolves with `{disposition}`. */
  async runSessionHook(hook: "session_start" | "session_end", payload: JsonRecord): Promise<JsonRecord> {
    if (!this.parts.v03) throw new Error("runSessionHook is API 0.3's hook/run; use runHook on the legacy wire");
    return this.parts.router.judgeResult("hook/run", await this.call("hook/run", { hook, payload }), hookResultViolation) as JsonRecord;
  }

  /** The contract an API 0.3 extension selected (after `initialize`). */
  get contract03(): { capabilities: ReadonlySet<string>; methods: ReadonlySet<string>; limits: JsonRecord } | undefined {
    return this.parts.v03?.selected;
  }

  /** Send a notification. */
  notify(method: string, params?: unknown): void {
    this.parts.connection.notify(method, params);
  }

  /** Send `$/cancelRequest` for a host request id (API 0.2). */
  cancel(id: number, reason = "user"): void {
    this.notify("$/cancelRequest", { id, reason });
  }

  /** The id the next request will use. */
  peekNextId(): number {
    return this.parts.connection.peekNextId();
  }

  /** Write raw bytes/text to stdin (a newline is appended unless `newline: false`). For malformed-input tests. */
  sendRaw(data: string | Uint8Array, options: { newline?: boolean } = {}): void {
    this.parts.connection.sendRaw(data, options.newline !== false);
  }

  /** Send a lifecycle notification (API 0.2, feature `lifecycle_events`) with the params octet sends for it. */
  lifecycle<E extends LifecycleMethod>(method: E, params: LifecyclePayloads[E]): void;
  lifecycle(method: string, params: JsonRecord): void;
  lifecycle(method: string, params: JsonRecord): void {
    this.notify(method, params);
  }

  // ---- what was recorded --------------------------------------------------------------

  /** Call `listener` with every line from now on, in both directions, as it is written or read (`octet-extension inspect` shows them live). */
  watch(listener: (entry: TranscriptEntry) => void): void {
    this.parts.log.listen(listener);
  }

  /**
   * Save this session's frames for {@link TestHost.replay} and `octet-extension replay`, atomically,
   * mode 0600; answers to `secret/get` and secret `input/request` hold `SECRET_PLACEHOLDER`.
   */
  saveTranscript(path: string): void {
    writeRecording(path, sessionRecording(this.manifest, this.options, this.transcript));
  }

  /** Wait for a host reply with this id to arrive after sending it raw. */
  waitForReply(id: unknown, timeoutMs = 10_000): Promise<JsonRecord> {
    return this.parts.log.waitForReply(id, timeoutMs);
  }

  /** Wait for an extension frame matching `predicate` (received ones count); a predicate that throws rejects the wait. */
  waitForFrame(predicate: (frame: JsonRecord) => boolean, timeoutMs = 10_000): Promise<JsonRecord> {
    return this.parts.log.waitForFrame(predicate, timeoutMs);
  }

  /** Frames the extension wrote, parsed. */
  extensionFrames(): JsonRecord[] {
    return this.parts.log.extensionFrames();
  }

  /** Notifications the extension sent, optionally of one method. */
  notifications(method?: string): JsonRecord[] {
    return this.parts.log.notifications(method);
  }

  /** stderr lines no longer kept in {@link TestHost.stderr}, and their length in UTF-16 code units. */
  get stderrDropped(): { lines: number; chars: number } {
    return { ...this.parts.stderrLines.window.dropped };
  }

  /** Parsed structured stderr lines. */
  logs(): JsonRecord[] {
    return parseLogs(this.stderr);
  }

  // ---- ending ---------------------------------------------------------------------------

  /** Send `shutdown`, expect `{}`, and wait (≤ 2 s, as octet) for the process to exit. Returns the exit code. */
  async shutdown(params: JsonRecord = {}): Promise<number> {
    const result = await this.call("shutdown", params);
    if (this.parts.v03 && JSON.stringify(result) !== '{"terminal":"shutdown"}') this.violations.push(`API 0.3 shutdown must be acknowledged with {"terminal":"shutdown"}, not ${JSON.stringify(result)}`);
    else if (!this.parts.v03 && JSON.stringify(result) !== "{}") this.diagnostics.push(`shutdown acknowledged with ${JSON.stringify(result)}`);
    const code = await Promise.race([this.exited, Bun.sleep(2_000).then(() => undefined)]);
    if (code === undefined) {
      this.parts.router.fatal("process did not exit within 2 s after acknowledging shutdown");
      await this.exited;
    }
    this.assertHealthy(); // throws when the process had to be killed: the violation was just recorded
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
}
