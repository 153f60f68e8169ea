/**
 * Reading stdin while the host is not reading stdout (serve's backpressure):
 * nothing is dispatched, but stdin is still read, raw and up to a bound, so
 * an EOF the host has already written is seen. A host blocked on a full pipe
 * has written at most the pipe's capacity (64 KiB on Linux, 1 MiB when
 * raised) plus the frame it is writing (≤ 1 MiB): 2 MiB covers both.
 */

/** The look-ahead's bound in raw bytes (a chunk read before the bound is reached may pass it). */
export const READ_AHEAD_BYTES = 2 * 1024 * 1024;

export type ReadResult = { done: boolean; value?: Uint8Array };

/** What was read while paused. */
export interface ReadAhead {
  /** Raw chunks in order, for the caller to dispatch now. */
  chunks: Uint8Array[];
  /** The input ended (EOF, or a read error in `error`). */
  ended: boolean;
  error?: unknown;
  /** The read to await next, when the input did not end. */
  next?: Promise<ReadResult>;
}

/**
 * Read ahead from `next` on until `resumed` resolves (the host reads again),
 * the input ends, or `limit` bytes are held; once full, wait for `resumed`
 * without reading.
 */
export async function readAhead(
  reader: { read(): Promise<ReadResult> },
  next: Promise<ReadResult>,
  resumed: Promise<void>,
  limit = READ_AHEAD_BYTES,
): Promise<ReadAhead> {
  const chunks: Uint8Array[] = [];
  const resumedMark = resumed.then(() => undefined);
  let bytes = 0;
  try {
    for (;;) {
      const read = await Promise.race([next, resumedMark]);
      if (read === undefined) return { chunks, ended: false, next };
      if (read.done || !read.value) return { chunks, ended: true };
      chunks.push(read.value);
      bytes += read.value.length;
      if (bytes >= limit) break;
      next = reader.read();
    }
  } catch (error) {
    return { chunks, ended: true, error };
  }
  await resumed;
  return { chunks, ended: false, next: reader.read() };
}
