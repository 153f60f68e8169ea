import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set<string>();
let hooked = false;

/**
 * A fresh private directory under the system's temporary directory, removed
 * (with its contents) when the process exits, by
 * {@link removeTemporaryDirectories}, or one at a time by
 * {@link removeTemporaryDirectory}. The test host makes its default workspace
 * this way; tests can use it for their own throwaway files.
 *
 * `bun test` ends without the process `exit` event: call
 * `removeTemporaryDirectories()` from an `afterAll` in a preloaded file.
 */
export function temporaryDirectory(prefix = "octet-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  if (!hooked) {
    hooked = true;
    process.once("exit", removeTemporaryDirectories);
  }
  return dir;
}

/**
 * Remove every directory {@link temporaryDirectory} made that is still there.
 * Never throws: one that cannot be removed (an extension still writing to it,
 * a read-only subdirectory) stays registered for the next call or the exit.
 */
export function removeTemporaryDirectories(): void {
  for (const dir of [...made]) {
    try {
      removeTemporaryDirectory(dir);
    } catch {
      /* stays registered */
    }
  }
}

/** Remove a directory made by {@link temporaryDirectory} now (a no-op if it is already gone); it stays registered if this throws. */
export function removeTemporaryDirectory(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.delete(dir);
}
