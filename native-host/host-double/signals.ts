/**
 * Signals (docs/native-host-protocol.md §13). On HUP, INT, QUIT or TERM the double stops
 * where it is, kills the children it spawned and exits at once with 128 +
 * the signal number (129/130/131/143) without writing anything more — in
 * particular no `settled` and no `final_result`. Its cleanup is immediate,
 * so the real host's "second signal during cleanup" case cannot arise.
 * With `ignoreSigterm`, TERM is ignored (only KILL ends the double).
 */
import { killChildrenNow } from "./children.ts";
import { diagnostic } from "./output.ts";

const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGTERM: 15 } as const;

export function installSignalHandlers(ignoreSigterm: boolean): void {
  for (const [name, number] of Object.entries(SIGNAL_NUMBERS)) {
    if (name === "SIGTERM" && ignoreSigterm) {
      process.on("SIGTERM", () => void diagnostic("ignoring SIGTERM"));
      continue;
    }
    process.on(name as NodeJS.Signals, () => {
      killChildrenNow();
      process.exit(128 + number);
    });
  }
}
