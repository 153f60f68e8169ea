/** The host side of the wire: request ids, the pending map, correlating replies, writing to stdin. */

import type { JsonRecord } from "../check.ts";
import { encodeFrame } from "../wire/encode.ts";
import type { RequestId } from "../wire/ids.ts";
import { parseJson, readUnsigned64 } from "../wire/json.ts";
import { MAX_MESSAGE_BYTES } from "../protocol.ts";
import type { Transcript } from "./transcript.ts";

/** A host request awaiting its reply. */
export interface ActiveRequest {
  method: string;
  resolve(reply: JsonRecord): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Extension requests made on its behalf and not yet answered. */
  children: Set<RequestId>;
  /** Last `$/progress` sequence seen for it. */
  progressSequence: number;
}

/** The extension's stdin, as the connection writes to it. */
export interface ExtensionStdin {
  readonly exitCode: number | undefined;
  /** Write `chunks` in order, then flush. */
  write(...chunks: (string | Uint8Array)[]): void;
}

/** Sends the host's frames and matches the extension's replies to them. */
export class HostConnection {
  /** Set once anything was written raw: replies to raw input are not held to the rules. */
  sentRaw = false;
  private nextId = 1;
  private readonly pending = new Map<number, ActiveRequest>();

  constructor(
    private readonly stdin: ExtensionStdin,
    private readonly transcript: Transcript,
    private readonly options: { timeoutMs(): number; cancelOnTimeout(): boolean; encode?: (frame: JsonRecord) => string },
  ) {}

  /** A frame as the host writes it, LF included (API 0.3 hosts write canonical frames). */
  private encode(frame: JsonRecord): string {
    return this.options.encode ? this.options.encode(frame) : encodeFrame(frame, Number.MAX_SAFE_INTEGER);
  }

  /** Send a request; resolves with the raw reply frame. On timeout it is dropped (and cancelled, on API 0.2). */
  request(method: string, params?: unknown, idOption?: number): Promise<JsonRecord> {
    const id = idOption ?? this.nextId++;
    const frame: JsonRecord = { jsonrpc: "2.0", id, method };
    if (params !== undefined) frame.params = params;
    const line = this.encode(frame);
    if (Buffer.byteLength(line) > MAX_MESSAGE_BYTES) {
      return Promise.reject(new Error(`the host refuses to send a ${Buffer.byteLength(line)}-byte frame (limit ${MAX_MESSAGE_BYTES} incl. LF)`));
    }
    return new Promise((resolve, reject) => {
      const timeout = this.options.timeoutMs();
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (this.options.cancelOnTimeout()) this.notify("$/cancelRequest", { id, reason: "timeout" });
        reject(new Error(`${method} (id ${id}) timed out after ${timeout} ms`));
      }, timeout);
      this.pending.set(id, { method, resolve, reject, timer, children: new Set(), progressSequence: 0 });
      this.writeLine(line);
    });
  }

  notify(method: string, params?: unknown): void {
    const frame: JsonRecord = { jsonrpc: "2.0", method };
    if (params !== undefined) frame.params = params;
    this.send(frame);
  }

  /** Encode and write any frame (a reply to the extension, for instance). */
  send(frame: JsonRecord): void {
    this.writeLine(this.encode(frame));
  }

  /** The id the next request will use. */
  peekNextId(): number {
    return this.nextId;
  }

  /** Write raw bytes (a newline appended unless `newline` is false); requests in them become active. */
  sendRaw(data: string | Uint8Array, newline: boolean): void {
    this.sentRaw = true;
    this.trackRawRequest(data);
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    if (newline) this.stdin.write(bytes, "\n");
    else this.stdin.write(bytes);
    this.transcript.record({ from: "host", text: Buffer.from(bytes).toString("utf8") });
  }

  /** The host request with this id, while it awaits its reply. */
  active(id: number): ActiveRequest | undefined {
    return this.pending.get(id);
  }

  /** Correlate a reply: the request it answers, removed with its timer stopped; undefined if none awaits `id`. */
  take(id: number): ActiveRequest | undefined {
    const request = this.pending.get(id);
    if (!request) return undefined;
    this.pending.delete(id);
    clearTimeout(request.timer);
    return request;
  }

  /** Reject every pending request with `errorFor(request)` and forget it. */
  rejectAll(errorFor: (request: ActiveRequest) => Error, options: { stopTimers: boolean }): void {
    for (const [, request] of this.pending) {
      if (options.stopTimers && request.timer) clearTimeout(request.timer);
      request.reject(errorFor(request));
    }
    this.pending.clear();
  }

  private writeLine(line: string): void {
    if (this.stdin.exitCode !== undefined) throw new Error("the extension has exited");
    this.transcript.record({ from: "host", text: line.slice(0, -1), frame: JSON.parse(line) as JsonRecord });
    this.stdin.write(line);
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
      this.pending.set(id, { method: String((frame as JsonRecord).method), resolve: () => {}, reject: () => {}, timer: undefined, children: new Set(), progressSequence: 0 });
    }
  }
}
