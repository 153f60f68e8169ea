/**
 * What the test host's per-kind helpers resolve with (docs/testing.md "Each
 * kind"): the reply octet receives for a status item, context, hook, render
 * or command, checked as octet reads it. A reply octet would refuse throws
 * {@link HostViolation} naming the rule (octet refuses the reply, it does not
 * kill the process).
 */
import { isObject } from "../check.ts";
import type { ContextEntry, NotificationParams, RenderSegment, Surface } from "../runtime/types.ts";
import type { HookAnswers } from "../runtime/kinds.ts";
import type { Menu } from "../runtime/menu.ts";
import { checkContextEntry, checkNotification } from "./host-rules.ts";
import { HostViolation } from "./host-errors.ts";
import type { HostManifest } from "./manifest.ts";
import { menuViolation } from "./menu-rules.ts";

/** `status/collect` as octet receives it: every key filled in but `style_role`. */
export type StatusContribution = {
  surface: Surface;
  text: string;
  priority: number;
  style_role?: string | null;
};

/** `hook/run` as octet receives it: the three base keys, plus the hook's own typed field. */
export type HookOutput<H extends keyof HookAnswers = keyof HookAnswers> = {
  disposition: { action: "continue" } | { action: "deny"; reason: string };
  context: ContextEntry[];
  notifications: NotificationParams[];
} & Omit<HookAnswers[H], "disposition" | "context" | "notifications">;

/** `tool/render` as octet receives it. */
export type RenderOutput = {
  segments: RenderSegment[];
};

/** `command/execute` and `shortcut/execute` as octet receives them. */
export type CommandOutput = {
  text: string;
  notifications: NotificationParams[];
  context: ContextEntry[];
};

const refuse = (what: string, problem: string) => new HostViolation(`octet would reject this ${what}: ${problem}`);

/** The surface `collectStatus()` asks for when given none: the first of `contributes.ui`. */
export function defaultSurface(manifest: HostManifest): Surface {
  const first = manifest.contributes.ui[0];
  if (first === undefined) throw new Error('collectStatus(): the manifest declares no UI surface; declare one (manifest.toml [contributes] ui = ["status"]) or pass the surface');
  return first as Surface;
}

/** A `status/collect` reply: null, or an item for a declared surface. */
export function statusReply(value: unknown, manifest: HostManifest): StatusContribution | null {
  if (value === null) return null;
  const problem = checkNotification("status/contribution", value, manifest, new Set());
  if (problem) throw refuse("status item", problem.replace(/^status\/contribution /, ""));
  return value as StatusContribution;
}

/** A `context/collect` reply: an array of entries. */
export function contextReply(value: unknown): ContextEntry[] {
  if (!Array.isArray(value)) throw refuse("context", "context/collect must answer an array");
  for (const entry of value) {
    const problem = checkContextEntry(entry);
    if (problem) throw refuse("context", problem);
  }
  return value as ContextEntry[];
}

/** A `tool/render` reply: `{segments}` of `{text, style_role}`. */
export function renderReply(value: unknown): RenderOutput {
  if (!isObject(value) || !Array.isArray(value.segments) || Object.keys(value).some((k) => k !== "segments")) throw refuse("render", "expected exactly {segments: [...]}");
  for (const segment of value.segments) {
    if (!isObject(segment) || Object.keys(segment).some((k) => k !== "text" && k !== "style_role")) throw refuse("render", "a segment has only text and style_role");
    if (typeof segment.text !== "string" || (segment.style_role !== null && typeof segment.style_role !== "string")) throw refuse("render", "a segment needs string text and a string or null style_role");
  }
  return value as unknown as RenderOutput;
}

/** A `hook/run` reply: a disposition, context entries and notifications. */
export function hookReply<H extends keyof HookAnswers>(value: unknown): HookOutput<H> {
  if (!isObject(value)) throw refuse("hook answer", "expected an object");
  const disposition = value.disposition;
  const ok = isObject(disposition) && (disposition.action === "continue" || (disposition.action === "deny" && typeof disposition.reason === "string"));
  if (!ok) throw refuse("hook answer", 'disposition must be {action: "continue"} or {action: "deny", reason}');
  for (const key of ["context", "notifications"]) if (!Array.isArray(value[key])) throw refuse("hook answer", `${key} must be an array`);
  for (const entry of value.context as unknown[]) {
    const problem = checkContextEntry(entry);
    if (problem) throw refuse("hook answer", problem);
  }
  return value as HookOutput<H>;
}

/** A `command/execute` or `shortcut/execute` reply. */
export function commandReply(value: unknown): CommandOutput {
  if (!isObject(value) || typeof value.text !== "string" || !Array.isArray(value.notifications) || !Array.isArray(value.context)) throw refuse("command result", "expected {text, notifications, context}");
  return value as unknown as CommandOutput;
}

/** A `menu/collect` reply, read by the host's own menu rules (`menu-rules.ts`). */
export function menuReply(value: unknown, manifest: HostManifest): Menu {
  const problem = menuViolation(value, manifest.contributes.commands);
  if (problem) throw refuse("menu", problem);
  return value as Menu;
}
