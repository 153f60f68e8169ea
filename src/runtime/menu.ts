/**
 * The options menu (`menu/collect`, API 0.2 and 0.4 with `contributes.menu =
 * true`; docs/api-0.4.md "Menus"). octet shows the menu the extension returns
 * and, when the user picks an item, sends an ordinary `command/execute` with
 * the item's command and arguments. It rejects a whole menu that breaks one
 * rule, so the runtime checks the same rules first and names the broken one.
 */
import { isObject, utf8Bytes } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";

/** `status.state` of a menu (octet's `ExtensionMenu`). */
export const MENU_STATES = ["empty", "loading", "pending", "active", "running", "succeeded", "failed", "cancelled", "degraded", "stopped", "unavailable"] as const;

/** One entry: runs a declared command, or opens a submenu. */
export type MenuItem<Command extends string = string> = {
  /** Unique among its siblings; at most 256 bytes. */
  id: string;
  /** At most 256 bytes. */
  label: string;
  /** At most 2 KiB. */
  description?: string;
  /** At most 16 KiB. */
  detail?: string;
  /** At most one per level. */
  recommended?: boolean;
} & (
  | {
      /** A declared command; picking the item runs `command/execute` with `arguments`. */
      command: Command;
      /** Literal arguments (at most 32, each at most 4 KiB). */
      arguments?: string[];
      /** octet asks the user to confirm first. */
      destructive?: boolean;
      items?: never;
    }
  | { items: MenuItem<Command>[]; command?: never; arguments?: never; destructive?: never }
);

/** What a menu handler returns: at most 256 items over at most 4 levels, 256 KiB encoded. */
export interface Menu<Command extends string = string> {
  /** At most 256 bytes. */
  title?: string | null;
  status?: { state: (typeof MENU_STATES)[number]; label: string; detail?: string | null } | null;
  /** At most 16 KiB. */
  detail?: string | null;
  items: MenuItem<Command>[];
}

const MAX_ITEMS = 256;
const MAX_DEPTH = 4;
const MAX_ENCODED_BYTES = 256 * 1024;
const LABEL_BYTES = 256;
const DESCRIPTION_BYTES = 2 * 1024;
const DETAIL_BYTES = 16 * 1024;
const ARGUMENTS = 32;
const ARGUMENT_BYTES = 4 * 1024;

const invalid = (problem: string) => new RpcError(ErrorCode.InternalError, `menu handler returned an invalid menu: ${problem}`);

/**
 * Check a handler's menu against octet's rules; `commands` are the declared
 * command names. Returns the menu as sent; throws `-32603` naming the rule.
 */
export function menuResult(value: unknown, commands: readonly string[]): Menu {
  if (!isObject(value) || !Array.isArray(value.items)) throw new RpcError(ErrorCode.InternalError, "menu handler must return an object with an items array");
  only(value, ["title", "status", "detail", "items"], "menu");
  optionalText(value.title, "menu title", LABEL_BYTES, true);
  optionalText(value.detail, "menu detail", DETAIL_BYTES, false);
  if (value.status !== undefined && value.status !== null) {
    const status = value.status;
    if (!isObject(status)) throw invalid("status must be an object");
    only(status, ["state", "label", "detail"], "status");
    if (!(MENU_STATES as readonly unknown[]).includes(status.state)) throw invalid(`status state must be one of ${MENU_STATES.join(", ")}`);
    text(status.label, "status label", LABEL_BYTES);
    optionalText(status.detail, "status detail", DETAIL_BYTES, false);
  }
  const count = { items: 0 };
  level(value.items, 1, commands, count);
  let encoded: string;
  try {
    encoded = JSON.stringify(value);
  } catch (error) {
    throw invalid((error as Error).message);
  }
  if (utf8Bytes(encoded) > MAX_ENCODED_BYTES) throw invalid(`the encoded menu exceeds ${MAX_ENCODED_BYTES} bytes`);
  return value as unknown as Menu;
}

function level(items: unknown[], depth: number, commands: readonly string[], count: { items: number }): void {
  if (depth > MAX_DEPTH) throw invalid(`menu nests deeper than ${MAX_DEPTH} levels`);
  const ids = new Set<string>();
  let recommended = 0;
  for (const item of items) {
    count.items++;
    if (count.items > MAX_ITEMS) throw invalid(`more than ${MAX_ITEMS} items`);
    if (!isObject(item)) throw invalid("items must be objects");
    only(item, ["id", "label", "description", "command", "arguments", "destructive", "recommended", "items", "detail"], "item");
    text(item.id, "item id", LABEL_BYTES);
    const id = item.id as string;
    if (ids.has(id)) throw invalid(`duplicate menu item id ${JSON.stringify(id)}`);
    ids.add(id);
    text(item.label, `item ${JSON.stringify(id)} label`, LABEL_BYTES);
    optionalText(item.description, `item ${JSON.stringify(id)} description`, DESCRIPTION_BYTES, false);
    optionalText(item.detail, `item ${JSON.stringify(id)} detail`, DETAIL_BYTES, false);
    for (const flag of ["destructive", "recommended"]) {
      if (item[flag] !== undefined && typeof item[flag] !== "boolean") throw invalid(`item ${JSON.stringify(id)} ${flag} must be a boolean`);
    }
    if (item.recommended === true && ++recommended > 1) throw invalid("a menu level may recommend at most one item");
    const routes = item.command !== undefined && item.command !== null;
    const opens = item.items !== undefined && item.items !== null;
    if (routes === opens) throw invalid(`menu item ${JSON.stringify(id)} must either route to a command or open a submenu`);
    if (routes) {
      if (typeof item.command !== "string" || !commands.includes(item.command)) throw invalid(`menu item ${JSON.stringify(id)} routes to undeclared command ${JSON.stringify(item.command)}`);
      if (item.arguments !== undefined) {
        const args = item.arguments;
        if (!Array.isArray(args) || args.length > ARGUMENTS || args.some((a) => typeof a !== "string" || a.includes("\0") || utf8Bytes(a) > ARGUMENT_BYTES)) {
          throw invalid(`item ${JSON.stringify(id)} arguments must be at most ${ARGUMENTS} strings of at most ${ARGUMENT_BYTES} bytes`);
        }
      }
    } else {
      if (item.arguments !== undefined || item.destructive !== undefined) throw invalid(`submenu ${JSON.stringify(id)} cannot carry arguments or destructive`);
      if (!Array.isArray(item.items)) throw invalid(`item ${JSON.stringify(id)} items must be an array`);
      level(item.items, depth + 1, commands, count);
    }
  }
}

function only(value: Record<string, unknown>, keys: string[], what: string): void {
  for (const key of Object.keys(value)) if (!keys.includes(key)) throw invalid(`${what} has unknown key ${JSON.stringify(key)}`);
}

function text(value: unknown, what: string, max: number): void {
  if (typeof value !== "string" || value.trim() === "") throw invalid(`${what} must not be empty`);
  if (value.includes("\0")) throw invalid(`${what} must not contain NUL`);
  if (utf8Bytes(value) > max) throw invalid(`${what} exceeds ${max} bytes`);
}

function optionalText(value: unknown, what: string, max: number, nonBlank: boolean): void {
  if (value === undefined || value === null) return;
  if (typeof value !== "string") throw invalid(`${what} must be a string`);
  if (nonBlank && value.trim() === "") throw invalid(`${what} must not be empty`);
  if (value.includes("\0")) throw invalid(`${what} must not contain NUL`);
  if (utf8Bytes(value) > max) throw invalid(`${what} exceeds ${max} bytes`);
}
