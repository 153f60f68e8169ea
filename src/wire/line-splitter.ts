/**
 * Byte-level LF framing (spec §1.1, §1.2). Chunks go in, whole lines come out.
 * A line's content excludes its LF and one trailing CR. Content longer than
 * `limit` bytes is reported once as oversize and discarded through the next
 * LF without being buffered. Chunks are kept as views, not copied: the
 * caller must not reuse a chunk's memory after pushing it (stream chunks are
 * fresh buffers).
 */
export type SplitEvent =
  | { kind: "line"; bytes: Uint8Array }
  | { kind: "oversize" }
  /** Bytes left without a terminating LF when the input ended. */
  | { kind: "unterminated"; bytes: Uint8Array };

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
      if (this.discarding) {
        this.discarding = false;
      } else {
        const line = this.take();
        if (line.length > this.limit) emit({ kind: "oversize" });
        else emit({ kind: "line", bytes: line });
      }
      start = lf + 1;
    }
  }

  /** Signal end of input: a final line without LF is still delivered. */
  end(emit: (event: SplitEvent) => void): void {
    if (this.discarding || this.size === 0) {
      this.discarding = false;
      return;
    }
    const line = this.take();
    if (line.length > this.limit) emit({ kind: "oversize" });
    else emit({ kind: "unterminated", bytes: line });
  }

  /** Bytes buffered for the current unterminated line. */
  get pending(): number {
    return this.size;
  }

  private take(): Uint8Array {
    let line: Uint8Array;
    if (this.parts.length === 1) line = this.parts[0]!;
    else {
      line = new Uint8Array(this.size);
      let offset = 0;
      for (const part of this.parts) {
        line.set(part, offset);
        offset += part.length;
      }
    }
    this.drop();
    return line.length > 0 && line[line.length - 1] === 13 ? line.subarray(0, line.length - 1) : line;
  }

  private drop(): void {
    this.parts = [];
    this.size = 0;
  }
}
