/**
 * Processes the `spawn` step starts (docs/native-host-protocol.md §12, §13): like the
 * shell children of the real host they live in the double's own process
 * group, and the double ends them when it stops — at once on a signal,
 * with a short grace on a normal exit (EOF, `shutdown`). A crash (`exit`
 * step, SIGKILL) leaves them behind, as a crashing host would.
 */
import type { Subprocess } from "bun";

/** Grace the real host gives registered shell process groups on shutdown. */
const STOP_GRACE_MS = 400;

const children = new Set<Subprocess>();

/**
 * Start `argv` in the double's own process group (not detached), its
 * standard streams on /dev/null; returns its pid.
 */
export function spawnChild(argv: string[]): number {
  const child = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  children.add(child);
  void child.exited.then(() => children.delete(child));
  return child.pid;
}

function signalAll(signal: NodeJS.Signals): void {
  for (const child of children) {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

/** SIGKILL every child now (signal path: the process exits right after). */
export function killChildrenNow(): void {
  signalAll("SIGKILL");
  children.clear();
}

/** SIGTERM every child, wait up to the grace period, SIGKILL the survivors. */
export async function stopChildren(): Promise<void> {
  if (children.size === 0) return;
  const exits = [...children].map((child) => child.exited);
  signalAll("SIGTERM");
  await Promise.race([Promise.all(exits), Bun.sleep(STOP_GRACE_MS)]);
  killChildrenNow();
}
