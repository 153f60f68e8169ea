import { Transform, type TransformCallback } from "node:stream";

/**
 * The terminal input readline reads, re-cut so that every Tab ends a read.
 * readline completes a Tab only when it is the last character of a read and
 * inserts it as text otherwise (taking it for a paste), while a terminal
 * (tmux send-keys, a fast typist over ssh) can deliver "ca\tlis\t" in one
 * read. Raw mode and the TTY flag are the real terminal's.
 */
export class TabEndsRead extends Transform {
  constructor(private readonly source: NodeJS.ReadStream | NodeJS.ReadableStream) {
    super();
    source.pipe(this);
  }

  get isTTY(): boolean {
    return (this.source as { isTTY?: boolean }).isTTY === true;
  }

  get isRaw(): boolean {
    return (this.source as { isRaw?: boolean }).isRaw === true;
  }

  setRawMode(mode: boolean): this {
    (this.source as { setRawMode?: (mode: boolean) => unknown }).setRawMode?.(mode);
    return this;
  }

  /** Stop reading the terminal (readline pauses its input when it closes). */
  detach(): void {
    this.source.unpipe(this);
    this.source.pause();
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let i = bytes.indexOf(0x09); i !== -1; i = bytes.indexOf(0x09, start)) {
      this.push(bytes.subarray(start, i + 1));
      start = i + 1;
    }
    if (start < bytes.length) this.push(bytes.subarray(start));
    done();
  }
}
