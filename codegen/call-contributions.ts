/**
 * The kinds besides tools and commands that `octet-extension call` invokes
 * (docs/kinds.md): `--status [SURFACE]`, `--context [PROMPT]`,
 * `--hook NAME [JSON]`, `--render TOOL [JSON]`, `--shortcut NAME`, `--menu`.
 * Each answer's text is what octet would show or add (the status text, the
 * context, the hook's decision, the segments, the menu), the rest are details.
 */
import type { JsonRecord } from "octet-extension/validation";
import type { Menu, MenuItem } from "octet-extension";
import type { CommandOutput, HookOutput } from "octet-extension/testing";
import type { Answer, CallKind, Invocation } from "./call-kinds.ts";

const SURFACES = ["status", "header", "footer"] as const;

/** A `--NAME` kind taking what follows it. */
function option(name: string, usage: string, prepare: (rest: string[]) => Invocation | { error: string }): CallKind {
  return { usage: `call --${name}${usage ? ` ${usage}` : ""}`, matches: (target) => target === `--${name}`, prepare: (_target, rest) => prepare(rest) };
}

/** `text` parsed as a JSON object, or the one-line error naming `what` and an example. */
function jsonObject(text: string | undefined, what: string, example: string): JsonRecord | { error: string } {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `error: ${what}: the payload is not JSON (${(error as Error).message}): quote it, e.g. '${example}'` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: `error: ${what}: the payload must be a JSON object, e.g. '${example}'` };
  return value as JsonRecord;
}

const isError = (value: unknown): value is { error: string } => typeof value === "object" && value !== null && "error" in value && Object.keys(value).length === 1 && typeof (value as JsonRecord).error === "string";

/** Notifications and context entries of a command, shortcut or hook, one line each. */
function contributionLines(result: { notifications: CommandOutput["notifications"]; context: CommandOutput["context"] }): string[] {
  return [
    ...result.notifications.map((n) => `notification ${n.level ?? "info"}: ${n.title ? `${n.title}: ` : ""}${n.message}`),
    ...result.context.map((c) => `context ${c.label}: ${c.content}`),
  ];
}

const status = option("status", "[SURFACE]", (rest) => {
  const surface = rest[0];
  if (surface !== undefined && !(SURFACES as readonly string[]).includes(surface)) return { error: `error: --status ${surface}: a surface is status, header or footer (default: the first of contributes.ui)` };
  return async (host) => {
    const item = await host.collectStatus(surface as (typeof SURFACES)[number] | undefined);
    if (item === null) return { text: "", details: ["no status item (null)"] };
    return { text: item.text, details: [`surface ${item.surface}, priority ${item.priority}${item.style_role ? `, style_role ${item.style_role}` : ""}`] };
  };
});

const context = option("context", "[PROMPT]", (rest) => async (host) => {
  const entries = await host.collectContext(rest.length > 0 ? rest.join(" ") : null);
  return { text: entries.map((e) => e.content).join("\n"), details: entries.map((e) => `context ${e.label} (${e.placement ?? "prompt_suffix"})`) };
});

const hook = option("hook", "NAME [JSON]", (rest) => {
  const [name, text] = rest;
  if (!name) return { error: `error: --hook needs a hook name, e.g. --hook before_prompt '{"prompt":"hi"}'` };
  const payload = jsonObject(text, `--hook ${name}`, '{"prompt":"hi"}');
  if (isError(payload)) return payload;
  return async (host) => (host.contract03 ? sessionHookAnswer(await host.runSessionHook(name as "session_start", sessionPayload(name, payload))) : hookAnswer(await host.runHook(name, payload)));
});

/** API 0.3's `hook/run` payload: the JSON given, with a binding (and session_end's outcome, reason, duration) filled in. */
function sessionPayload(name: string, given: JsonRecord): JsonRecord {
  const binding = { session_id: "call-session", extension_instance_id: "call", process_generation: 1 };
  const end = name === "session_end" ? { outcome: "completed", reason: "shutdown", duration_ms: 0 } : {};
  return { binding, ...end, ...given };
}

/** A session hook's disposition as its text (API 0.3). */
function sessionHookAnswer(output: JsonRecord): Answer {
  const { kind, reason } = (output.disposition ?? {}) as JsonRecord;
  return { text: reason === undefined ? String(kind) : `${String(kind)}: ${String(reason)}`, details: [] };
}

/** A hook's decision as its text; its context, notifications and own field as details. */
function hookAnswer(output: HookOutput): Answer {
  const { disposition, context: _context, notifications: _notifications, ...own } = output as HookOutput & JsonRecord;
  const text = disposition.action === "deny" ? `deny: ${disposition.reason}` : "continue";
  return { text, details: [...contributionLines(output), ...Object.entries(own).map(([key, value]) => `${key} ${JSON.stringify(value)}`)] };
}

const render = option("render", "TOOL [JSON]", (rest) => {
  const [name, text] = rest;
  const example = '{"arguments":{},"output":"done","is_error":false}';
  if (!name) return { error: `error: --render needs a tool name, e.g. --render TOOL '${example}'` };
  const params = jsonObject(text, `--render ${name}`, example);
  if (isError(params)) return params;
  const extra = Object.keys(params).find((key) => !["arguments", "output", "is_error"].includes(key));
  if (extra !== undefined) return { error: `error: --render ${name}: unknown key ${JSON.stringify(extra)}: give arguments, output and is_error, e.g. '${example}'` };
  const args = params.arguments ?? {};
  const output = params.output ?? null;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return { error: `error: --render ${name}: arguments must be an object` };
  if (output !== null && typeof output !== "string") return { error: `error: --render ${name}: output must be a string or null` };
  if (params.is_error !== undefined && typeof params.is_error !== "boolean") return { error: `error: --render ${name}: is_error must be true or false` };
  return async (host) => {
    const { segments } = await host.renderTool(name, args as JsonRecord, output, params.is_error === true);
    return { text: segments.map((s) => s.text).join(""), details: segments.map((s) => `segment ${JSON.stringify(s.text)} style_role ${s.style_role ?? "null"}`) };
  };
});

const shortcut = option("shortcut", "NAME", (rest) => {
  const name = rest[0];
  if (!name) return { error: "error: --shortcut needs a shortcut name (a [shortcuts.NAME] of manifest.toml)" };
  return async (host) => {
    const result = await host.runShortcut(name);
    return { text: result.text, details: contributionLines(result) };
  };
});

const menu = option("menu", "", () => async (host) => ({ text: menuLines(await host.collectMenu()).join("\n"), details: [] }));

/** The menu as octet lists it: its title, then each item and the command it runs, submenus indented. */
function menuLines(menu: Menu): string[] {
  const item = (entry: MenuItem, indent: string): string[] => {
    if (entry.items) return [`${indent}${entry.label}:`, ...entry.items.flatMap((child) => item(child, `${indent}  `))];
    const args = entry.arguments?.length ? ` ${entry.arguments.join(" ")}` : "";
    return [`${indent}${entry.label}: /${entry.command}${args}${entry.destructive ? " (destructive)" : ""}`];
  };
  return [...(menu.title ? [menu.title] : []), ...menu.items.flatMap((entry) => item(entry, ""))];
}

/** The kinds, in the order `call`'s usage lists them. */
export const CONTRIBUTION_KINDS: readonly CallKind[] = [status, context, hook, render, shortcut, menu];
