/**
 * An extension's stderr cut into lines as octet cuts it (docs/protocol-0.2.md §1.3): at LF,
 * or when a line reaches the limit, so a flood without newlines never grows
 * a buffer beyond one line. Only each new chunk is scanned. A long line
 * arrives in pieces of at most `maxBytes` bytes (cut on a UTF-8 character
 * boundary): the first marked `first`, the rest `more`; a line within the
 * limit is `whole`. A chunk's complete lines are decoded and split at once.
 * Bytes are decoded leniently; the line end (LF) is not part of the line.
 */
const LF = 0x0a;

/** Where a line stands: all of a line, the first piece of a longer one, or a later piece. */
export type LinePart = "whole" | "first" | "more";

export class StderrLineSplitter {
  /** The line so far (allocated when a line first spans chunks). */
  private buffer: Uint8Array | undefined;
  private size = 0;
  /** The last piece delivered was cut: what follows continues its line. */
  private continued = false;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly maxBytes: number,
    private readonly deliver: (line: string, part: LinePart) => void,
  ) {}

  push(chunk: Uint8Array): void {
    const last = chunk.lastIndexOf(LF);
    if (last === -1) return this.append(chunk);
    let start = 0;
    if (this.size > 0) {
      // The line in progress ends at the first LF.
      const lf = chunk.indexOf(LF);
      this.append(chunk.subarray(0, lf));
      this.flush(false);
      start = lf + 1;
    }
    if (last >= start) this.completeLines(chunk.subarray(start, last));
    if (last + 1 < chunk.length) this.append(chunk.subarray(last + 1));
  }

  /** Whole lines separated by LF: decoded at once when none of them can be over the limit. */
  private completeLines(bytes: Uint8Array): void {
    if (bytes.length <= this.maxBytes) {
      for (const line of this.decoder.decode(bytes).split("\n")) this.emit(line, false);
      return;
    }
    for (let start = 0; ; ) {
      const lf = bytes.indexOf(LF, start);
      this.append(bytes.subarray(start, lf === -1 ? bytes.length : lf));
      this.flush(false);
      if (lf === -1) return;
      start = lf + 1;
    }
  }

  /** stderr ended: deliver what is left of an unterminated line. */
  end(): void {
    if (this.size > 0) this.flush(false);
  }

  private append(bytes: Uint8Array): void {
    for (;;) {
      const room = this.maxBytes - this.size;
      if (bytes.length <= room) {
        if (bytes.length > 0) this.keep(bytes);
        return;
      }
      this.keep(bytes.subarray(0, room));
      bytes = bytes.subarray(room);
      // The line goes on: cut the full buffer before a character that the cut would split (UTF-8: at most
      // 3 continuation bytes back), and carry that character's first bytes into the next piece.
      const after = bytes;
      const byteAt = (at: number) => (at === this.maxBytes ? after[0]! : this.buffer![at]!);
      let cut = this.maxBytes;
      while (cut > this.maxBytes - 3 && (byteAt(cut) & 0xc0) === 0x80) cut--;
      if ((byteAt(cut) & 0xc0) === 0x80) cut = this.maxBytes; // not UTF-8 there: cut anywhere
      this.flush(true, cut);
    }
  }

  private keep(bytes: Uint8Array): void {
    this.buffer ??= new Uint8Array(this.maxBytes);
    this.buffer.set(bytes, this.size);
    this.size += bytes.length;
  }

  /** Deliver the first `end` bytes of the line so far; what follows them starts the next piece. */
  private flush(cut: boolean, end = this.size): void {
    const line = end === 0 ? "" : this.decoder.decode(this.buffer!.subarray(0, end));
    if (end < this.size) this.buffer!.copyWithin(0, end, this.size);
    this.size -= end;
    this.emit(line, cut);
  }

  private emit(line: string, cut: boolean): void {
    const part: LinePart = this.continued ? "more" : cut ? "first" : "whole";
    this.continued = cut;
    // A long line that ended exactly at a cut has nothing left to deliver.
    if (part === "more" && line === "" && !cut) return;
    this.deliver(line, part);
  }
}
