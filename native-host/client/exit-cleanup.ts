/**
 * `octet-host` runs in its own session and process group, so nothing ends it
 * when the application does: a real host would keep its provider call going
 * until a write fails. Every live host's group is therefore killed when the
 * application exits by any path: synchronously from the `exit` event
 * (`process.exit()`, the end of the event loop, an uncaught error), and on
 * SIGINT, SIGTERM and SIGHUP when the application has no listener of its own
 * for that signal (it then ends with the signal, as it would have anyway).
 * An application that handles a signal itself decides what it means; once
 * it exits, the `exit` hook still runs.
 */
import { signalGroup } from "./process-group.ts";

const live = new Set<number>();
let installed = false;

/** Kill group `pgid` if the application exits while it is alive. */
export function killOnExit(pgid: number): void {
  live.add(pgid);
  install();
}

/** The group is gone (swept after its leader exited): forget it, its id may be reused. */
export function forgetOnExit(pgid: number): void {
  live.delete(pgid);
}

/** SIGKILL every live host group now: there is no time for a grace period while exiting. */
function killAll(): void {
  for (const pgid of live) signalGroup(pgid, "SIGKILL");
  live.clear();
}

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", killAll);
  for (const signal of SIGNALS) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return; // the application handles it
      killAll();
      process.off(signal, onSignal);
      process.kill(process.pid, signal); // the default action: end with the signal
    };
    process.on(signal, onSignal);
  }
}
