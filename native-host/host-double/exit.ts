/**
 * How the double ends (docs/native-host-protocol.md §2 exit status): every exit lets
 * pending writes reach the kernel first; a normal stop (EOF, `shutdown`)
 * also ends the children it spawned, a crash-like exit leaves them.
 */
import { stopChildren } from "./children.ts";
import { stderr, stdout } from "./output.ts";

/** Let pending writes reach the kernel, then exit (children are left alone). */
export async function exitAfterFlush(code: number): Promise<never> {
  await stdout.drain();
  await stderr.drain();
  process.exit(code);
}

/** A normal stop: end spawned children (with grace), flush, exit. */
export async function exitCleanly(code: number): Promise<never> {
  await stopChildren();
  return exitAfterFlush(code);
}
