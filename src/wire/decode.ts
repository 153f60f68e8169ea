import { parseJson } from "./json.ts";

/** A decoded inbound line: a JSON value, or the `-32700` parse error to answer. */
export type Decoded = { ok: true; value: unknown } | { ok: false; message: string } | { ok: "blank" };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decode one line (the chunk views it spans) as strict UTF-8 JSON (spec §1.1).
 * Parts are decoded in stream mode, so a multi-byte character split across
 * chunks is fine and nothing is copied into one buffer first. Blank lines are `"blank"`.
 */
export function decodeLine(parts: Uint8Array[]): Decoded {
  let text = "";
  try {
    const last = parts.length - 1;
    for (let i = 0; i <= last; i++) text += utf8.decode(parts[i], { stream: i < last });
  } catch (error) {
    try {
      utf8.decode(); // reset the stream state left by the failure
    } catch {
      /* already reset */
    }
    return { ok: false, message: `invalid UTF-8: ${(error as Error).message}` };
  }
  if (isBlank(text)) return { ok: "blank" };
  try {
    return { ok: true, value: parseJson(text) };
  } catch (error) {
    return { ok: false, message: `invalid JSON: ${(error as Error).message}` };
  }
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 11 && c !== 12) return false;
  }
  return true;
}
