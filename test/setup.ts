import { afterAll, afterEach } from "bun:test";
import { removeTemporaryDirectories } from "octet-extension/testing";

/**
 * Preloaded for every test file (bunfig.toml). Bun evaluates a helper module
 * once for the whole run, so a top-level `afterEach` in a helper would only
 * bind to the first file that imports it; helpers register here instead.
 * `bun test` does not emit the process `exit` event, so the temporary
 * directories (test-host workspaces included) are removed after the last test.
 */
const cleanups = new Set<() => void>();

/** Run `cleanup` after every test in every file. */
export function afterEveryTest(cleanup: () => void): void {
  cleanups.add(cleanup);
}

afterEach(() => {
  for (const cleanup of cleanups) cleanup();
});

afterAll(removeTemporaryDirectories);
