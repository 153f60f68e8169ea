/** Byte sizes and character rules shared by the run checks (docs/native-host-protocol.md §4, §6.3). */

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Unicode Cc: C0 controls, DEL and C1 controls. */
function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

export function hasControl(text: string, allowed: readonly string[] = []): boolean {
  for (const char of text) {
    if (isControl(char.charCodeAt(0)) && !allowed.includes(char)) return true;
  }
  return false;
}

/** Clip to `cap` bytes on a character boundary and append `\n[… N bytes omitted]` (§3 text bounds). */
export function clipText(text: string, cap: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= cap) return text;
  let end = cap;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString("utf8")}\n[… ${bytes.length - end} bytes omitted]`;
}
