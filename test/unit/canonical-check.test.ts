/**
 * The test host's independent canonical check (src/testing/v03/canonical-check.ts)
 * against the runtime's encoder and decoder: two implementations that must
 * agree on every frame, written apart so that one's bug is the other's failure.
 */
import { describe, expect, test } from "bun:test";
import { checkCanonicalFrame } from "../../src/testing/v03/canonical-check.ts";
import { canonicalText } from "../../src/testing/v03/canonical-text.ts";
import { decodeCanonicalFrame } from "../../src/wire/canonical-decode.ts";
import { encodeCanonical } from "../../src/wire/canonical-frame.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const accepts = (text: string | Uint8Array) => "value" in checkCanonicalFrame(typeof text === "string" ? bytes(text) : text);
const runtimeAccepts = (text: string | Uint8Array) => {
  try {
    decodeCanonicalFrame(typeof text === "string" ? bytes(text) : text);
    return true;
  } catch {
    return false;
  }
};

describe("the independent check", () => {
  test("accepts octet's canonical-value fixture and returns its value", () => {
    const text = '{"control":"line\\n\\ttab\\bbackspace\\fpage\\rreturn\\\\slash/quote\\"","nested":{"a":"one","β":"two"},"z":[0,-17,9007199254740991],"é":"café","\ue000":"p","😀":"e"}';
    const checked = checkCanonicalFrame(bytes(text));
    expect(checked).toEqual({ value: { control: 'line\n\ttab\bbackspace\fpage\rreturn\\slash/quote"', nested: { a: "one", β: "two" }, z: [0, -17, 9007199254740991], é: "café", "\ue000": "p", "😀": "e" } });
  });

  const refused: [string, string][] = [
    ["UTF-16 member order (emoji before U+E000)", '{"😀":1,"\ue000":2}'],
    ["whitespace", '{"a": 1}'],
    ["a duplicate member", '{"a":1,"a":2}'],
    ["-0", "[-0]"],
    ["a leading zero", "[01]"],
    ["a fraction", "[1.0]"],
    ["an exponent", "[1e2]"],
    ["2^53", "[9007199254740992]"],
    ["\\u escape of a printable character", '["\\u0041"]'],
    ["\\u001F in uppercase", '["\\u001F"]'],
    ["\\u000a instead of \\n", '["\\u000a"]'],
    ["an escaped solidus", '["\\/"]'],
    ["a raw control character", '["\u0001"]'],
    ["a surrogate pair escape", '["\\ud83d\\ude00"]'],
    ["trailing text", "{}{}"],
    ["depth 33", `${"[".repeat(33)}1${"]".repeat(33)}`],
    ["a CR", "{}\r"],
  ];
  for (const [name, text] of refused) {
    test(`refuses ${name}, as the runtime does`, () => {
      expect(accepts(text)).toBe(false);
      expect(runtimeAccepts(text)).toBe(false);
    });
  }

  test("refuses invalid UTF-8 and an encoded lone surrogate", () => {
    expect(accepts(new Uint8Array([0x5b, 0x22, 0xc3, 0x28, 0x22, 0x5d]))).toBe(false);
    expect(accepts(new Uint8Array([0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d]))).toBe(false);
  });
});

// ---- agreement over random values and mutations ---------------------------------------------

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ["a", "Z", "0", " ", '"', "\\", "/", "\n", "\r", "\t", "\b", "\f", "\u0000", "\u001f", "\u007f", "é", "\u2028", "\ue000", "\uffff", "😀", "\u{10ffff}"];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 5 ? 4 : 6));
  const str = () => Array.from({ length: Math.floor(next() * 5) }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join("");
  if (pick === 0) return [null, true, false][Math.floor(next() * 3)];
  if (pick === 1) return Math.floor((next() - 0.5) * 2 * 9007199254740991);
  if (pick === 2 || pick === 3) return str();
  if (pick === 4) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [str(), value(next, depth + 1)]));
}

/** Small edits of a canonical text: most make it non-canonical, some leave it canonical. */
function mutations(text: string, next: () => number): string[] {
  const at = Math.floor(next() * (text.length + 1));
  const char = text[Math.floor(next() * text.length)] ?? "";
  return [text.slice(0, at) + " " + text.slice(at), text.slice(0, at) + text.slice(at + 1), text.slice(0, at) + char + text.slice(at), text.replace(/(\d)/, "$1.0"), text.replace(/"([^"\\])/, '"\\u00$1')];
}

describe("agreement over 2000 random values", () => {
  const next = random(20261205);
  const values = Array.from({ length: 2000 }, () => value(next, 0));

  test("the runtime's encoding passes the check and reads back as the same value; the host's encoder writes the same text", () => {
    for (const v of values) {
      const text = encodeCanonical(v);
      expect(checkCanonicalFrame(bytes(text))).toEqual({ value: v as any });
      expect(canonicalText(v)).toBe(text);
    }
  });

  test("on 10,000 mutated frames the check and the runtime's decoder accept and refuse the same ones", () => {
    let refused = 0;
    for (const v of values) {
      for (const mutated of mutations(encodeCanonical(v), next)) {
        const host = accepts(mutated);
        expect({ text: mutated, runtime: runtimeAccepts(mutated) }).toEqual({ text: mutated, runtime: host });
        if (!host) refused++;
      }
    }
    expect(refused).toBeGreaterThan(5000);
  });
});
