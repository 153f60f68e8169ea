/**
 * Inbound framing (docs/native-host-protocol.md §3): LF-terminated lines read from a
 * file descriptor only when the host asks for the next one, so nothing is
 * read while a request is being served (§3 serial processing; at most one
 * read-ahead chunk, like a buffered reader).
 *
 * A line whose bytes plus its LF would exceed the frame limit is not
 * buffered: the rest of it is discarded through the next LF and reported
 * once, as `oversize`, when that LF arrives. Input ending inside a line —
 * or while discarding an oversized one — is reported as `incomplete`.
 */
import fs from "node:fs";
import { MAX_FRAME_BYTES } from "./limits.ts";

type Frame =
  /** A whole line without its LF (a trailing CR is left in place). */
  | { kind: "line"; bytes: Uint8Array }
  | { kind: "oversize" }
  | { kind: "incomplete" }
  | { kind: "eof" };

const CHUNK_BYTES = 64 * 1024;
const EMPTY = new Uint8Array(0);

export class FrameReader {
  private buffer: Uint8Array = EMPTY;
  private ended = false;

  constructor(
    private readonly fd: number,
    private readonly limit: number = MAX_FRAME_BYTES,
  ) {}

  async next(): Promise<Frame> {
    const parts: Uint8Array[] = [];
    let size = 0;
    let oversize = false;
    for (;;) {
      if (this.buffer.length === 0) {
        if (this.ended) return size > 0 || oversize ? { kind: "incomplete" } : { kind: "eof" };
        const chunk = await readChunk(this.fd);
        if (chunk === undefined) this.ended = true;
        else this.buffer = chunk;
        continue;
      }
      const lf = this.buffer.indexOf(0x0a);
      const piece = lf === -1 ? this.buffer : this.buffer.subarray(0, lf);
      if (!oversize) {
        if (size + piece.length + 1 > this.limit) {
          oversize = true;
          parts.length = 0;
          size = 0;
        } else if (piece.length > 0) {
          parts.push(piece);
          size += piece.length;
        }
      }
      if (lf === -1) {
        this.buffer = EMPTY;
        continue;
      }
      this.buffer = this.buffer.subarray(lf + 1);
      if (oversize) return { kind: "oversize" };
      return { kind: "line", bytes: join(parts, size) };
    }
  }
}

function join(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** One chunk from `fd`, or undefined at end of input (read errors count as the end). */
async function readChunk(fd: number): Promise<Uint8Array | undefined> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  for (;;) {
    try {
      const n = await new Promise<number>((resolve, reject) =>
        fs.read(fd, buffer, 0, CHUNK_BYTES, null, (error, bytes) => (error ? reject(error) : resolve(bytes))),
      );
      return n === 0 ? undefined : buffer.subarray(0, n);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN" || code === "EWOULDBLOCK") await Bun.sleep(2);
      else if (code !== "EINTR") return undefined;
    }
  }
}
