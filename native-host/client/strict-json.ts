/**
 * Strict parsing of the host's event lines (docs/native-host-protocol.md §15.2): valid
 * JSON whose top level is an object and whose objects have no duplicate
 * member names at any depth. `JSON.parse` keeps the last duplicate silently,
 * so member names are checked by a scan of the (already valid) text.
 */

export type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

export function parseEventLine(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, reason: `not a JSON object (${value === null ? "null" : Array.isArray(value) ? "array" : typeof value})` };
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) return { ok: false, reason: `duplicate JSON member ${JSON.stringify(duplicate)}` };
  return { ok: true, value: value as Record<string, unknown> };
}

/** The first member name that repeats within one object of valid JSON `text`, if any. */
export function findDuplicateKey(text: string): string | undefined {
  // One entry per open container: a Set of names for objects, undefined for arrays.
  const stack: (Set<string> | undefined)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (expectKey) {
        const raw = text.slice(i, end + 1);
        const name = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        const names = stack[stack.length - 1]!;
        if (names.has(name)) return name;
        names.add(name);
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      stack.push(undefined);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      expectKey = stack[stack.length - 1] !== undefined;
    }
  }
  return undefined;
}

/** Index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    let backslashes = 0;
    for (let j = q - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
    if (backslashes % 2 === 0) return q;
    i = q + 1;
  }
}
