/**
 * Rust's `{:?}` rendering of a string, which the real host uses when it
 * quotes caller input in an error text (e.g. `unsupported provider_mode
 * "x"`): double quotes, `\"` and `\\`, `\t` `\r` `\n` `\0`, other control
 * characters as `\u{…}`; everything else (non-ASCII included) as is.
 */
export function rustDebugString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    switch (char) {
      case '"':
        out += '\\"';
        break;
      case "\\":
        out += "\\\\";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\0":
        out += "\\0";
        break;
      default:
        out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? `\\u{${code.toString(16)}}` : char;
    }
  }
  return `${out}"`;
}
