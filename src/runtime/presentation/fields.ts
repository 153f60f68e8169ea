/**
 * The field classes of a presentation snapshot (docs/protocol-0.2.md §6.7): labels, ids and
 * states. Each check fails with `<json path>: <rule>` (see `src/check.ts`).
 */
import { type JsonRecord, fail, has } from "../../check.ts";
import { MAX_TEXT_BYTES } from "./limits.ts";
import { PRESENTATION_STATES } from "./snapshot-types.ts";

const ID_PATTERN = /^[A-Za-z0-9_.:\/-]+$/;

function hex(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

function isFormatting(cp: number): boolean {
  return cp === 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
    cp === 0x2060 || (cp >= 0x2066 && cp <= 0x2069) || cp === 0xfeff;
}

function isControl(cp: number): boolean {
  return cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f);
}

/**
 * Scan `s` as well-formed Unicode and return its UTF-8 length. `allowed` are
 * control characters tolerated here; formatting characters fail when `noFormatting`.
 */
export function scanText(s: string, path: string, allowed: readonly number[], noFormatting: boolean): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    let cp = s.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (cp > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) fail(path, `contains a lone surrogate (${hex(cp)})`);
      cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (isControl(cp) && !allowed.includes(cp)) {
      fail(path, cp === 0x1b ? "contains ESC (U+001B)" : `contains a control character (${hex(cp)})`);
    }
    if (noFormatting && isFormatting(cp)) fail(path, `contains a bidi/zero-width formatting character (${hex(cp)})`);
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** A label-class string: non-blank, ≤ 1024 bytes, no control or formatting characters. */
export function label(value: unknown, path: string): string {
  if (typeof value !== "string") fail(path, "must be a string");
  if (value.trim() === "") fail(path, "must not be blank");
  if (scanText(value, path, [], true) > MAX_TEXT_BYTES) fail(path, `exceeds ${MAX_TEXT_BYTES} UTF-8 bytes`);
  return value;
}

/** `obj[key]`, when present, as a label. */
export function optionalLabel(obj: JsonRecord, key: string, path: string): void {
  if (has(obj, key)) label(obj[key], `${path}.${key}`);
}

/** An id-class string: 1..1024 bytes of `[A-Za-z0-9_.:/-]`. */
export function id(value: unknown, path: string): string {
  if (typeof value !== "string") fail(path, "must be a string");
  if (value === "") fail(path, "must not be blank");
  if (!ID_PATTERN.test(value)) fail(path, "characters outside A-Z a-z 0-9 _ - . : /");
  if (value.length > MAX_TEXT_BYTES) fail(path, `exceeds ${MAX_TEXT_BYTES} bytes`);
  return value;
}

/** Ids of a list, each read by `read` and unique. */
export function uniqueIds(items: readonly unknown[], path: string, read: (item: unknown, path: string) => string): Set<string> {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const p = `${path}[${i}]`;
    const value = read(item, p);
    if (seen.has(value)) fail(p, `duplicate id "${value}"`);
    seen.add(value);
  });
  return seen;
}

/** One of the {@link PRESENTATION_STATES}. */
export function state(value: unknown, path: string): void {
  if (typeof value !== "string" || !PRESENTATION_STATES.includes(value)) fail(path, `must be one of ${PRESENTATION_STATES.join(", ")}`);
}
