/**
 * TOML literals for values that come from elsewhere (an imported extension's
 * schemas and descriptions): every key quoted when it is not bare, every
 * control character escaped, and a test of whether TOML can hold a value at all.
 */
import { isObject, type JsonRecord } from "octet-extension/validation";

const BARE_KEY = /^[A-Za-z0-9_-]+$/;
/** C0 controls, DEL and C1 controls: escaped in every string (TOML requires most, the terminal is safer without the rest). */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

/** A key: bare when it can be, else a quoted string. */
export function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : tomlString(key);
}

/** A dotted key path (`tools."a.b".parameters`). */
export function tomlPath(keys: string[]): string {
  return keys.map(tomlKey).join(".");
}

/** A basic string with `"`, `\` and every control character escaped. */
export function tomlString(text: string): string {
  const escaped = text.replace(/["\\]/g, (c) => `\\${c}`).replace(CONTROL, escapeControl);
  return `"${escaped}"`;
}

/** A string on several lines as a multi-line basic string (LF kept, everything else escaped), else a basic string. */
export function tomlText(text: string): string {
  if (!text.includes("\n")) return tomlString(text);
  const escaped = text.replace(/["\\]/g, (c) => `\\${c}`).replace(CONTROL, (c) => (c === "\n" ? c : escapeControl(c)));
  // A newline right after the opening quotes is trimmed by TOML: it starts the text on its own line.
  return `"""\n${escaped}"""`;
}

function escapeControl(c: string): string {
  const named: Record<string, string> = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };
  return named[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** An inline value: string, number, boolean, array or inline table. Check {@link tomlCanHold} first. */
export function tomlValue(value: unknown): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "boolean") return String(value);
  // An unsafe integer here came from a float literal (big integer literals arrive as bigint): written as a float.
  if (typeof value === "number") return Number.isSafeInteger(value) ? String(value) : floatText(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (isObject(value)) {
    const entries = Object.entries(value);
    return entries.length === 0 ? "{}" : `{ ${entries.map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`).join(", ")} }`;
  }
  throw new Error(`TOML cannot hold ${value === null ? "null" : typeof value}`);
}

/** JavaScript's shortest round-trip form is a TOML float once it has a fraction or an exponent. */
function floatText(value: number): string {
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/**
 * Why TOML (as Bun reads it) cannot hold `value`, or undefined when it can:
 * JSON's `null`, an integer literal beyond ±(2^53−1) (a `bigint`), and
 * anything that is not JSON data.
 */
export function tomlCannotHold(value: unknown): string | undefined {
  if (value === null) return "null";
  if (typeof value === "bigint") return "an integer beyond ±(2^53−1)";
  if (typeof value === "number") return Number.isFinite(value) ? undefined : "a number that is not finite";
  if (typeof value === "string" || typeof value === "boolean") return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const why = tomlCannotHold(item);
      if (why) return why;
    }
    return undefined;
  }
  if (isObject(value)) {
    for (const item of Object.values(value)) {
      const why = tomlCannotHold(item);
      if (why) return why;
    }
    return undefined;
  }
  return `a ${typeof value}`;
}
