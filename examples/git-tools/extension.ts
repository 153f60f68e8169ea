/**
 * TypeScript port of octet's legacy `git-tools` example (API 0.1): a bounded,
 * read-only `git_status` tool, a `/checkpoint` preview command and a semantic
 * renderer. It never runs a shell and never writes to the repository.
 */
import { Extension, RpcError } from "octet-extension";
import { compactText, DEFAULT_MAX_ENTRIES, gitStatus, GitToolsError, MAX_ENTRIES_LIMIT, resolveWorkspace } from "./git-status.ts";

const ext = new Extension();

ext.tool(
  {
    name: "git_status",
    description: "Inspect the workspace Git status without acquiring optional locks",
    parameters: {
      type: "object",
      properties: {
        include_ignored: { type: "boolean", description: "Include ignored paths in the bounded result", default: false },
        max_entries: { type: "integer", minimum: 1, maximum: 200, default: 80 },
      },
      additionalProperties: false,
    },
  },
  async (args: { include_ignored?: unknown; max_entries?: unknown } | null, ctx) => {
    const input = args ?? {};
    const maxEntries = input.max_entries ?? DEFAULT_MAX_ENTRIES;
    if (typeof maxEntries !== "number" || !Number.isInteger(maxEntries)) throw new Error("max_entries must be an integer");
    if (maxEntries < 1 || maxEntries > MAX_ENTRIES_LIMIT) throw new Error("max_entries must be between 1 and 200");
    const includeIgnored = "include_ignored" in input ? input.include_ignored : false;
    if (typeof includeIgnored !== "boolean") throw new Error("include_ignored must be a boolean");
    try {
      const status = await gitStatus(resolveWorkspace(ctx.context), includeIgnored, maxEntries);
      return { content: compactText(status), metadata: status };
    } catch (error) {
      if (!(error instanceof GitToolsError)) throw error;
      return { content: `git_status failed: ${error.message}`, is_error: true };
    }
  },
);

ext.command(
  { name: "checkpoint", description: "Preview a named, read-only workspace checkpoint", usage: "/checkpoint [label]" },
  async (args, ctx) => {
    const label = args.join(" ").trim() || "working tree";
    let status;
    try {
      status = await gitStatus(resolveWorkspace(ctx.context), false, DEFAULT_MAX_ENTRIES);
    } catch (error) {
      if (!(error instanceof GitToolsError)) throw error;
      throw new RpcError(-32001, `checkpoint preview failed: ${error.message}`);
    }
    const state = status.clean ? "clean" : `${status.total_entries} changed paths`;
    return {
      text: `Checkpoint preview · ${label}\n${status.branch} · ${state}\n\n${compactText(status)}`,
      notifications: [{ level: "info", title: "Read-only checkpoint", message: "No commit or filesystem mutation was performed." }],
      context: [],
    };
  },
);

ext.renderer("git_status", (params) => {
  const output = params.output || "git status pending";
  const isError = Boolean(params.is_error);
  const dirty = output.includes("state=dirty") || isError;
  const role = isError ? "extension.git_tools.error" : dirty ? "extension.git_tools.dirty" : "extension.git_tools.clean";
  return {
    segments: [
      { text: dirty ? "git · attention" : "git · clean", style_role: role },
      { text: "\n", style_role: null },
      { text: output, style_role: "extension.git_tools.detail" },
    ],
  };
});

await ext.run();
