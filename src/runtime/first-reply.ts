import { isObject } from "../check.ts";
import type { Logger } from "../log.ts";
import type { Feature } from "../protocol.ts";
import { asciiText } from "../wire/decode.ts";
import { encodeWireFrame, type WireLine } from "../wire/encode.ts";
import type { FrameSink } from "../wire/frame-writer.ts";
import { readId, wireId } from "../wire/ids.ts";
import { parseJson } from "../wire/json.ts";
import { lineBytes } from "../wire/line-bytes.ts";
import type { ReadResult } from "../wire/read-ahead.ts";
import { type ClaimedStdio, claimStdio } from "../wire/stdio.ts";
import { type Negotiated, negotiate } from "./initialize.ts";
import type { Registry } from "./registry.ts";

/**
 * The host's `initialize`, answered from the first read of stdin before the session machinery
 * (`serve`, `Connection`, `FrameWriter`, the line splitter) is loaded: cold start is the time to
 * this reply (docs/performance-log.md, "The first reply"). Only the usual opening takes this way: one
 * whole initialize request, ASCII, first in its own read(s), that negotiates and encodes. Anything
 * else (a frame before it, a frame behind it in the same read, a malformed or oversize line, a
 * failed negotiation, EOF) is handed unanswered to the session, which treats it exactly as if this
 * module did not exist; only its warnings are dropped here, since the session negotiates again.
 */

/** Where a session over stdio starts (what `serve` takes over). */
export interface Opening {
  reader: { read(): Promise<ReadResult> };
  /** Chunks read and not answered here: the session frames them first, in order. */
  chunks: Uint8Array[];
  /** The read to await after them (already settled when the input ended or failed). */
  next: Promise<ReadResult>;
  stdio: ClaimedStdio;
  /** Set when the chunks read were one initialize request, answered here. */
  answered?: Answered;
}

/** A first initialize answered here: the session starts in the ready state. */
export interface Answered {
  negotiated: Negotiated;
  /** Where later frames go: the private protocol sink once sealed, else the claimed stdout. */
  sink: FrameSink;
  /** Why writing the reply failed (the protocol stream is closed), when it did: nothing is sealed then. */
  failure?: Error;
}

/** What the answer needs of the extension's options. */
export interface FirstReplyTerms {
  maxMessageBytes: number;
  maxConcurrentRequests: number;
  supportedFeatures: ReadonlySet<Feature>;
}

type Reply = { line: WireLine; negotiated: Negotiated; warnings: [string, Record<string, unknown>][] };

/** Claim stdio, read up to the first LF and answer it when it is the usual initialize (see above). */
export async function openStdio(log: Logger, registry: Registry, terms: FirstReplyTerms): Promise<Opening> {
  // Start reading first: the host's initialize arrives while stdio is claimed.
  const reader = Bun.stdin.stream().getReader();
  let next = reader.read();
  const stdio = claimStdio(log);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let read: ReadResult;
    try {
      read = await next;
    } catch {
      return { reader, chunks, next, stdio };
    }
    if (read.done || !read.value) return { reader, chunks, next, stdio };
    chunks.push(read.value);
    size += read.value.length;
    next = reader.read();
    // Handled here too: a read that fails while the reply is written is the transport's to report, once.
    next.catch(ignore);
    if (read.value.indexOf(10) !== -1) break;
    // Content and a CR past limit + 1 bytes with no LF yet: oversize, the session's to refuse.
    if (size > terms.maxMessageBytes + 1) return { reader, chunks, next, stdio };
  }
  const reply = firstInitialize(lineBytes(chunks), registry, terms);
  if (reply === undefined) {
    log.debug("first frame handed to the session");
    return { reader, chunks, next, stdio };
  }
  for (const [message, fields] of reply.warnings) log.warning(message, fields);
  const sink = stdio.protocol;
  let failure: Error | undefined;
  try {
    const accepted = sink.write(reply.line);
    if (typeof accepted !== "number") await accepted;
    const flushed = sink.flush();
    if (typeof flushed !== "number") await flushed;
  } catch (error) {
    failure = error as Error;
  }
  // fds 1 and 2 are moved once the first frame is out, before any handler can run (stdio.ts).
  const sealed = failure === undefined ? stdio.seal() : undefined;
  log.debug("initialize answered from the first read");
  return { reader, chunks: [], next, stdio, answered: { negotiated: reply.negotiated, sink: sealed ?? sink, failure } };
}

/**
 * The reply to `bytes` when they are exactly one initialize request the session would answer with a
 * result, encoded as `Replies` would; undefined for anything else (the session's to answer).
 */
function firstInitialize(bytes: Uint8Array, registry: Registry, terms: FirstReplyTerms): Reply | undefined {
  const lf = bytes.length - 1;
  // One line, starting a JSON object, ending with the read (what TextLineSplitter decodes as one text line).
  if (bytes[0] !== 123 || bytes.indexOf(10) !== lf) return undefined;
  const text = asciiText(bytes);
  if (text === undefined) return undefined;
  const end = text.charCodeAt(lf - 1) === 13 ? lf - 1 : lf;
  if (end > terms.maxMessageBytes) return undefined;
  let message: unknown;
  try {
    message = parseJson(text.slice(0, end));
  } catch {
    return undefined;
  }
  if (!isObject(message) || message.jsonrpc !== "2.0" || message.method !== "initialize") return undefined;
  const id = readId(message);
  if (id.kind !== "valid") return undefined;
  const warnings: Reply["warnings"] = [];
  let agreed: ReturnType<typeof negotiate>;
  try {
    agreed = negotiate(message.params === undefined ? {} : message.params, registry, {
      maxConcurrentRequests: terms.maxConcurrentRequests,
      supportedFeatures: terms.supportedFeatures,
      warn: (warning, fields) => warnings.push([warning, fields]),
    });
  } catch {
    return undefined;
  }
  try {
    return { line: encodeWireFrame({ jsonrpc: "2.0", id: wireId(id.id), result: agreed.result }, terms.maxMessageBytes), negotiated: agreed.negotiated, warnings };
  } catch {
    // The session negotiates again (and answers -32603): these terms are dropped.
    agreed.negotiated.bulk?.directory.close();
    return undefined;
  }
}

function ignore(): void {}
