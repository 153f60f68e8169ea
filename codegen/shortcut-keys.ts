/**
 * How octet's terminal UI reads a shortcut's `key` (`ctrl+shift+p`). octet
 * accepts any short key string in the manifest and only warns, at startup,
 * when it cannot bind one; `gen` refuses such a key instead, so a shortcut
 * that would never fire is caught before it ships (docs/manifest.md).
 */

const MODIFIERS: Record<string, string> = { ctrl: "ctrl", control: "ctrl", alt: "alt", shift: "shift", super: "super", cmd: "super", command: "super" };
const NAMED_KEYS: Record<string, string> = {
  enter: "enter",
  return: "enter",
  esc: "esc",
  escape: "esc",
  tab: "tab",
  backtab: "backtab",
  backspace: "backspace",
  delete: "delete",
  del: "delete",
  insert: "insert",
  ins: "insert",
  left: "left",
  right: "right",
  up: "up",
  down: "down",
  home: "home",
  end: "end",
  pageup: "pageup",
  page_up: "pageup",
  pagedown: "pagedown",
  page_down: "pagedown",
};
for (let n = 1; n <= 12; n++) NAMED_KEYS[`f${n}`] = `f${n}`;

/** Why octet would not bind `key`, or undefined when it would. */
export function shortcutKeyProblem(key: string): string | undefined {
  const modifiers = new Set<string>();
  let main: string | undefined;
  let character = false;
  for (const raw of key.split("+")) {
    const part = raw.trim().toLowerCase();
    if (part === "") return "it has an empty part";
    const modifier = MODIFIERS[part];
    if (modifier) {
      if (modifiers.has(modifier)) return `${modifier} is repeated`;
      modifiers.add(modifier);
      continue;
    }
    if (main !== undefined) return "it names more than one key";
    if (NAMED_KEYS[part]) main = NAMED_KEYS[part];
    else if ([...part].length === 1) {
      main = part;
      character = true;
    } else return `"${raw.trim()}" is not a key octet knows`;
  }
  if (main === undefined) return "it names no key, only modifiers";
  if (!modifiers.has("ctrl") && !modifiers.has("alt") && !modifiers.has("super")) return "a shortcut must include ctrl, alt or super";
  if (character && modifiers.has("alt") && !modifiers.has("super")) return "alt with a character may be text typed with Option or AltGr; use ctrl or super";
  const only = (...wanted: string[]) => modifiers.size === wanted.length && wanted.every((m) => modifiers.has(m));
  const reserved =
    (only("ctrl") && ["c", "d", "o", "s"].includes(main)) ||
    ["esc", "enter", "tab", "backtab"].includes(main) ||
    (only("ctrl", "shift") && ["a", "c"].includes(main)) ||
    (only("alt") && main === "up") ||
    (main === "end" && modifiers.has("ctrl"));
  return reserved ? "octet reserves this key for itself" : undefined;
}
