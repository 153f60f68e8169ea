/**
 * `[flags.NAME]` and `[shortcuts.NAME]` in `manifest.toml` (API 0.2 and 0.4;
 * docs/manifest.md): the CLI flags octet parses for the extension and the
 * keys it binds, checked by octet's rules and written into `[contributes]`.
 */
import { FLAG_NAME, FLAG_TYPES, IDENT, MAX_FLAG_DESCRIPTION_BYTES, MAX_FLAG_STRING_BYTES, MAX_FLAGS, MAX_SHORTCUT_DESCRIPTION_BYTES, MAX_SHORTCUT_KEY_BYTES, MAX_SHORTCUTS } from "octet-extension/protocol";
import { unknownKey, utf8Bytes } from "octet-extension/validation";
import type { ManifestFail } from "./errors.ts";
import { tableOfTables } from "./manifest-declarations.ts";
import { shortcutKeyProblem } from "./shortcut-keys.ts";

export interface FlagSpec {
  name: string;
  type: (typeof FLAG_TYPES)[number];
  default: boolean | string | number;
  description?: string;
}

export interface ShortcutSpec {
  name: string;
  key: string;
  description: string;
}

export const FLAG_KEYS = ["type", "default", "description"];
export const SHORTCUT_KEYS = ["key", "description"];
const NEEDS_API02 = 'remove it or set api_version = "0.4" (or "0.2")';
const CONTROL = /[\x00-\x1f\x7f]/;

/** `[flags.*]`, in file order. */
export function checkFlags(value: unknown, api: string, fail: ManifestFail): FlagSpec[] {
  const tables = tableOfTables(value, "flags", fail);
  if (tables.length > 0 && api === "0.1") fail("flags", "CLI flags require api_version 0.2 or later", NEEDS_API02);
  if (tables.length > MAX_FLAGS) fail("flags", `declares ${tables.length} flags`, `at most ${MAX_FLAGS} are allowed`);
  return tables.map(([name, spec]) => {
    const key = `flags.${name}`;
    if (!FLAG_NAME.test(name)) fail(key, "is not a valid flag name", "use a lowercase letter, then lowercase letters, digits and '-' (at most 64)");
    const extra = unknownKey(spec, FLAG_KEYS);
    if (extra !== undefined) fail(`${key}.${extra}`, "unknown key", "allowed: type, default, description");
    const type = spec.type;
    if (!(FLAG_TYPES as readonly unknown[]).includes(type)) fail(`${key}.type`, `${JSON.stringify(type)} is not a flag type`, 'use "boolean", "string" or "integer"');
    const fallback = spec.default;
    const fits =
      type === "boolean" ? typeof fallback === "boolean" : type === "string" ? typeof fallback === "string" && utf8Bytes(fallback) <= MAX_FLAG_STRING_BYTES : typeof fallback === "number" && Number.isSafeInteger(fallback);
    if (!fits) fail(`${key}.default`, `is missing or not a ${type}`, type === "boolean" ? "e.g. default = false" : type === "string" ? `e.g. default = "" (at most ${MAX_FLAG_STRING_BYTES} bytes)` : "e.g. default = 0 (a safe integer)");
    const flag: FlagSpec = { name, type: type as FlagSpec["type"], default: fallback as FlagSpec["default"] };
    if (spec.description !== undefined) {
      if (typeof spec.description !== "string" || utf8Bytes(spec.description) > MAX_FLAG_DESCRIPTION_BYTES) fail(`${key}.description`, `must be a string of at most ${MAX_FLAG_DESCRIPTION_BYTES} bytes`, "shorten it");
      flag.description = spec.description as string;
    }
    return flag;
  });
}

/** `[shortcuts.*]`, in file order (the order octet compares the initialize reply against). */
export function checkShortcuts(value: unknown, api: string, fail: ManifestFail): ShortcutSpec[] {
  const tables = tableOfTables(value, "shortcuts", fail);
  if (tables.length > 0 && api === "0.1") fail("shortcuts", "shortcuts require api_version 0.2 or later", NEEDS_API02);
  if (tables.length > MAX_SHORTCUTS) fail("shortcuts", `declares ${tables.length} shortcuts`, `at most ${MAX_SHORTCUTS} are allowed`);
  const keys = new Map<string, string>();
  return tables.map(([name, spec]) => {
    const at = `shortcuts.${name}`;
    if (!IDENT.test(name)) fail(at, "is not a valid shortcut name", "use ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$");
    const extra = unknownKey(spec, SHORTCUT_KEYS);
    if (extra !== undefined) fail(`${at}.${extra}`, "unknown key", "allowed: key, description");
    const { key, description } = spec;
    if (typeof key !== "string" || key === "" || key.trim() !== key || utf8Bytes(key) > MAX_SHORTCUT_KEY_BYTES || CONTROL.test(key)) {
      fail(`${at}.key`, "is missing or not a key spelling", 'e.g. key = "ctrl+shift+p"');
    }
    const problem = shortcutKeyProblem(key as string);
    if (problem) fail(`${at}.key`, `octet would not bind ${JSON.stringify(key)}: ${problem}`, "use ctrl, alt or super with one key, e.g. ctrl+shift+p");
    const other = keys.get((key as string).toLowerCase());
    if (other !== undefined) fail(`${at}.key`, `${JSON.stringify(key)} is already the key of shortcuts.${other}`, "give each shortcut its own key");
    keys.set((key as string).toLowerCase(), name);
    if (typeof description !== "string" || description.trim() === "" || utf8Bytes(description) > MAX_SHORTCUT_DESCRIPTION_BYTES || CONTROL.test(description)) {
      fail(`${at}.description`, `is missing, blank, over ${MAX_SHORTCUT_DESCRIPTION_BYTES} bytes or has control characters`, "describe what the key does");
    }
    return { name, key: key as string, description: description as string };
  });
}
