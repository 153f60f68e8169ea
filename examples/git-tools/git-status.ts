import { realpathSync, statSync } from "node:fs";

/** Read-only `git status` for the workspace, bounded in time and size. */

export const MAX_GIT_OUTPUT_BYTES = 256 * 1024;
export const DEFAULT_MAX_ENTRIES = 80;
export const MAX_ENTRIES_LIMIT = 200;
const GIT_TIMEOUT_MS = 5_000;
const CONFLICT_CODES = new Set(["DD", "AU", "UD", "UA", "DU", "AA", "UU"]);

/** A failure worth reporting to the model as is. */
export class GitToolsError extends Error {}

export interface GitStatus {
  branch: string;
  clean: boolean;
  counts: { staged: number; modified: number; untracked: number; ignored: number; conflicted: number };
  entries: string[];
  total_entries: number;
  truncated: boolean;
}

/** The workspace from the request context, else `OCTET_WORKSPACE`, as a canonical directory. */
export function resolveWorkspace(context: { workspace?: unknown }): string {
  const raw = (typeof context.workspace === "string" && context.workspace) || process.env.OCTET_WORKSPACE;
  if (!raw) throw new GitToolsError("octet did not provide an active workspace");
  let resolved = raw;
  try {
    resolved = realpathSync(raw);
    if (statSync(resolved).isDirectory()) return resolved;
  } catch {
    /* falls through */
  }
  throw new GitToolsError(`workspace is not a directory: ${resolved}`);
}

/** Run `git status --porcelain=v1` without optional locks and parse it. */
export async function gitStatus(workspace: string, includeIgnored: boolean, maxEntries: number): Promise<GitStatus> {
  const argv = ["git", "status", "--porcelain=v1", "--branch", "--untracked-files=all"];
  if (includeIgnored) argv.push("--ignored=matching");
  if (!Bun.which("git")) throw new GitToolsError("git executable was not found");
  const proc = Bun.spawn(argv, {
    cwd: workspace,
    env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill();
  }, GIT_TIMEOUT_MS);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).bytes(), proc.exited]);
  clearTimeout(timer);
  if (timedOut) throw new GitToolsError("git status exceeded the 5 second limit");
  if (stdout.length > MAX_GIT_OUTPUT_BYTES) throw new GitToolsError("git status exceeded the 256 KiB output limit");
  if (code !== 0) {
    const detail = new TextDecoder().decode(stderr.subarray(0, 4096)).trim();
    throw new GitToolsError(detail || `git status exited with ${code}`);
  }
  return parseStatus(new TextDecoder().decode(stdout), maxEntries);
}

/** Parse porcelain v1 output with a `## branch` header. */
export function parseStatus(output: string, maxEntries: number): GitStatus {
  const lines = splitLines(output);
  let branch = "unknown";
  let entries = lines;
  if (lines[0]?.startsWith("## ")) {
    branch = lines[0].slice(3);
    entries = lines.slice(1);
  }
  const counts = { staged: 0, modified: 0, untracked: 0, ignored: 0, conflicted: 0 };
  const clean = new Set([" ", "?", "!"]);
  for (const entry of entries) {
    const code = entry.slice(0, 2);
    if (CONFLICT_CODES.has(code)) counts.conflicted++;
    else if (code === "??") counts.untracked++;
    else if (code === "!!") counts.ignored++;
    else {
      if (!clean.has(code[0] ?? "")) counts.staged++;
      if (!clean.has(code[1] ?? "")) counts.modified++;
    }
  }
  const visible = entries.slice(0, maxEntries);
  return {
    branch,
    clean: entries.every((e) => e.slice(0, 2) === "!!"),
    counts,
    entries: visible,
    total_entries: entries.length,
    truncated: entries.length > visible.length,
  };
}

/** The compact text the model sees. */
export function compactText(status: GitStatus): string {
  const c = status.counts;
  const lines = [
    `branch=${status.branch}`,
    `state=${status.clean ? "clean" : "dirty"}`,
    `counts=staged:${c.staged},modified:${c.modified},untracked:${c.untracked},ignored:${c.ignored},conflicted:${c.conflicted}`,
    ...status.entries,
  ];
  if (status.truncated) lines.push(`... ${status.total_entries - status.entries.length} additional entries omitted`);
  return lines.join("\n");
}

/** Line splitting with Python `str.splitlines()` boundaries (no trailing empty line). */
function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
