/**
 * The test host's own check of `octet-canonical-json-v1`, written apart from
 * the runtime's encoder on purpose (docs/design.md "Two copies of the frame
 * rules"): a scanner that accepts exactly the canonical text of a value and
 * builds the value as it goes, so a runtime bug cannot pass its own check.
 * No whitespace; object members strictly ascending by their UTF-8 bytes;
 * strings escape `"` `\` with a backslash, BS FF LF CR TAB with their short
 * escapes and other controls below U+0020 as lowercase `\u00xx`, nothing
 * else; integers without sign on zero, leading zeros, fraction or exponent,
 * within ±9007199254740991; depth ≤ 32 (the frame itself at 0).
 */

const MAX_DEPTH = 32;
const MAX_INTEGER_TEXT = "9007199254740991";
const SHORT_ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const HAS_SHORT_ESCAPE = new Set(["\b", "\f", "\n", "\r", "\t"]);

/** The value of a canonical frame (its bytes without the LF), or why it is not canonical. */
export function checkCanonicalFrame(bytes: Uint8Array): { value: unknown } | { violation: string } {
  if (bytes.includes(13)) return { violation: "frame contains a CR" };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { violation: "frame is not valid UTF-8" };
  }
  const scanner = new Scanner(text);
  try {
    const value = scanner.value(0);
    if (scanner.at < text.length) scanner.fail("text after the value");
    return { value };
  } catch (error) {
    if (error instanceof NotCanonical) return { violation: `not octet-canonical-json-v1 at character ${error.at}: ${error.message}` };
    throw error;
  }
}

class NotCanonical extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

class Scanner {
  at = 0;
  constructor(private readonly text: string) {}

  fail(message: string): never {
    throw new NotCanonical(message, this.at);
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    const c = this.text[this.at];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.integer();
    for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    return this.fail(c === undefined ? "unexpected end" : `unexpected ${JSON.stringify(c)} (whitespace or not JSON)`);
  }

  private object(depth: number): Record<string, unknown> {
    this.at++;
    const out: Record<string, unknown> = {};
    let previous: Buffer | undefined;
    if (this.text[this.at] === "}") {
      this.at++;
      return out;
    }
    for (;;) {
      if (this.text[this.at] !== '"') this.fail("expected a member name");
      const keyAt = this.at;
      const key = this.string();
      const bytes = Buffer.from(key, "utf8");
      if (previous !== undefined && Buffer.compare(previous, bytes) >= 0) {
        this.at = keyAt;
        this.fail(Buffer.compare(previous, bytes) === 0 ? `duplicate member ${JSON.stringify(key)}` : `member ${JSON.stringify(key)} is out of UTF-8 byte order`);
      }
      previous = bytes;
      if (this.text[this.at] !== ":") this.fail("expected ':' right after the member name");
      this.at++;
      Object.defineProperty(out, key, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
      const next = this.text[this.at++];
      if (next === "}") return out;
      if (next !== ",") {
        this.at--;
        this.fail("expected ',' or '}'");
      }
    }
  }

  private array(depth: number): unknown[] {
    this.at++;
    const out: unknown[] = [];
    if (this.text[this.at] === "]") {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      const next = this.text[this.at++];
      if (next === "]") return out;
      if (next !== ",") {
        this.at--;
        this.fail("expected ',' or ']'");
      }
    }
  }

  private string(): string {
    this.at++;
    let out = "";
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) this.fail("unterminated string");
      if (c === '"') {
        this.at++;
        return out;
      }
      const code = c.charCodeAt(0);
      if (code < 0x20) this.fail(`raw control character U+${code.toString(16).padStart(4, "0")} in a string`);
      if (c !== "\\") {
        out += c;
        this.at++;
        continue;
      }
      const e = this.text[this.at + 1];
      if (e !== undefined && Object.hasOwn(SHORT_ESCAPES, e)) {
        out += SHORT_ESCAPES[e];
        this.at += 2;
        continue;
      }
      if (e === "u") {
        const hex = this.text.slice(this.at + 2, this.at + 6);
        if (!/^00[01][0-9a-f]$/.test(hex)) this.fail(`escape \\u${hex} is not canonical (only controls below U+0020, in lowercase hex)`);
        const char = String.fromCharCode(Number.parseInt(hex, 16));
        if (HAS_SHORT_ESCAPE.has(char)) this.fail(`\\u${hex} must be written with its short escape`);
        out += char;
        this.at += 6;
        continue;
      }
      this.fail(`escape \\${e ?? ""} is not canonical`);
    }
  }

  private integer(): number {
    const start = this.at;
    if (this.text[this.at] === "-") this.at++;
    const digitsAt = this.at;
    while (this.text[this.at] !== undefined && this.text[this.at]! >= "0" && this.text[this.at]! <= "9") this.at++;
    const digits = this.text.slice(digitsAt, this.at);
    if (digits === "") this.fail("a number needs digits");
    if (digits.length > 1 && digits[0] === "0") this.fail("leading zero");
    if (digits === "0" && digitsAt > start) this.fail("-0 is not canonical");
    const next = this.text[this.at];
    if (next === "." || next === "e" || next === "E") this.fail("API 0.3 numbers are integers (no fraction or exponent)");
    if (digits.length > MAX_INTEGER_TEXT.length || (digits.length === MAX_INTEGER_TEXT.length && digits > MAX_INTEGER_TEXT)) this.fail(`integer outside ±${MAX_INTEGER_TEXT}`);
    return Number(this.text.slice(start, this.at));
  }
}
