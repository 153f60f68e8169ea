/**
 * The host's stderr cut into lines for the application's logger
 * (`LaunchOptions.onStderrLine`). stderr is free text, never protocol (spec
 * native-host §15.12): lines are decoded leniently, delivered without their
 * line end (LF, or CRLF), masked by the caller's `mask`, and bounded: a line
 * longer than `maxBytes` arrives in pieces of at most `maxBytes` bytes (cut
 * on a character boundary), so a flood without newlines never grows a
 * buffer. A last line without a line end is delivered when stderr ends.
 * An exception thrown by `deliver` is ignored: a logger never breaks the
 * host's draining.
 */
const LF = 0x0a;

export class StderrLines {
  private parts: Uint8Array[] = [];
  private size = 0;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly maxBytes: number,
    private readonly deliver: (line: string) => void,
    private readonly mask: (text: string) => string = (text) => text,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const lf = chunk.indexOf(LF, start);
      this.append(chunk.subarray(start, lf === -1 ? chunk.length : lf));
      if (lf === -1) return;
      this.flush(true);
      start = lf + 1;
    }
  }

  /** stderr ended: deliver what is left of an unterminated line. */
  end(): void {
    if (this.size > 0) this.flush(false);
  }

  private append(bytes: Uint8Array): void {
    while (this.size + bytes.length > this.maxBytes) {
      let take = this.maxBytes - this.size;
      // Do not cut a UTF-8 sequence: back off over continuation bytes (unless nothing would be left).
      let back = take;
      while (back > 0 && ((bytes[back] ?? 0) & 0xc0) === 0x80) back--;
      if (back > 0 || this.size > 0) take = back;
      if (take > 0) this.keep(bytes.subarray(0, take));
      this.flush(false);
      bytes = bytes.subarray(take);
    }
    if (bytes.length > 0) this.keep(bytes);
  }

  private keep(bytes: Uint8Array): void {
    this.parts.push(bytes.slice());
    this.size += bytes.length;
  }

  private flush(lineEnd: boolean): void {
    let text = this.decoder.decode(Buffer.concat(this.parts));
    this.parts = [];
    this.size = 0;
    if (lineEnd && text.endsWith("\r")) text = text.slice(0, -1);
    try {
      this.deliver(this.mask(text));
    } catch {
      /* the application's logger failed; draining goes on */
    }
  }
}
