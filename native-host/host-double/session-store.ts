/**
 * Native session files as the double writes them (docs/native-host-protocol.md §14):
 * append-only JSONL created with private permissions — one `session`
 * header, then `message` and `usage` entries chained by `parent_id` (the
 * double's own record layout). `history` seeds only a new file.
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import type { HistoryItem } from "./decoded-requests.ts";
import type { SessionChoice } from "./session-select.ts";

/** Open the chosen file: a new one gets its header and the seeded history. The error text on failure. */
export function openSession(choice: SessionChoice, history: readonly HistoryItem[]): string | undefined {
  try {
    if (!choice.isNew) {
      fs.accessSync(choice.path, fs.constants.R_OK | fs.constants.W_OK);
      return undefined;
    }
    const header = { type: "session", version: 1, id: randomUUID(), timestamp: new Date().toISOString() };
    const fd = fs.openSync(choice.path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify(header)}\n`);
    } finally {
      fs.closeSync(fd);
    }
    appendEntries(
      choice.path,
      history.map((item) => ({ type: "message", message: { role: item.role, text: item.text } })),
    );
    return undefined;
  } catch {
    return `opening session ${choice.path}`;
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
