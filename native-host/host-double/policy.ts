/**
 * Tool surface, reasoning setting and the `effective_tool_policy` snapshot
 * (docs/native-host-protocol.md §6.3 `tools`/`reasoning`, §12.1).
 */
import fs from "node:fs";

/** The tools the double registers when a run omits `tools` (or sends null). */
const DEFAULT_TOOLS: readonly string[] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/** Registered tool names (trimmed, lower-cased, first occurrence kept), or the error text. */
export function registeredTools(requested: readonly string[] | undefined): { tools: string[] } | { error: string } {
  if (requested === undefined) return { tools: [...DEFAULT_TOOLS] };
  const tools: string[] = [];
  for (const raw of requested) {
    const name = raw.trim().toLowerCase();
    if (!DEFAULT_TOOLS.includes(name)) return { error: `invalid tool name ${JSON.stringify(raw)}` };
    if (!tools.includes(name)) tools.push(name);
  }
  return { tools };
}

const REASONING_WORDS = new Set(["off", "on", "minimal", "min", "low", "medium", "med", "high", "xhigh", "x-high", "max", "ultra"]);

/** The accepted `reasoning` spellings; absent means `off`. */
export function reasoningError(setting: string | undefined): string | undefined {
  if (setting === undefined) return undefined;
  const word = setting.trim().toLowerCase();
  if (REASONING_WORDS.has(word)) return undefined;
  const budget = /^budget=([0-9]+)$/.exec(word);
  if (budget?.[1] !== undefined && Number(budget[1]) > 0 && Number(budget[1]) <= 0xffffffff) return undefined;
  return `invalid reasoning setting ${JSON.stringify(setting)}`;
}

function shellSelection(): string {
  if (fs.existsSync("/bin/bash")) return "system_bash";
  if ((process.env.PATH ?? "").split(":").some((dir) => dir !== "" && fs.existsSync(`${dir}/bash`))) return "path_bash";
  return fs.existsSync("/bin/sh") ? "sh_fallback" : "unavailable";
}

/** §12.1: ten members, each `{value, source:"host_request"}`; no paths. */
export function effectiveToolPolicy(allowFileMutation: boolean): Record<string, { value: unknown; source: string }> {
  const stamp = (value: unknown) => ({ value, source: "host_request" });
  return {
    effect_policy: stamp("controlled"),
    workspace_confinement: stamp(true),
    allow_edit: stamp(allowFileMutation),
    allow_write: stamp(allowFileMutation),
    allow_process: stamp(allowFileMutation),
    allow_shell: stamp(allowFileMutation),
    shell_path: stamp({ selection: shellSelection() }),
    bash_timeout_ms: stamp(120000),
    max_output_bytes: stamp(16384),
    allow_remote_read: stamp(false),
  };
}
