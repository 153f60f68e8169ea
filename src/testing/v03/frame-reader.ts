import type { HostReadEvent } from "../stdout-reader.ts";

/**
 * The host's reader of an API 0.3 extension's stdout: frames end at exactly
 * one LF, and a frame longer than `bound()` (LF excluded; exactly at it is
 * accepted) ends the connection as soon as it is seen. `bound()` is read per
 * frame, so the host can switch to the selected bound right after reading the
 * initialize reply. A CR stays in the frame (the canonical check refuses it).
 */
export async function readCanonicalStdout(stdout: AsyncIterable<Uint8Array>, emit: (event: HostReadEvent) => void, bound: () => number): Promise<void> {
  let parts: Uint8Array[] = [];
  let size = 0;
  let aborted = false;
  for await (const chunk of stdout) {
    let start = 0;
    while (!aborted && start < chunk.length) {
      const lf = chunk.indexOf(10, start);
      const end = lf === -1 ? chunk.length : lf;
      if (size + (end - start) > bound()) {
        aborted = true; // the host has dropped the connection: the rest is drained unread
        emit({ kind: "oversize" });
        break;
      }
      parts.push(chunk.subarray(start, end));
      size += end - start;
      if (lf === -1) break;
      emit({ kind: "line", bytes: Buffer.concat(parts) });
      parts = [];
      size = 0;
      start = lf + 1;
    }
  }
  if (!aborted && size > 0) emit({ kind: "unterminated" });
}
