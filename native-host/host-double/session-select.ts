/**
 * Choice of a run's session file (docs/native-host-protocol.md §6.3, §14), in the real
 * host's order: the session directory is created (private) and
 * canonicalised; then `resume_session` if given, else
 * `<session_dir>/<session_id>.jsonl` — reopened when anything exists under
 * that name, created otherwise — or a new `host-<pid>-<nanos>.jsonl`.
 *
 * An existing file is confined before use, labelled "resume session" or
 * "session" in the error texts: it must exist, must not itself be a
 * symbolic link, its canonical path must lie inside the session directory,
 * and it must be a regular file (checked in that order).
 */
import fs from "node:fs";
import path from "node:path";
import { canonical, isInside } from "./paths.ts";

export interface SessionChoice {
  /** Absolute canonical path. */
  path: string;
  isNew: boolean;
}

interface SessionRequest {
  sessionId?: string;
  resumeSession?: string;
}

/** Create the session directory if needed and pick the file; the error text on failure. */
export function chooseSessionFile(request: SessionRequest, sessionDir: string): { choice: SessionChoice } | { error: string } {
  try {
    fs.mkdirSync(sessionDir, { recursive: true, mode: 0o700 });
  } catch {
    return { error: "session directory is unavailable" };
  }
  const dir = canonical(sessionDir);
  if (dir === undefined || !fs.statSync(dir).isDirectory()) return { error: "session directory is unavailable" };

  if (request.resumeSession !== undefined) return existing(request.resumeSession, dir, "resume session");
  if (request.sessionId === undefined) {
    const nanos = process.hrtime.bigint() + BigInt(Date.now()) * 1_000_000n;
    return { choice: { path: path.join(dir, `host-${process.pid}-${nanos}.jsonl`), isNew: true } };
  }
  const file = path.join(dir, `${request.sessionId}.jsonl`);
  try {
    fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { choice: { path: file, isNew: true } };
    return { error: `checking session ${file}` };
  }
  return existing(file, dir, "session");
}

function existing(given: string, dir: string, label: string): { choice: SessionChoice } | { error: string } {
  let link: fs.Stats;
  try {
    link = fs.lstatSync(path.resolve(given));
  } catch {
    return { error: `${label} ${given} is unavailable` };
  }
  if (link.isSymbolicLink()) return { error: `${label} must not be a symbolic link` };
  const file = canonical(given);
  if (file === undefined) return { error: `${label} ${given} is unavailable` };
  if (!isInside(file, dir)) return { error: `${label} must stay inside the configured session directory` };
  if (!fs.statSync(file).isFile()) return { error: `${label} must be a regular file` };
  return { choice: { path: file, isNew: false } };
}
