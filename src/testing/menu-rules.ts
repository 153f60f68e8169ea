/**
 * The test host's own reading of a `menu/collect` reply (octet's
 * `ExtensionMenu`, docs/protocol-0.2.md §6.9), written from the protocol and
 * not from the runtime's `menuResult`: a runtime that gets a rule wrong fails
 * here. octet rejects a whole menu that breaks one rule (and falls back to a
 * menu of the declared commands); members it does not know break a rule too.
 * Texts must not be blank (ids, labels, a status label, a title when given)
 * nor hold NUL.
 */

import { isObject, type JsonRecord } from "../check.ts";

const STATES = new Set(["empty", "loading", "pending", "active", "running", "succeeded", "failed", "cancelled", "degraded", "stopped", "unavailable"]);
const LIMIT = { items: 256, levels: 4, encodedBytes: 256 * 1024, label: 256, description: 2 * 1024, detail: 16 * 1024, arguments: 32, argumentBytes: 4 * 1024 };
const MENU_MEMBERS = ["title", "status", "detail", "items"];
const ITEM_MEMBERS = ["id", "label", "description", "detail", "command", "arguments", "destructive", "recommended", "items"];

const bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * The first rule `menu` breaks, in words, or undefined when octet would show
 * it. `commands` are the manifest's declared command names.
 */
export function menuViolation(menu: unknown, commands: readonly string[]): string | undefined {
  if (!isObject(menu) || !Array.isArray(menu.items)) return "the reply is not an object with an items array";
  const problem =
    members(menu, MENU_MEMBERS, "the menu") ??
    optionalText(menu.title, "the menu title", LIMIT.label, true) ??
    optionalText(menu.detail, "the menu detail", LIMIT.detail, false) ??
    status(menu.status) ??
    level(menu.items, 1, commands, { seen: 0 });
  if (problem) return problem;
  const size = bytes(JSON.stringify(menu));
  return size > LIMIT.encodedBytes ? `the encoded menu is ${size} bytes, more than ${LIMIT.encodedBytes}` : undefined;
}

function status(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return "the menu status is not an object";
  if (typeof value.state !== "string" || !STATES.has(value.state)) return `the menu status state is not one of ${[...STATES].join(", ")}`;
  return members(value, ["state", "label", "detail"], "the menu status") ?? requiredText(value.label, "the menu status label", LIMIT.label) ?? optionalText(value.detail, "the menu status detail", LIMIT.detail, false);
}

function level(items: unknown[], depth: number, commands: readonly string[], count: { seen: number }): string | undefined {
  if (depth > LIMIT.levels) return `the menu has more than ${LIMIT.levels} levels`;
  const ids = new Set<unknown>();
  let recommended = 0;
  for (const item of items) {
    if (++count.seen > LIMIT.items) return `the menu has more than ${LIMIT.items} items`;
    if (!isObject(item)) return "a menu item is not an object";
    const name = `menu item ${JSON.stringify(item.id)}`;
    const problem =
      members(item, ITEM_MEMBERS, "a menu item") ??
      requiredText(item.id, "a menu item id", LIMIT.label) ??
      (ids.has(item.id) ? `${name} repeats an id of its level` : undefined) ??
      requiredText(item.label, `the label of ${name}`, LIMIT.label) ??
      optionalText(item.description, `the description of ${name}`, LIMIT.description, false) ??
      optionalText(item.detail, `the detail of ${name}`, LIMIT.detail, false) ??
      flag(item.destructive, `destructive of ${name}`) ??
      flag(item.recommended, `recommended of ${name}`) ??
      (item.recommended === true && ++recommended > 1 ? `${name} is a second recommended item on its level` : undefined) ??
      target(item, name, depth, commands, count);
    if (problem) return problem;
    ids.add(item.id);
  }
  return undefined;
}

/** An item runs a declared command (with literal arguments) or opens a submenu, never both. */
function target(item: JsonRecord, name: string, depth: number, commands: readonly string[], count: { seen: number }): string | undefined {
  const runs = item.command !== undefined && item.command !== null;
  const opens = item.items !== undefined && item.items !== null;
  if (runs === opens) return `${name} needs exactly one of command and items`;
  if (opens) {
    if (item.arguments !== undefined || item.destructive !== undefined) return `submenu ${name} carries arguments or destructive`;
    if (!Array.isArray(item.items)) return `the items of ${name} are not an array`;
    return level(item.items, depth + 1, commands, count);
  }
  if (typeof item.command !== "string" || !commands.includes(item.command)) return `${name} runs ${JSON.stringify(item.command)}, not a command the manifest declares`;
  if (item.arguments === undefined) return undefined;
  const args = item.arguments;
  if (!Array.isArray(args) || args.length > LIMIT.arguments) return `the arguments of ${name} are not an array of at most ${LIMIT.arguments}`;
  const bad = args.findIndex((arg) => typeof arg !== "string" || arg.includes("\0") || bytes(arg) > LIMIT.argumentBytes);
  return bad === -1 ? undefined : `argument ${bad} of ${name} is not a string of at most ${LIMIT.argumentBytes} bytes without NUL`;
}

function members(value: JsonRecord, known: readonly string[], what: string): string | undefined {
  const unknown = Object.keys(value).find((key) => !known.includes(key));
  return unknown === undefined ? undefined : `${what} has the member ${JSON.stringify(unknown)}, which octet does not know`;
}

function requiredText(value: unknown, what: string, max: number): string | undefined {
  if (typeof value !== "string" || value.trim() === "") return `${what} is not a non-blank string`;
  return textRules(value, what, max);
}

function optionalText(value: unknown, what: string, max: number, nonBlank: boolean): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") return `${what} is not a string`;
  if (nonBlank && value.trim() === "") return `${what} is blank`;
  return textRules(value, what, max);
}

function textRules(value: string, what: string, max: number): string | undefined {
  if (value.includes("\0")) return `${what} holds NUL`;
  return bytes(value) > max ? `${what} is ${bytes(value)} bytes, more than ${max}` : undefined;
}

function flag(value: unknown, what: string): string | undefined {
  return value === undefined || typeof value === "boolean" ? undefined : `${what} is not a boolean`;
}
