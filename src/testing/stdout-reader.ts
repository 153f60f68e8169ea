import { MAX_MESSAGE_BYTES } from "../protocol.ts";
import { lineBytes } from "../wire/line-bytes.ts";

/** What {@link HostLineReader} reports. */
export type HostReadEvent =
  /** One complete line: its bytes without the LF and without one trailing CR. */
  | { kind: "line"; bytes: Uint8Array }
  /** The buffered line reached the limit: octet aborts the connection. */
  | { kind: "oversize" }
  /** Input ended inside a line: octet treats it as fatal. */
  | { kind: "unterminated" };

/**
 * octet's reader for an extension's stdout (docs/protocol-0.2.md §1.2): bytes are split at LF,
 * and the connection is aborted as soon as the buffered bytes of the current
 * line — a CR included, the LF excluded — reach `limit` (1,048,576). The
 * largest accepted frame is therefore 1,048,575 bytes before the LF, a CR
 * counting as one of them; a trailing CR is stripped only after that check.
 * After `oversize` the reader is finished (the host has dropped the
 * connection) and ignores further input.
 */
export class HostLineReader {
  private parts: Uint8Array[] = [];
  private size = 0;
  private aborted = false;

  constructor(private readonly limit: number = MAX_MESSAGE_BYTES) {}

  /** Feed one chunk; `emit` runs synchronously for each event. */
  push(chunk: Uint8Array, emit: (event: HostReadEvent) => void): void {
    let start = 0;
    while (!this.aborted && start < chunk.length) {
      const lf = chunk.indexOf(10, start);
      const end = lf === -1 ? chunk.length : lf;
      const piece = chunk.subarray(start, end);
      if (this.size + piece.length >= this.limit) {
        this.aborted = true;
        this.parts = [];
        this.size = 0;
        emit({ kind: "oversize" });
        return;
      }
      if (piece.length > 0) {
        // Stream chunks are fresh buffers; keep views, copy only when joining.
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (lf === -1) return;
      emit({ kind: "line", bytes: this.take() });
      start = lf + 1;
    }
  }

  /** Input ended: a partial line left over is reported as `unterminated`. */
  end(emit: (event: HostReadEvent) => void): void {
    if (this.aborted || this.size === 0) return;
    this.parts = [];
    this.size = 0;
    emit({ kind: "unterminated" });
  }

  private take(): Uint8Array {
    const bytes = lineBytes(this.parts);
    this.parts = [];
    this.size = 0;
    return bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes;
  }
}

/** Read an extension's stdout to its end through a {@link HostLineReader}, emitting each event. */
export async function readStdout(stdout: AsyncIterable<Uint8Array>, emit: (event: HostReadEvent) => void, limit: number = MAX_MESSAGE_BYTES): Promise<void> {
  const reader = new HostLineReader(limit);
  for await (const chunk of stdout) reader.push(chunk, emit);
  reader.end(emit);
}
