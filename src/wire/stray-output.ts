import type * as NodeFs from "node:fs";

/** node:fs, loaded when first needed: importing it costs ~0.5 ms of start-up. */
const fs = (): typeof NodeFs => require("node:fs");

/**
 * Where fds 1 and 2 point once stdio is sealed: an unlinked temporary file
 * each, read back by the runtime and turned into log lines. A file, not a
 * pipe, because a write to a file never blocks: user code that writes 16 MiB
 * with `fs.writeSync(1, …)`, `Bun.write(Bun.stdout, …)` or a `spawnSync`
 * child inheriting fd 1 would otherwise fill the pipe and block the very
 * event loop that drains it, freezing the extension for good.
 *
 * The reader polls (every 2 ms while output arrives, backing off to 250 ms
 * when idle, on an unref'd timer), reads only when the file has grown, and
 * reads at most 1 MiB per turn so replies keep flowing. Once it has caught up
 * past 4 MiB the file is truncated; a write landing between the size check
 * and the truncation would be lost, which needs a writer to race two
 * back-to-back system calls. NUL bytes are dropped: `Bun.write(Bun.stdout, …)`
 * preallocates the file from offset 0 before appending, so its data arrives
 * behind a hole of zeros.
 */

/** `os.tmpdir()` without loading node:os (node:os and node:path cost ~0.5 ms at start-up). */
function strayPath(label: string): string {
  let dir = process.env.TMPDIR || "/tmp";
  // Trailing slashes off (not by a regular expression: see parseJson's pre-check in json.ts).
  while (dir.length > 1 && dir.endsWith("/")) dir = dir.slice(0, -1);
  return `${dir}/octet-${label}-${process.pid}-${Math.random().toString(36).slice(2)}`;
}

/**
 * A new temporary file, still linked, with a descriptor to read from; the
 * caller opens the write side where it needs it and then unlinks `path`.
 */
export function openStrayPath(label: string): { path: string; read: number } | undefined {
  const path = strayPath(label);
  try {
    fs().closeSync(fs().openSync(path, "ax", 0o600));
    return { path, read: fs().openSync(path, "r") };
  } catch {
    try {
      fs().unlinkSync(path);
    } catch {
      /* never created */
    }
    return undefined;
  }
}

/** An unlinked temporary file: a descriptor to write through (appending) and one to read from. */
export function openStrayFile(label: string): { write: number; read: number } | undefined {
  const file = openStrayPath(label);
  if (!file) return undefined;
  try {
    return { write: fs().openSync(file.path, "a"), read: file.read };
  } catch {
    fs().closeSync(file.read);
    return undefined;
  } finally {
    fs().unlinkSync(file.path);
  }
}

/** Longest log line made from stray output; longer runs without a newline are split. */
const MAX_LINE = 64 * 1024;
const TURN_BYTES = 1024 * 1024;
const TRUNCATE_AFTER = 4 * 1024 * 1024;

/** Reads one stray-output file from where it left off and emits whole lines. */
export class StrayReader {
  private offset = 0;
  private partial = "";
  // Made on the first read: most extensions never write stray output, and start-up stays lean.
  private decoderInstance: TextDecoder | undefined;
  private bufferInstance: Uint8Array | undefined;
  private get decoder(): TextDecoder {
    return (this.decoderInstance ??= new TextDecoder());
  }
  private get buffer(): Uint8Array {
    return (this.bufferInstance ??= new Uint8Array(64 * 1024));
  }

  constructor(
    private readonly readFd: number,
    /** The descriptor writers append through (fd 1 or 2), used to truncate. */
    private readonly writeFd: number,
    private readonly emit: (line: string) => void,
  ) {}

  /** Read up to `budget` bytes; true when more may be waiting. */
  drain(budget = TURN_BYTES): boolean {
    // Nothing new, the usual case: one native fstat, no read, no buffer (memory stays as before sealing).
    // Past the truncation mark it reads on, so that a file it has caught up with is truncated.
    if (this.offset < TRUNCATE_AFTER && Bun.file(this.readFd).size <= this.offset) return false;
    let read = 0;
    for (;;) {
      let n: number;
      try {
        n = fs().readSync(this.readFd, this.buffer, 0, this.buffer.length, this.offset);
      } catch {
        return false;
      }
      if (n <= 0) break;
      this.offset += n;
      read += n;
      this.take(this.decoder.decode(this.buffer.subarray(0, n), { stream: true }));
      if (read >= budget) return true;
    }
    if (this.offset >= TRUNCATE_AFTER) {
      try {
        if (fs().fstatSync(this.readFd).size === this.offset) {
          fs().ftruncateSync(this.writeFd, 0);
          this.offset = 0;
        }
      } catch {
        /* keep reading where we are */
      }
    }
    return read > 0;
  }

  /**
   * At exit: read what is left and emit the last partial line, until
   * `deadline` (a `performance.now()` time; octet allows the process 2 s after
   * the shutdown acknowledgement). Returns the bytes left unread.
   */
  finish(deadline: number): number {
    while (performance.now() < deadline && this.drain(256 * 1024));
    let left = 0;
    try {
      left = Math.max(0, fs().fstatSync(this.readFd).size - this.offset);
    } catch {
      /* nothing more to tell */
    }
    this.take(this.decoder.decode());
    if (this.partial !== "") this.line(this.partial);
    this.partial = "";
    return left;
  }

  private take(decoded: string): void {
    // Bun.write to a regular file preallocates from offset 0 (fallocate) before an appending
    // write, leaving a hole of NUL bytes ahead of the data: never text anyone wrote.
    const text = decoded.includes("\0") ? decoded.replace(/\0+/g, "") : decoded;
    if (text === "") return;
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) this.line(line);
    while (this.partial.length > MAX_LINE) {
      this.line(this.partial.slice(0, MAX_LINE));
      this.partial = this.partial.slice(MAX_LINE);
    }
  }

  private line(raw: string): void {
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    for (let i = 0; i < text.length; i += MAX_LINE) {
      const piece = text.slice(i, i + MAX_LINE);
      if (piece.trim() !== "") this.emit(piece);
    }
  }
}

/** Poll readers on one unref'd timer: fast while output arrives, backing off when idle. */
export function pollStrayReaders(readers: StrayReader[], firstMs = 2): void {
  let idle = 0;
  const tick = () => {
    let busy = false;
    for (const reader of readers) if (reader.drain()) busy = true;
    idle = busy ? 0 : Math.min(idle + 1, 7);
    setTimeout(tick, busy ? 2 : 2 ** idle * 2).unref();
  };
  setTimeout(tick, firstMs).unref();
}
