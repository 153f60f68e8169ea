/**
 * Native session files (spec native-host §6.3, §14): choice of the file
 * (`resume_session` > existing `<session_dir>/<session_id>.jsonl` > new
 * `<session_id>.jsonl` or `host-<pid>-<nanos>.jsonl`), creation with
 * private permissions, `history` seeding of new files only, and appended
 * JSONL entries per run (the double's own record layout: one `session`
 * header, then `message` and `usage` entries chained by `parent_id`).
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { canonical, isInside } from "./paths.ts";
import type { HistoryItem } from "./requests.ts";

export interface SessionChoice {
  /** Absolute canonical path. */
  path: string;
  isNew: boolean;
}

export interface SessionRequest {
  sessionId?: string;
  resumeSession?: string;
  history: readonly HistoryItem[];
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

  if (request.resumeSession !== undefined) {
    const given = request.resumeSession;
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(path.resolve(given));
    } catch {
      return { error: `resume session ${given} is unavailable` };
    }
    if (stat.isSymbolicLink()) return { error: `resume session ${given} must not be a symbolic link` };
    if (!stat.isFile()) return { error: `resume session ${given} must be a regular file` };
    const file = canonical(given);
    if (file === undefined) return { error: `resume session ${given} is unavailable` };
    if (!isInside(file, dir) || file === dir) return { error: `resume session ${given} must stay inside the configured session directory` };
    return { choice: { path: file, isNew: false } };
  }

  if (request.sessionId !== undefined) {
    const file = path.join(dir, `${request.sessionId}.jsonl`);
    return { choice: { path: file, isNew: !fs.existsSync(file) } };
  }
  const nanos = process.hrtime.bigint() + BigInt(Date.now()) * 1_000_000n;
  return { choice: { path: path.join(dir, `host-${process.pid}-${nanos}.jsonl`), isNew: true } };
}

/** Open the chosen file: a new one gets its header and the seeded history. The error text on failure. */
export function openSession(choice: SessionChoice, request: SessionRequest): string | undefined {
  try {
    if (!choice.isNew) {
      if (!fs.statSync(choice.path).isFile()) return `session file ${choice.path} is unavailable`;
      return undefined;
    }
    const lines = [{ type: "session", version: 1, id: randomUUID(), timestamp: new Date().toISOString() }];
    const fd = fs.openSync(choice.path, "wx", 0o600);
    try {
      fs.writeSync(fd, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    } finally {
      fs.closeSync(fd);
    }
    appendEntries(
      choice.path,
      request.history.map((item) => ({ type: "message", message: { role: item.role, text: item.text } })),
    );
    return undefined;
  } catch {
    return `session file ${choice.path} is unavailable`;
  }
}

interface SessionLine {
  type?: unknown;
  id?: unknown;
  cost_microdollars?: unknown;
}

function readLines(file: string): SessionLine[] {
  const lines: SessionLine[] = [];
  for (const text of fs.readFileSync(file, "utf8").split("\n")) {
    if (text.trim() === "") continue;
    try {
      lines.push(JSON.parse(text) as SessionLine);
    } catch {
      // A torn last line (a cancelled run) is skipped.
    }
  }
  return lines;
}

/** The id of the last entry (the conversation head), or "" for an empty session. */
export function sessionHead(file: string): string {
  const entries = readLines(file).filter((l) => l.type !== "session");
  const last = entries[entries.length - 1];
  return typeof last?.id === "string" ? last.id : "";
}

/** Cost recorded in the session by earlier runs (µ$). */
export function sessionCost(file: string): number {
  let total = 0;
  for (const line of readLines(file)) if (typeof line.cost_microdollars === "number") total += line.cost_microdollars;
  return total;
}

/** Append entries chained to the current head; returns the new head. */
export function appendEntries(file: string, entries: readonly Record<string, unknown>[]): string {
  let parent = sessionHead(file);
  let text = "";
  for (const entry of entries) {
    const id = randomBytes(4).toString("hex");
    text += `${JSON.stringify({ ...entry, id, parent_id: parent === "" ? null : parent, timestamp: new Date().toISOString() })}\n`;
    parent = id;
  }
  if (text !== "") fs.appendFileSync(file, text);
  return parent;
}
