/**
 * The extension→host side of the test host: each stdout read is decoded and
 * recorded, a reply settles its host request, a request or notification goes
 * to the rules for its kind and then to a responder, and a fatal break ends
 * the session as octet ends it (docs/protocol-0.2.md §1.9, §4).
 */
import type { JsonRecord } from "../check.ts";
import { MAX_MESSAGE_BYTES } from "../protocol.ts";
import { wireId, type RequestId } from "../wire/ids.ts";
import { readUnsigned64 } from "../wire/json.ts";
import type { ExtensionProcess } from "./extension-process.ts";
import { HostViolation } from "./host-errors.ts";
import type { HostConnection } from "./host-connection.ts";
import { checkResponseEnvelope } from "./host-rules.ts";
import type { HostMonitor } from "./monitor.ts";
import { errorReply, NO_REPLY, replyFrame, type Responders } from "./responders.ts";
import { decodeStdoutLine } from "./stdout-frames.ts";
import type { HostReadEvent } from "./stdout-reader.ts";
import type { Transcript, TranscriptEntry } from "./transcript.ts";
import type { CanonicalHostSession } from "./v03/canonical-host-session.ts";
import { extensionMessageViolation } from "./v03/rules.ts";

/** What the router reads from and writes to: the test host's parts. */
export interface RoutedHost {
  child: ExtensionProcess;
  log: Transcript;
  connection: HostConnection;
  monitor: HostMonitor;
  responders: Responders;
  /** The API 0.3 side, for a 0.3 manifest. */
  v03: CanonicalHostSession | undefined;
}

/** Routes every frame the extension writes; see the module comment. */
export class FrameRouter {
  constructor(private readonly host: RoutedHost) {}

  /** Like octet: kill the process and fail every pending call; nothing more is read. */
  fatal(message: string): void {
    this.host.monitor.fatal(message);
    this.host.child.kill();
    const error = new HostViolation(`octet would kill the extension: ${message}`);
    this.host.connection.rejectAll(() => error, { stopTimers: true });
  }

  /** `value` when `violation` is empty; else the violation is fatal and thrown as `<consequence>: <violation>`. */
  judge<T>(value: T, violation: string | undefined, consequence = "octet would kill the extension"): T {
    if (!violation) return value;
    this.fatal(violation);
    throw new HostViolation(`${consequence}: ${violation}`);
  }

  /** A result held to its method's shape by `rule` (API 0.3 results), judged as {@link FrameRouter.judge} does. */
  judgeResult(method: string, result: unknown, rule: (result: unknown) => string | undefined): unknown {
    const violation = rule(result);
    return this.judge(result, violation && `invalid ${method} result: ${violation}`);
  }

  /** One read of stdout: a line, a line over the frame limit, or a last line without LF. */
  onStdout(event: HostReadEvent): void {
    const { log, monitor, v03 } = this.host;
    // After a fatal violation octet has closed the connection: nothing more is read.
    if (monitor.closed) return;
    let decoded: { entry?: TranscriptEntry; violation?: string };
    if (v03) decoded = v03.decode(event);
    else if (event.kind === "oversize") return this.fatal(`stdout line reached the ${MAX_MESSAGE_BYTES}-byte frame limit (1 MiB, CR included, LF excluded)`);
    else if (event.kind === "unterminated") return this.fatal("EOF in the middle of a stdout line");
    else decoded = decodeStdoutLine(event.bytes);
    if (decoded.entry) log.record(decoded.entry);
    if (decoded.violation) return this.fatal(decoded.violation);
    if (decoded.entry) this.route(decoded.entry);
  }

  /** Hand a frame to the rules for its kind, then to the waits it matches. */
  private route(entry: TranscriptEntry): void {
    const frame = entry.frame!;
    if (!("method" in frame)) this.onResponse(frame);
    else if (!this.host.monitor.initialized) return this.fatal(`extension sent ${String(frame.method)} before its initialize response`);
    else if (this.host.v03) this.onExtensionMessage03(this.host.v03, frame);
    else if ("id" in frame) this.onExtensionRequest(frame);
    else this.onExtensionNotification(frame);
    this.host.log.release(entry);
  }

  private onResponse(frame: JsonRecord): void {
    const { connection, monitor } = this.host;
    const violation = checkResponseEnvelope(frame);
    // A host that wrote raw (possibly malformed) input itself gets replies to it, ids and all.
    if (violation && connection.sentRaw) {
      monitor.diagnostics.push(`reply to raw input: ${violation}`);
      return;
    }
    if (violation) return this.fatal(violation);
    const request = connection.take(Number(readUnsigned64(frame, "id")));
    if (!request) {
      monitor.diagnostics.push(`response for unknown or settled host id ${String(frame.id)} ignored`);
      return;
    }
    // octet accepts other frames as soon as it has read a successful initialize reply.
    if (request.method === "initialize" && "result" in frame) monitor.initialized = true;
    // When a parent settles, the host cancels its unresolved children (docs/protocol-0.2.md §4).
    for (const child of request.children) {
      if (monitor.settle(child)) connection.notify("$/cancelRequest", { id: wireId(child), reason: "parent settled" });
    }
    request.resolve(frame);
  }

  private onExtensionNotification(frame: JsonRecord): void {
    const violation = this.host.monitor.notification(frame);
    if (violation) this.fatal(violation);
  }

  private onExtensionRequest(frame: JsonRecord): void {
    const verdict = this.host.monitor.request(frame);
    if (verdict.kind === "fatal") return this.fatal(verdict.violation);
    if (verdict.kind === "refuse") return this.answer(verdict.id, errorReply(verdict.error.code, verdict.error.message, verdict.error.data));
    this.host.responders.serve(frame, (value) => this.answer(verdict.id, value));
  }

  /** Reply to an extension request, unless told not to, the process is gone, or it is no longer outstanding. */
  private answer(id: RequestId, value: unknown): void {
    if (value === NO_REPLY || this.host.child.exitCode !== undefined) return;
    if (!this.host.monitor.settle(id)) return;
    this.host.connection.send(replyFrame(id, value));
  }

  /** A request or notification from an API 0.3 extension: a selected extension→host method, else refused or fatal. */
  private onExtensionMessage03(v03: CanonicalHostSession, frame: JsonRecord): void {
    const { child, connection, monitor, responders } = this.host;
    const verdict = extensionMessageViolation(frame, v03.selectedMethods);
    if (verdict.fatal) return this.fatal(verdict.fatal);
    if (!("id" in frame)) {
      if (verdict.refuse) monitor.diagnostics.push(`notification ignored: ${verdict.refuse}`);
      const violation = verdict.refuse ? undefined : v03.providers.notification(frame);
      if (violation) this.fatal(violation);
      return;
    }
    const id = frame.id as string | number;
    if (!v03.admit(id)) return this.fatal(`extension request id ${JSON.stringify(id)} reused`);
    const reply = (value: unknown) => {
      if (value === NO_REPLY || child.exitCode !== undefined || !v03.settle(id)) return;
      try {
        connection.send(replyFrame(id, value));
      } catch (error) {
        monitor.diagnostics.push(`reply to ${String(frame.method)} not written: ${(error as Error).message}`);
      }
    };
    if (verdict.refuse) {
      monitor.diagnostics.push(verdict.refuse);
      return reply(errorReply(-32601, "unknown or unnegotiated method", { method: frame.method }));
    }
    responders.serve(frame, reply);
  }
}
