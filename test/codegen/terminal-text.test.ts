/** `escapeControls`: what the tools print from an extension holds no control a terminal would act on. */
import { describe, expect, test } from "bun:test";
import { escapeControls } from "../../codegen/terminal-text.ts";

const hex = (code: number) => `\\x${code.toString(16).padStart(2, "0")}`;

describe("escapeControls", () => {
  test("every C0 control but tab and LF, DEL and every C1 control becomes a visible \\xHH", () => {
    const controls = [...Array.from({ length: 0x20 }, (_, c) => c).filter((c) => c !== 0x09 && c !== 0x0a), 0x7f, ...Array.from({ length: 0x20 }, (_, c) => 0x80 + c)];
    expect(controls).toHaveLength(30 + 1 + 32);
    for (const code of controls) expect({ code, shown: escapeControls(`a${String.fromCharCode(code)}b`) }).toEqual({ code, shown: `a${hex(code)}b` });
  });

  test("the sequences a hostile extension writes are shown, not performed", () => {
    expect(escapeControls("\x1b]0;title\x07")).toBe("\\x1b]0;title\\x07");
    expect(escapeControls("\x1b]52;c;UFdORUQ=\x07")).toBe("\\x1b]52;c;UFdORUQ=\\x07");
    expect(escapeControls("\x1b[2J")).toBe("\\x1b[2J");
    expect(escapeControls("failing\rall tests passed")).toBe("failing\\x0dall tests passed");
    expect(escapeControls("\x9b31m")).toBe("\\x9b31m");
  });

  test("tab, LF and everything printable are left alone", () => {
    const text = "tab\there\nnext line: ASCII ~ é ß → 😀 \u00a0\u00ff \u2028 \ud800 \\x1b";
    expect(escapeControls(text)).toBe(text);
  });

  test("escaping twice changes nothing more", () => {
    const once = escapeControls("\x1b[31m\x00\x7f\x85\r\n");
    expect(once).toBe("\\x1b[31m\\x00\\x7f\\x85\\x0d\n");
    expect(escapeControls(once)).toBe(once);
  });
});
