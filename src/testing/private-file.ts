/**
 * Write a file only its owner can read (mode 0600), atomically: the text goes
 * to a temporary file created exclusively under an unpredictable name beside
 * it (never following a symlink), which is then renamed over `path`. A
 * symlink at `path` is replaced, not written through.
 */
import { closeSync, constants, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export function writePrivateFile(path: string, text: string): void {
  const suffix = Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString("hex");
  const temporary = join(dirname(path), `.${basename(path)}.${suffix}.tmp`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    try {
      const bytes = Buffer.from(text);
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      /* already gone */
    }
    throw error;
  }
}
