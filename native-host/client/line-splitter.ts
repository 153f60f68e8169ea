/**
 * LF framing of the host's stdout (docs/native-host-protocol.md §3). Chunks go in, whole
 * lines come out; a line's content excludes its LF and one trailing CR.
 * Content longer than `limit` bytes is reported once as oversize and
 * discarded through the next LF without being buffered. A line is delivered
 * as the views of the chunks it spans; {@link lineBytes} joins them.
 * The same algorithm as octet-extension's src/wire/line-splitter.ts: the
 * packages share no code, so each keeps its own copy.
 */
export type SplitEvent =
  | { kind: "line"; parts: Uint8Array[] }
  | { kind: "oversize" }
  /** Bytes left without a terminating LF when the input ended. */
  | { kind: "unterminated"; parts: Uint8Array[] };

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

/** The bytes of a line as one array (copies only when it spans several chunks). */
export function lineBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 0) return new Uint8Array(0);
  let size = 0;
  for (const part of parts) size += part.length;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
