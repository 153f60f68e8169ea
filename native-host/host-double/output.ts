/**
 * Ordered, back-pressured writes to a file descriptor. Each `write` is one
 * `write(2)` request for the whole buffer (repeated only for the remainder
 * of a short write) and resolves once the bytes are in the kernel — the
 * double's "flush after every event". Writes run off the main thread, so
 * signals are still handled while a reader is slow.
 */
import fs from "node:fs";

export class FdWriter {
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly fd: number) {}

  write(bytes: Uint8Array | string): Promise<void> {
    const data = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
    const done = this.tail.then(() => writeAll(this.fd, data));
    this.tail = done.catch(() => undefined);
    return done;
  }

  /** Resolves when every write issued so far has finished (or failed). */
  drain(): Promise<void> {
    return this.tail;
  }
}

async function writeAll(fd: number, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    try {
      offset += await new Promise<number>((resolve, reject) =>
        fs.write(fd, data, offset, data.length - offset, null, (error, written) => (error ? reject(error) : resolve(written))),
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN" || code === "EWOULDBLOCK") await Bun.sleep(2);
      else if (code !== "EINTR") throw error;
    }
  }
}

export const stdout = new FdWriter(1);
export const stderr = new FdWriter(2);

/** A diagnostic line on stderr (never protocol); failures are ignored. */
export function diagnostic(message: string): Promise<void> {
  return stderr.write(`octet-host-double: ${message}\n`).catch(() => undefined);
}
