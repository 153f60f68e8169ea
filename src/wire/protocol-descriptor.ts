import type { Logger } from "../log.ts";
import { PROTOCOL_FD_VARIABLE } from "../protocol.ts";
import type * as NodeFs from "node:fs";

/** node:fs, loaded when first needed: importing it costs ~0.5 ms of start-up. */
const fs = (): typeof NodeFs => require("node:fs");

// PROTOCOL_FD_VARIABLE is set by the `#!/bin/sh` launchers gen and build write (not by octet):
// `FD:PID`, the descriptor that holds the real stdout and the process it was set up for. The
// launcher `exec`s the extension with `3>&1 1>&2`, so fd 1 is stderr from the first instruction,
// and `$$` (which `exec` keeps) as PID.

let read = false;
let descriptor: number | undefined;

/**
 * The descriptor a launcher handed the real stdout on, or undefined (frames
 * then go to fd 1, as when the source is run directly). Read once and removed
 * from `process.env`. With the launcher's own PID it is trusted without a
 * system call (start-up stays as it was); set for another process (a program
 * in between that did not `exec`, or a variable a parent passed down) it is
 * used only where the launcher's redirections are still in place: the
 * descriptor is open as a pipe, socket, file or terminal, and fd 1 is fd 2.
 */
export function protocolDescriptor(logger: Logger): number | undefined {
  if (read) return descriptor;
  read = true;
  const value = process.env[PROTOCOL_FD_VARIABLE];
  return value === undefined ? undefined : launcherDescriptor(value, logger);
}

/** {@link protocolDescriptor} once the variable is set (out of line: octet never sets it, and a function is linked whole on its first call). */
function launcherDescriptor(value: string, logger: Logger): number | undefined {
  delete process.env[PROTOCOL_FD_VARIABLE];
  const match = /^(\d{1,9})(?::(\d{1,10}))?$/.exec(value);
  const fd = match ? Number(match[1]) : -1;
  if (fd < 3) {
    logger.warning(`${PROTOCOL_FD_VARIABLE} is not FD or FD:PID with FD 3 or more: frames go to stdout`, { value });
    return undefined;
  }
  if (match![2] !== undefined && Number(match![2]) === process.pid) return (descriptor = fd);
  if (launcherRedirections(fd)) return (descriptor = fd);
  if (match![2] === undefined) logger.warning(`${PROTOCOL_FD_VARIABLE}: descriptor ${fd} is not open as a pipe, socket, file or terminal beside fd 1 = fd 2: frames go to stdout`);
  else logger.debug(`ignored ${PROTOCOL_FD_VARIABLE} set for another process`, { value });
  return undefined;
}

/** `3>&1 1>&2` as a launcher leaves them: `fd` open as a stream, and fds 1 and 2 one file. */
function launcherRedirections(fd: number): boolean {
  try {
    const stat = fs().fstatSync(fd);
    if (!(stat.isFIFO() || stat.isSocket() || stat.isFile() || stat.isCharacterDevice())) return false;
    const out = fs().fstatSync(1);
    const err = fs().fstatSync(2);
    return out.dev === err.dev && out.ino === err.ino;
  } catch {
    return false;
  }
}
