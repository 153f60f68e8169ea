/**
 * Signals and child processes (spec native-host §13). On HUP, INT, QUIT or
 * TERM the double stops where it is, kills the children it spawned and
 * exits with 128 + the signal number (129/130/131/143) without writing
 * anything more — in particular no `settled` and no `final_result`.
 * A second signal during that cleanup exits at once with the first code.
 * With `ignoreSigterm`, TERM is ignored (only KILL ends the double).
 */
import type { Subprocess } from "bun";
import { diagnostic } from "./output.ts";

const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGTERM: 15 } as const;

const children = new Set<Subprocess>();
let exitCode: number | undefined;

export function installSignalHandlers(ignoreSigterm: boolean): void {
  for (const [name, number] of Object.entries(SIGNAL_NUMBERS)) {
    if (name === "SIGTERM" && ignoreSigterm) {
      process.on("SIGTERM", () => void diagnostic("ignoring SIGTERM"));
      continue;
    }
    process.on(name as NodeJS.Signals, () => onSignal(128 + number));
  }
}

function onSignal(code: number): void {
  if (exitCode !== undefined) process.exit(exitCode);
  exitCode = code;
  killChildren();
  process.exit(code);
}

function killChildren(): void {
  for (const child of children) {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
  children.clear();
}

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
