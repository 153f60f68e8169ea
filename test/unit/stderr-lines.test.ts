/** The test host's stderr splitter (src/testing/stderr-lines.ts): lines as octet cuts them, however the bytes arrive. */
import { expect, test } from "bun:test";
import { type LinePart, StderrLineSplitter } from "../../src/testing/stderr-lines.ts";

function split(chunks: (string | Uint8Array)[], maxBytes: number): [string, LinePart][] {
  const out: [string, LinePart][] = [];
  const splitter = new StderrLineSplitter(maxBytes, (line, part) => out.push([line, part]));
  for (const chunk of chunks) splitter.push(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
  splitter.end();
  return out;
}

/** What the splitter must produce for `text`: each line, cut into pieces of at most `max` bytes on character boundaries. */
function reference(text: string, max: number): [string, LinePart][] {
  const out: [string, LinePart][] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    const pieces: string[] = [];
    let piece = "";
    for (const char of line) {
      if (Buffer.byteLength(piece + char) > max) {
        pieces.push(piece);
        piece = "";
      }
      piece += char;
    }
    if (piece !== "" || pieces.length === 0) pieces.push(piece);
    pieces.forEach((p, i) => out.push([p, pieces.length === 1 ? "whole" : i === 0 ? "first" : "more"]));
  }
  return out;
}

test("short lines, CRLF kept, an empty line, and a last line without LF", () => {
  expect(split(["a\r\nb", "c\n\nlast"], 16)).toEqual([["a\r", "whole"], ["bc", "whole"], ["", "whole"], ["last", "whole"]]);
});

test("a long line arrives in pieces of at most the limit, never splitting a character; one exactly at the limit is whole", () => {
  expect(split(["abcdé", "fgh\n"], 4)).toEqual([["abcd", "first"], ["éfg", "more"], ["h", "more"]]);
  expect(split(["abcd\nxy\n"], 4)).toEqual([["abcd", "whole"], ["xy", "whole"]]);
  expect(split(["abcde\n"], 4)).toEqual([["abcd", "first"], ["e", "more"]]);
  expect(split(["abcdefgh", "\nz\n"], 4)).toEqual([["abcd", "first"], ["efgh", "more"], ["z", "whole"]]);
});

test("a chunk larger than the limit holding many lines: each line judged on its own", () => {
  expect(split(["ab\n" + "x".repeat(9) + "\ncd\n"], 4)).toEqual([["ab", "whole"], ["xxxx", "first"], ["xxxx", "more"], ["x", "more"], ["cd", "whole"]]);
});

test("random text in random chunks splits exactly as the reference does", () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const alphabet = ["a", "b", "é", "€", "😀", "\n", "\n", "\r"];
  for (let round = 0; round < 200; round++) {
    const max = 4 + Math.floor(random() * 40);
    let text = "";
    const length = Math.floor(random() * 400);
    for (let i = 0; i < length; i++) text += random() < 0.02 ? "x".repeat(Math.floor(random() * 3 * max)) : alphabet[Math.floor(random() * alphabet.length)];
    const bytes = new TextEncoder().encode(text);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + Math.floor(random() * (random() < 0.2 ? 4 * max : 8));
      chunks.push(bytes.slice(at, at + size));
      at += size;
    }
    expect(split(chunks, max)).toEqual(reference(text, max));
  }
});
