/**
 * The host's `local-file.v1` transfer directory, checked and opened once at
 * initialize (docs/api-0.4.md "Bulk objects"): it must be a real directory
 * (not a symlink) owned by this process's user with no group or other
 * access. Entries are then opened relative to that handle, so a path swapped
 * later reaches nothing else.
 */
const fs = (): typeof import("node:fs") => require("node:fs");

export class TransferDirectory {
  private constructor(
    private readonly path: string,
    private readonly fd: number,
    private readonly dev: number,
    private readonly ino: number,
    /** Linux: entries open as `/proc/self/fd/FD/NAME`, which resolves through the handle itself. */
    private readonly viaProc: boolean,
  ) {}

  /** Let the handle go (a negotiation whose terms were dropped: first-reply.ts). */
  close(): void {
    fs().closeSync(this.fd);
  }

  /**
   * Open `path` as the transfer directory, or say (one sentence, no trailing
   * period) why it is refused. `useProc: false` forces the portable fallback.
   */
  static open(path: string, useProc = true): TransferDirectory | { refused: string } {
    const { constants, closeSync, fstatSync, lstatSync, openSync, statSync } = fs();
    if (!path.startsWith("/")) return { refused: "it is not an absolute path" };
    let stat: import("node:fs").Stats;
    try {
      stat = lstatSync(path);
    } catch (error) {
      return { refused: `cannot examine it (${(error as { code?: string }).code ?? "error"})` };
    }
    if (stat.isSymbolicLink()) return { refused: "it is a symbolic link" };
    if (!stat.isDirectory()) return { refused: "it is not a directory" };
    const uid = process.getuid?.();
    if (uid === undefined) return { refused: "its owner cannot be checked on this platform" };
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch (error) {
      return { refused: `cannot open it (${(error as { code?: string }).code ?? "error"})` };
    }
    // Judge what was opened, not what the path named a moment ago.
    const held = fstatSync(fd);
    const refused =
      !held.isDirectory() || held.dev !== stat.dev || held.ino !== stat.ino
        ? "it changed while it was opened"
        : held.uid !== uid
          ? `it is owned by uid ${held.uid}, not by this process (uid ${uid})`
          : (held.mode & 0o077) !== 0
            ? `it is accessible to group or others (mode 0${(held.mode & 0o777).toString(8)}); it must be private (0700)`
            : undefined;
    if (refused) {
      closeSync(fd);
      return { refused };
    }
    let viaProc = false;
    if (useProc) try {
      const proc = statSync(`/proc/self/fd/${fd}`);
      viaProc = proc.dev === held.dev && proc.ino === held.ino;
    } catch {
      /* no /proc: fall back to re-checking the path at each open */
    }
    return new TransferDirectory(path, fd, held.dev, held.ino, viaProc);
  }

  /**
   * Open the entry `name` (one plain file name, checked by the caller) with
   * `flags`, adding `O_NOFOLLOW`. Throws an `Error` whose message says why
   * (an errno code, or "it is a symbolic link").
   */
  openEntry(name: string, flags: number): number {
    const { constants, lstatSync, openSync } = fs();
    let base = `/proc/self/fd/${this.fd}`;
    if (!this.viaProc) {
      // Without /proc: the path must still name the directory held open.
      const now = lstatSync(this.path, { throwIfNoEntry: false });
      if (!now || now.isSymbolicLink() || now.dev !== this.dev || now.ino !== this.ino) throw new Error("the transfer directory was replaced");
      base = this.path;
    }
    try {
      return openSync(`${base}/${name}`, flags | constants.O_NOFOLLOW);
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new Error(code === "ELOOP" ? "it is a symbolic link" : (code ?? "error"));
    }
  }
}
