/**
 * octet-extension/seal: import it first, and under an octet host nothing your
 * code writes between importing the SDK and `run()` can reach stdout, by any
 * path (`process.stdout.write`, `fs.writeSync(1, …)`, `Bun.write(Bun.stdout, …)`,
 * child processes): fds 1 and 2 are moved when this module loads instead of
 * after the first frame, and such output becomes structured stderr lines.
 * It costs node:fs at start-up (docs/design.md, "Known gaps"), which is why it
 * is opt-in. The `extension` launchers gen and build write already point fd 1
 * at stderr before Bun starts, so it matters where the source runs without
 * one (`bun extension.ts`, a hand-written wrapper). Outside a host it does nothing.
 *
 * @example
 * import "octet-extension/seal"; // first import of the entry file
 * import { Extension } from "octet-extension";
 */
import { Logger } from "./log.ts";
import { launchedByHost, routeConsoleWhenHosted, sealStdioNow, writeStderrLine } from "./wire/stdio.ts";

if (launchedByHost()) {
  const logger = new Logger(writeStderrLine);
  routeConsoleWhenHosted(logger);
  sealStdioNow(logger);
}
