/**
 * The parser text for a request line that is not valid UTF-8 (spec
 * docs/native-host-protocol.md §3, §9.1). The real host hands the raw bytes to serde_json,
 * which checks UTF-8 per string: an invalid sequence inside a string fails
 * as `invalid unicode code point` at the string's closing quote (or `EOF
 * while parsing a string` when it has none); outside a string the byte is
 * simply not JSON, so the parser's own error for that place is reported
 * (e.g. `expected value`, `key must be a string`). Positions are
 * approximate when the line has other errors before that byte.
 */
import { JsonSyntaxError, parseStrictJson } from "./request-json.ts";

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence, or -1. */
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    let length: number;
    let min: number;
    if (b < 0x80) length = 1;
    else if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) length = 3;
    else if (b >= 0xf0 && b <= 0xf4) length = 4;
    else return i;
    if (length === 1) {
      i++;
      continue;
    }
    let code = b & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    min = length === 2 ? 0x80 : length === 3 ? 0x800 : 0x10000;
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += length;
  }
  return -1;
}

/** The serde_json-style message (with position suffix) for `bytes`, or undefined when they are valid UTF-8. */
export function invalidUtf8Message(bytes: Uint8Array): string | undefined {
  const bad = firstInvalidByte(bytes);
  if (bad === -1) return undefined;
  let inString = false;
  for (let i = 0; i < bad; i++) {
    const b = bytes[i];
    if (inString && b === 0x5c) i++;
    else if (b === 0x22) inString = !inString;
  }
  if (!inString) return outsideStringError(bytes, bad);
  for (let i = bad; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x5c) i++;
    else if (b === 0x22) return `invalid unicode code point at line 1 column ${i + 1}`;
  }
  return `EOF while parsing a string at line 1 column ${bytes.length}`;
}

/** The strict parser's error for the line with invalid sequences replaced by U+FFFD, which no JSON token accepts. */
function outsideStringError(bytes: Uint8Array, bad: number): string {
  try {
    parseStrictJson(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes));
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error.message;
    throw error;
  }
  return `expected value at line 1 column ${bad + 1}`;
}
