import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";

/** Current contents, or undefined when the file does not exist. */
export function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

const EXCLUSIVE = constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_WRONLY;

/**
 * Write through a temporary file and a rename, so a reader never sees half a
 * file. The temporary file has an unpredictable name and is created
 * exclusively, mode 0600, never through a symbolic link; it gets `mode`
 * (default 0666 less the umask) once written. A failure removes it.
 */
export function writeAtomic(path: string, text: string, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${randomBytes(8).toString("hex")}`;
  const fd = openSync(temporary, EXCLUSIVE, 0o600);
  try {
    try {
      writeFileSync(fd, text);
    } finally {
      closeSync(fd);
    }
    chmodSync(temporary, mode ?? 0o666 & ~process.umask());
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
