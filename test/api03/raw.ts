import { afterEveryTest } from "../setup.ts";
import { loadManifest, temporaryDirectory } from "octet-extension/testing";
import { pathWithBun, planLaunch } from "../../src/testing/launch.ts";

const dir = (name: string) => new URL(`../fixtures/conformance/${name}/octet-conformance-fixture`, import.meta.url).pathname;
/** The conformance fixture's 0.3 manifest (docs/conformance-fixture.md §10.2) and its two variants. */
export const V03 = dir("v03");
export const V03_NO_HOOKS = dir("v03-no-hooks");
export const V03_NO_PROVIDERS = dir("v03-no-providers");

/** Canonical text as docs/conformance-fixture.md §7.1 defines `canon` (members by code point). */
export function canon(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canon).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canon((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const running: RawExtension[] = [];
afterEveryTest(() => {
  for (const extension of running.splice(0)) extension.kill();
});

/**
 * An extension launched as octet launches it, driven with raw bytes over its
 * pipes: what a test writes is exactly what the extension reads, and every
 * stdout line is kept as written.
 */
export class RawExtension {
  readonly lines: string[] = [];
  stderr = "";
  readonly exited: Promise<number>;
  readonly workspace: string;
  private readonly proc: ReturnType<typeof Bun.spawn>;
  private buffered = "";
  private waiters: (() => void)[] = [];

  constructor(manifestDir: string, env: Record<string, string> = {}) {
    const manifest = loadManifest(manifestDir);
    this.workspace = temporaryDirectory("octet-v03-");
    const plan = planLaunch(manifest, { workspace: this.workspace, hostEnv: { ...process.env, PATH: pathWithBun(process.env.PATH) } });
    this.proc = Bun.spawn(plan.argv, { cwd: plan.cwd, env: { ...plan.env, ...env }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    running.push(this);
    void this.read(this.proc.stdout as ReadableStream<Uint8Array>, (text) => {
      this.buffered += text;
      let lf: number;
      while ((lf = this.buffered.indexOf("\n")) !== -1) {
        this.lines.push(this.buffered.slice(0, lf));
        this.buffered = this.buffered.slice(lf + 1);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    void this.read(this.proc.stderr as ReadableStream<Uint8Array>, (text) => (this.stderr += text));
    this.exited = this.proc.exited;
  }

  /**
   * Write `frame` (canonical text of a value, or raw text/bytes) followed by one LF unless `lf` is false.
   * A process that already ended the stream may have closed stdin: what the host writes after that is lost (EPIPE), as in octet.
   */
  send(frame: unknown, options: { lf?: boolean } = {}): void {
    const body = typeof frame === "string" || frame instanceof Uint8Array ? frame : canon(frame);
    const stdin = this.proc.stdin as import("bun").FileSink;
    try {
      stdin.write(body);
      if (options.lf !== false) stdin.write("\n");
      stdin.flush();
    } catch (error) {
      if ((error as { code?: string }).code !== "EPIPE") throw error;
    }
  }

  request(id: number | string, method: string, params: unknown): void {
    this.send({ id, jsonrpc: "2.0", method, params });
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  /** The `n`th stdout line (0-based), waiting up to `timeoutMs` for it. */
  async line(n: number, timeoutMs = 10_000): Promise<string> {
    const deadline = performance.now() + timeoutMs;
    while (this.lines.length <= n) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no stdout line ${n} within ${timeoutMs} ms; got ${JSON.stringify(this.lines)}; stderr: ${this.stderr.slice(-2000)}`);
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), Bun.sleep(Math.min(left, 100))]);
    }
    return this.lines[n]!;
  }

  /** The reply line whose id is `id` (as canonical text), waiting for it. */
  async reply(id: number | string, timeoutMs = 10_000): Promise<string> {
    const prefix = canon(id);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find((line) => line.includes(`"id":${prefix},"jsonrpc"`) || line.startsWith(`{"id":${prefix},`));
      if (found) return found;
      if (performance.now() > deadline) throw new Error(`no reply for id ${prefix}; got ${JSON.stringify(this.lines)}; stderr: ${this.stderr.slice(-2000)}`);
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), Bun.sleep(50)]);
    }
  }

  /** Close stdin (EOF). */
  end(): void {
    (this.proc.stdin as import("bun").FileSink).end();
  }

  /** The exit code, or `undefined` if the process is still running after `timeoutMs`. */
  async exitWithin(timeoutMs: number): Promise<number | undefined> {
    return Promise.race([this.exited, Bun.sleep(timeoutMs).then(() => undefined)]);
  }

  kill(): void {
    this.proc.kill();
  }

  /** Parsed structured stderr records. */
  logs(): Record<string, unknown>[] {
    return this.stderr
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l));
  }

  private async read(stream: ReadableStream<Uint8Array>, take: (text: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) take(decoder.decode(chunk, { stream: true }));
  }
}

/** octet's fixture offer (`initialize-request.json`), as docs/conformance-fixture.md §10.3 describes it. */
export function defaultOffer(): Record<string, any> {
  return {
    encoding: "octet-canonical-json-v1",
    limits: { max_concurrent_requests: 4, max_frame_bytes: 1048576, max_tools: 256 },
    optional_capabilities: ["lifecycle_events", "migration.adapter.v1", "provider_auth", "provider_catalog", "provider_stream"],
    optional_methods: [
      "hook/run",
      "migration/detect",
      "migration/import",
      "provider/auth/request",
      "provider/auth/revoke",
      "provider/cancel",
      "provider/event",
      "provider/stream",
      "providers/complete",
      "providers/register",
      "providers/unregister",
      "providers/update",
    ],
    required_capabilities: ["content_parts", "core", "request_cancellation", "tool_call"],
    required_methods: ["$/cancelRequest", "initialize", "shutdown", "tool/call"],
    schema: "octet.extension.api/0.3",
  };
}

/** The initialize params the harness sends (docs/conformance-fixture.md §10.3) for `manifestDir`. */
export function initializeParams(extension: RawExtension, manifestDir: string, contract = defaultOffer()): Record<string, any> {
  const manifest = loadManifest(manifestDir);
  return {
    api_version: "0.3",
    capabilities: { filesystem: "workspace", network: false, process: false },
    contract,
    contributes: manifest.contributesTable,
    extension: { manifest_path: manifest.path, name: manifest.name, source: "explicit", version: manifest.version },
    flag_values: [],
    host: { active_skills: [], model: "conformance-model", reasoning: null, session_id: "conformance-session", session_name: null },
    octet_version: "0.8.0",
    workspace: extension.workspace,
  };
}

/** The catalog result the harness answers `providers/register` with. */
export const CATALOG_RESULT = { model_ids: ["echo-1"], provider_ids: ["fixture"], revision: 1 };

/**
 * Launch the fixture in 0.3 mode and initialize it; returns it with the reply
 * line. When the provider names were selected, the fixture's catalog handshake
 * (docs/conformance-fixture.md §10.6) is played too: its `providers/register`
 * is answered with {@link CATALOG_RESULT} and, once `providers/complete` is read,
 * both lines move from `ext.lines` to `handshake` (so line 1 is the first
 * frame after the handshake).
 */
export async function initialized(manifestDir = V03, contract = defaultOffer()): Promise<{ ext: RawExtension; reply: string; handshake: string[] }> {
  const ext = new RawExtension(manifestDir);
  ext.request(1, "initialize", initializeParams(ext, manifestDir, contract));
  const reply = await ext.line(0);
  const methods: string[] = JSON.parse(reply).result?.contract?.methods ?? [];
  if (!methods.includes("providers/register")) return { ext, reply, handshake: [] };
  const register = await ext.line(1);
  ext.send({ id: JSON.parse(register).id, jsonrpc: "2.0", result: CATALOG_RESULT });
  await ext.line(2);
  return { ext, reply, handshake: ext.lines.splice(1, 2) };
}

/** `TEXT(t)` of docs/conformance-fixture.md §10.4, as the exact reply line for `id`. */
export const textReply = (id: number | string, text: string, isError = false, metadata: unknown = null) =>
  canon({ id, jsonrpc: "2.0", result: { content: [{ text, type: "text" }], is_error: isError, metadata } });

/** An error reply line of the table. */
export const errorReply = (id: number | string, code: number, message: string, data?: unknown) =>
  canon({ error: data === undefined ? { code, message } : { code, data, message }, id, jsonrpc: "2.0" });
