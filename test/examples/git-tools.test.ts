import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";

const DIR = new URL("../../examples/git-tools", import.meta.url).pathname;
let host: TestHost;
afterEach(() => host?.kill());

function git(cwd: string, ...args: string[]): void {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
}

/** A repository with one staged, one modified, two untracked and one ignored path. */
function dirtyRepo(): string {
  const ws = temporaryDirectory("git-tools-");
  git(ws, "init", "-q", "-b", "main");
  writeFileSync(join(ws, "tracked"), "v1\n");
  git(ws, "add", "tracked");
  git(ws, "commit", "-q", "-m", "init");
  writeFileSync(join(ws, ".gitignore"), "ign\n");
  git(ws, "add", ".gitignore");
  writeFileSync(join(ws, "tracked"), "v2\n");
  writeFileSync(join(ws, "untracked1"), "");
  writeFileSync(join(ws, "untracked2"), "");
  writeFileSync(join(ws, "ign"), "");
  return ws;
}

describe("examples/git-tools (process level, API 0.1)", () => {
  test("git_status on a dirty repository: compact text and metadata", async () => {
    const ws = dirtyRepo();
    host = await TestHost.start(DIR, { workspace: ws });
    await host.initialize();
    const result = (await host.callTool("git_status", {}, { context: host.executionContext({ workspace: ws }) })) as Record<string, unknown>;
    expect(result.content).toBe(
      ["branch=main", "state=dirty", "counts=staged:1,modified:1,untracked:2,ignored:0,conflicted:0", "A  .gitignore", " M tracked", "?? untracked1", "?? untracked2"].join("\n"),
    );
    expect(result.metadata).toEqual({
      branch: "main",
      clean: false,
      counts: { staged: 1, modified: 1, untracked: 2, ignored: 0, conflicted: 0 },
      entries: ["A  .gitignore", " M tracked", "?? untracked1", "?? untracked2"],
      total_entries: 4,
      truncated: false,
    });
    const bounded = (await host.callTool("git_status", { include_ignored: true, max_entries: 2 }, { context: host.executionContext({ workspace: ws }) })) as { content: string };
    expect(bounded.content.split("\n")).toEqual([
      "branch=main",
      "state=dirty",
      "counts=staged:1,modified:1,untracked:2,ignored:1,conflicted:0",
      "A  .gitignore",
      " M tracked",
      "... 3 additional entries omitted",
    ]);
    expect(await host.shutdown()).toBe(0);
  });

  test("argument and workspace errors", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    expect(await host.callTool("git_status", { max_entries: 0 })).toEqual({ content: "max_entries must be between 1 and 200", is_error: true, metadata: {} });
    expect(await host.callTool("git_status", { max_entries: "5" })).toEqual({ content: "max_entries must be an integer", is_error: true, metadata: {} });
    expect(await host.callTool("git_status", { include_ignored: null })).toEqual({ content: "include_ignored must be a boolean", is_error: true, metadata: {} });
    expect(await host.callTool("git_status", {}, { context: { workspace: "/nonexistent" } })).toEqual({
      content: "git_status failed: workspace is not a directory: /nonexistent",
      is_error: true,
      metadata: {},
    });
    const notRepo = (await host.callTool("git_status", {}, { context: { workspace: host.workspace } })) as { content: string };
    expect(notRepo.content).toStartWith("git_status failed: fatal: not a git repository");
    const reply = await host.request("command/execute", { name: "checkpoint", arguments: [], context: { workspace: host.workspace } });
    expect((reply.error as { code: number }).code).toBe(-32001);
    expect((reply.error as { message: string }).message).toStartWith("checkpoint preview failed: fatal: not a git repository");
    expect(await host.shutdown()).toBe(0);
  });

  test("checkpoint preview and renderer", async () => {
    const ws = dirtyRepo();
    host = await TestHost.start(DIR, { workspace: ws });
    await host.initialize();
    const result = (await host.executeCommand("checkpoint", ["release", "v2"])) as { text: string; notifications: unknown[] };
    expect(result.text.split("\n").slice(0, 4)).toEqual(["Checkpoint preview · release v2", "main · 4 changed paths", "", "branch=main"]);
    expect(result.notifications).toEqual([{ level: "info", title: "Read-only checkpoint", message: "No commit or filesystem mutation was performed." }]);
    expect(await host.renderTool("git_status", {}, "branch=main\nstate=clean")).toEqual({
      segments: [
        { text: "git · clean", style_role: "extension.git_tools.clean" },
        { text: "\n", style_role: null },
        { text: "branch=main\nstate=clean", style_role: "extension.git_tools.detail" },
      ],
    });
    const failed = (await host.renderTool("git_status", {}, "", true)) as { segments: { text: string; style_role: string }[] };
    expect(failed.segments[0]).toEqual({ text: "git · attention", style_role: "extension.git_tools.error" });
    expect(failed.segments[2]!.text).toBe("git status pending");
    expect(await host.shutdown()).toBe(0);
  });
});
