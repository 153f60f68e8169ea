/**
 * The host process as the leader of its own process group
 * (docs/native-host-protocol.md §2, §13): launched with `setsid()`, cancelled by signalling the whole group
 * (SIGTERM, a grace period, then SIGKILL), so grandchildren go with it.
 */

export interface Exit {
  code: number | null;
  signal: string | null;
}

/** Send `signal` to every process of group `pgid`; false when none is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Terminate group `pgid` whose leader ends with `exited`: SIGTERM, wait up to
 * `graceMs`, SIGKILL, then SIGKILL once more for members that outlived the
 * leader. Resolves with the leader's exit.
 */
export async function terminateGroup(pgid: number, exited: Promise<Exit>, graceMs: number): Promise<Exit> {
  signalGroup(pgid, "SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceOver = new Promise<"grace">((resolve) => (timer = setTimeout(() => resolve("grace"), graceMs)));
  const first = await Promise.race([exited, graceOver]);
  clearTimeout(timer);
  if (first === "grace") signalGroup(pgid, "SIGKILL");
  const exit = await exited;
  signalGroup(pgid, "SIGKILL");
  return exit;
}
