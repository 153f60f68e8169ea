/** Text from an extension, made safe to print on the author's terminal. */

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * `text` with every C0 control but tab and LF, DEL and every C1 control
 * (U+0080–U+009F) written as a visible `\xHH`: ESC is `\x1b`, CR `\x0d`,
 * the C1 CSI `\x9b`. Nothing else changes, and the result holds no control
 * to escape again. Everything the tools print from an extension goes through
 * it (docs/security.md).
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
