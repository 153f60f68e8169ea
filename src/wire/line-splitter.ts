import { asciiText } from "./decode.ts";

/**
 * Byte-level LF framing (docs/protocol-0.2.md §1.1, §1.2). Chunks go in, whole lines come out.
 * A line's content excludes its LF and one trailing CR. Content longer than
 * `limit` bytes is reported once as oversize and discarded through the next
 * LF without being buffered. A line is delivered as the views of the chunks
 * it spans (no copy; stream chunks are fresh buffers, so the caller must not
 * reuse a chunk's memory after pushing it); `lineBytes` (line-bytes.ts) joins them.
 */
export type SplitEvent =
  | { kind: "line"; parts: Uint8Array[] }
  | { kind: "oversize" }
  /** Bytes left without a terminating LF when the input ended. */
  | { kind: "unterminated"; parts: Uint8Array[] };

/** What a {@link TextLineSplitter} emits: also lines of ASCII bytes, already decoded. */
export type LineEvent = SplitEvent | { kind: "text"; text: string };

/** A line's length: characters of a decoded one, bytes of the others; an oversize one counts as `limit`, which it passed. */
export function lineLength(event: LineEvent, limit: number): number {
  if (event.kind === "text") return event.text.length;
  if (event.kind === "oversize") return limit;
  let length = 0;
  for (let i = 0; i < event.parts.length; i++) length += event.parts[i]!.length;
  return length;
}

export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private discarding = false;

  constructor(private readonly limit: number) {}

  /** Feed one chunk; `emit` runs synchronously for each completed line. */
  push(chunk: Uint8Array, emit: (event: SplitEvent) => void): void {
    let start = 0;
    while (start < chunk.length) {
      const lf = chunk.indexOf(10, start);
      const end = lf === -1 ? chunk.length : lf;
      if (!this.discarding) {
        const piece = chunk.subarray(start, end);
        // limit + 1 leaves room for a CR that will be stripped.
        if (this.size + piece.length > this.limit + 1) {
          this.drop();
          this.discarding = true;
          emit({ kind: "oversize" });
        } else if (piece.length > 0) {
          this.parts.push(piece);
          this.size += piece.length;
        }
      }
      if (lf === -1) return;
      if (this.discarding) this.discarding = false;
      else this.deliver("line", emit);
      start = lf + 1;
    }
  }

  /** Signal end of input: a final line without LF is still delivered. */
  end(emit: (event: SplitEvent) => void): void {
    if (this.discarding || this.size === 0) {
      this.discarding = false;
      return;
    }
    this.deliver("unterminated", emit);
  }

  /** Bytes buffered for the current unterminated line. */
  get pending(): number {
    return this.size;
  }

  /** The next byte starts a line (nothing buffered, nothing being discarded). */
  get atLineStart(): boolean {
    return this.size === 0 && !this.discarding;
  }

  private deliver(kind: "line" | "unterminated", emit: (event: SplitEvent) => void): void {
    const parts = this.parts;
    let size = this.size;
    this.drop();
    const last = parts[parts.length - 1];
    if (last && last[last.length - 1] === 13) {
      size--;
      if (last.length === 1) parts.pop();
      else parts[parts.length - 1] = last.subarray(0, last.length - 1);
    }
    if (size > this.limit) emit({ kind: "oversize" });
    else emit({ kind, parts });
  }

  private drop(): void {
    this.parts = [];
    this.size = 0;
  }
}

/**
 * The runtime's splitter: the whole lines a chunk starts with are decoded in
 * one call when they are all ASCII (the usual frame), and delivered as `text`
 * events with the same CR, limit and blank-line rules; anything else takes
 * the byte path.
 */
export class TextLineSplitter {
  private readonly bytes: LineSplitter;

  constructor(private readonly limit: number) {
    this.bytes = new LineSplitter(limit);
  }

  push(chunk: Uint8Array, emit: (event: LineEvent) => void): void {
    const start = this.bytes.atLineStart ? this.pushText(chunk, emit) : 0;
    // Views are made only for what is left (a typed-array view costs more than decoding a short line).
    if (start === 0) this.bytes.push(chunk, emit);
    else if (start < chunk.length) this.bytes.push(chunk.subarray(start), emit);
  }

  end(emit: (event: LineEvent) => void): void {
    this.bytes.end(emit);
  }

  /**
   * A chunk that starts a line: decode everything up to its last LF at once
   * (one native call, no views) when it is all ASCII, so that characters are
   * bytes. Returns where the byte path takes over.
   */
  private pushText(chunk: Uint8Array, emit: (event: LineEvent) => void): number {
    const last = chunk.lastIndexOf(10);
    if (last === -1) return 0;
    // A chunk that ends with its LF (the usual one) is decoded whole, LF included.
    const text = asciiText(last === chunk.length - 1 ? chunk : chunk.subarray(0, last));
    if (text === undefined) return 0;
    let start = 0;
    for (;;) {
      let lf = text.indexOf("\n", start);
      if (lf === -1) lf = last;
      let end = lf;
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      if (end - start > this.limit) emit({ kind: "oversize" });
      else emit({ kind: "text", text: text.slice(start, end) });
      if (lf === last) return last + 1;
      start = lf + 1;
    }
  }
}
