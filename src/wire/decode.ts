import { parseJson } from "./json.ts";
import { lineBytes } from "./line-bytes.ts";

/** A decoded inbound line: a JSON value, or the `-32700` parse error to answer. */
export type Decoded = { ok: true; value: unknown } | { ok: false; message: string } | { ok: "blank" };

const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
/** Made on the first line that decodes to U+FFFD (rare; not worth its start-up cost). */
let strictDecoder: TextDecoder | undefined;

/**
 * Decode one line (the chunk views it spans) as strict UTF-8 JSON (docs/protocol-0.2.md §1.1).
 * Parts are joined before decoding, so a multi-byte character split across
 * chunks is fine. The fast lenient
 * decoder runs first; only a line that decoded to U+FFFD somewhere is decoded
 * again strictly, to tell invalid bytes from a real U+FFFD. Blank lines are `"blank"`.
 */
export function decodeLine(parts: Uint8Array[]): Decoded {
  let text = decodeParts(lenient, parts);
  if (text.includes("\uFFFD")) {
    const strict = (strictDecoder ??= new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }));
    try {
      text = decodeParts(strict, parts);
    } catch (error) {
      try {
        strict.decode(); // reset the stream state left by the failure
      } catch {
        /* already reset */
      }
      return { ok: false, message: `invalid UTF-8: ${(error as Error).message}` };
    }
  }
  if (isBlank(parts)) return { ok: "blank" };
  try {
    return { ok: true, value: parseJson(text) };
  } catch (error) {
    return { ok: false, message: `invalid JSON: ${(error as Error).message}` };
  }
}

/**
 * `bytes` as text when they are all ASCII (then characters are bytes), else
 * undefined. Valid multi-byte UTF-8 decodes to fewer characters than bytes and
 * an invalid byte to U+FFFD, so equal lengths without U+FFFD mean ASCII.
 */
export function asciiText(bytes: Uint8Array): string | undefined {
  const text = lenient.decode(bytes);
  return text.length === bytes.length && !text.includes("\uFFFD") ? text : undefined;
}

/** Decode a line the splitter already decoded (ASCII, so valid UTF-8): JSON, or blank. */
export function decodeText(text: string): Decoded {
  // A frame starts with `{`: only other lines are looked at whole.
  if (text.charCodeAt(0) !== 123 && isBlankText(text)) return { ok: "blank" };
  try {
    return { ok: true, value: parseJson(text) };
  } catch (error) {
    return { ok: false, message: `invalid JSON: ${(error as Error).message}` };
  }
}

function isBlankText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 11 && c !== 12) return false;
  }
  return true;
}

/** Made by the first line that spans chunks: lines up to its size are joined in it, longer ones get their own buffer. */
let joinBuffer: Uint8Array | undefined;
const JOIN_BUFFER_BYTES = 1024 * 1024;

/**
 * A line's text. A line that spans several chunks is joined into one buffer (`lineBytes`) and
 * decoded once: one flat string, where decoding the parts in stream mode made a rope of their texts
 * that the U+FFFD check and `JSON.parse` then copied whole again (issue 28: the 512 KiB echo).
 */
function decodeParts(decoder: TextDecoder, parts: Uint8Array[]): string {
  if (parts.length === 1) return decoder.decode(parts[0]);
  return decoder.decode(lineBytes(parts, (joinBuffer ??= new Uint8Array(JOIN_BUFFER_BYTES))));
}

/** Whitespace-only, judged on the bytes. */
function isBlank(parts: Uint8Array[]): boolean {
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const c = part[i];
      if (c !== 32 && c !== 9 && c !== 13 && c !== 11 && c !== 12) return false;
    }
  }
  return true;
}
