import type { SplitEvent } from "./line-splitter.ts";

/**
 * Frames of the API 0.3 wire: content, then exactly one LF. `bound` is the
 * frame limit in force, the LF excluded (a frame exactly at it is accepted);
 * the connection lowers or keeps it once the initialize reply is written.
 * A frame over the bound is reported as `oversize` as soon as it is seen and
 * nothing after it is read: it ends the stream. Unlike `LineSplitter`, no CR
 * is stripped (the decoder refuses it) and blank lines are frames too.
 */
export class CanonicalFramer {
  private parts: Uint8Array[] = [];
  private size = 0;
  private finished = false;

  constructor(public bound: number) {}

  /** Feed one chunk; `emit` runs synchronously for each frame, after which `bound` may change. */
  push(chunk: Uint8Array, emit: (event: SplitEvent) => void): void {
    let start = 0;
    while (!this.finished && start < chunk.length) {
      const lf = chunk.indexOf(10, start);
      const end = lf === -1 ? chunk.length : lf;
      if (this.size + (end - start) > this.bound) {
        this.finished = true;
        this.parts = [];
        this.size = 0;
        emit({ kind: "oversize" });
        return;
      }
      if (end > start) {
        this.parts.push(chunk.subarray(start, end));
        this.size += end - start;
      }
      if (lf === -1) return;
      const parts = this.parts;
      this.parts = [];
      this.size = 0;
      emit({ kind: "line", parts });
      start = lf + 1;
    }
  }

  /** Input ended: bytes left without their LF are reported as `unterminated`. */
  end(emit: (event: SplitEvent) => void): void {
    if (this.finished || this.size === 0) return;
    this.finished = true;
    emit({ kind: "unterminated", parts: this.parts });
  }

  /** Stop reading for good (a frame was refused): later input is ignored. */
  close(): void {
    this.finished = true;
    this.parts = [];
    this.size = 0;
  }
}
