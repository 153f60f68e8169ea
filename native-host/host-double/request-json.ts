/**
 * The double's strict JSON reader for request lines (docs/native-host-protocol.md §3, §5
 * step 3). Unlike `JSON.parse` it
 *
 * - rejects a member name repeated inside one object, at any depth
 *   (`duplicate JSON field "<name>"`),
 * - keeps object members in source order (error precedence follows it),
 * - keeps every number's source text, so `1.0` stays distinguishable from `1`,
 * - reports errors in serde_json's words with a `line L column C` suffix.
 *
 * Non-finite constants (`NaN`, `Infinity`) are not JSON and fail as
 * `expected value`; a number too large for an f64 fails as `number out of range`.
 */

/** A JSON number, kept as written. */
export class JsonNumber {
  constructor(readonly source: string) {}

  /** True when the source has no fraction and no exponent. */
  get isInteger(): boolean {
    return !/[.eE]/.test(this.source);
  }

  get value(): number {
    return Number(this.source);
  }
}

/** A JSON object with its members in source order (names are unique). */
export class JsonObject {
  constructor(readonly entries: ReadonlyArray<readonly [string, JsonValue]>) {}

  has(key: string): boolean {
    return this.entries.some(([name]) => name === key);
  }

  get(key: string): JsonValue | undefined {
    for (const [name, value] of this.entries) if (name === key) return value;
    return undefined;
  }
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

/** A syntax error; `message` already carries the position suffix. */
export class JsonSyntaxError extends Error {}

/** serde_json's default nesting limit. */
const MAX_DEPTH = 128;

/** Parse one complete JSON text (surrounding whitespace allowed, nothing else). */
export function parseStrictJson(text: string): JsonValue {
  const reader = new Reader(text);
  reader.skipWhitespace();
  const value = reader.value(0);
  reader.skipWhitespace();
  if (!reader.atEnd()) reader.fail("trailing characters");
  return value;
}

class Reader {
  private pos = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  skipWhitespace(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.pos++;
    }
  }

  fail(reason: string, at: number = this.pos): never {
    let line = 1;
    let column = 0;
    const end = Math.min(at, this.text.length);
    for (let i = 0; i < end; i++) {
      if (this.text.charCodeAt(i) === 0x0a) {
        line++;
        column = 0;
      } else column++;
    }
    // serde_json reports the column of the offending character (1-based) or,
    // at end of input, the number of characters on the last line.
    if (at < this.text.length) column++;
    throw new JsonSyntaxError(`${reason} at line ${line} column ${column}`);
  }

  value(depth: number): JsonValue {
    if (this.atEnd()) this.fail("EOF while parsing a value");
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object(depth + 1);
      case "[":
        return this.array(depth + 1);
      case '"':
        return this.string();
      case "t":
        return this.ident("true", true);
      case "f":
        return this.ident("false", false);
      case "n":
        return this.ident("null", null);
      default:
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
        return this.fail("expected value");
    }
  }

  private ident<T>(word: string, result: T): T {
    for (let i = 0; i < word.length; i++) {
      if (this.pos >= this.text.length) this.fail("EOF while parsing a value");
      if (this.text[this.pos] !== word[i]) this.fail(i === 0 ? "expected value" : "expected ident");
      this.pos++;
    }
    return result;
  }

  private number(): JsonNumber {
    const start = this.pos;
    if (this.text[this.pos] === "-") this.pos++;
    const digits = (): number => {
      const from = this.pos;
      while (this.pos < this.text.length && this.isDigit(this.pos)) this.pos++;
      return this.pos - from;
    };
    if (this.atEnd()) this.fail("EOF while parsing a value");
    if (this.text[this.pos] === "0") {
      this.pos++;
      if (!this.atEnd() && this.isDigit(this.pos)) this.fail("invalid number");
    } else if (digits() === 0) this.fail("invalid number");
    if (this.text[this.pos] === ".") {
      this.pos++;
      if (this.atEnd()) this.fail("EOF while parsing a value");
      if (digits() === 0) this.fail("invalid number");
    }
    const e = this.text[this.pos];
    if (e === "e" || e === "E") {
      this.pos++;
      const sign = this.text[this.pos];
      if (sign === "+" || sign === "-") this.pos++;
      if (this.atEnd()) this.fail("EOF while parsing a value");
      if (digits() === 0) this.fail("invalid number");
    }
    const number = new JsonNumber(this.text.slice(start, this.pos));
    if (!Number.isFinite(number.value)) this.fail("number out of range", start);
    return number;
  }

  private isDigit(at: number): boolean {
    const c = this.text.charCodeAt(at);
    return c >= 0x30 && c <= 0x39;
  }

  private string(): string {
    this.pos++; // opening quote
    let out = "";
    let runStart = this.pos;
    for (;;) {
      if (this.atEnd()) this.fail("EOF while parsing a string");
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22) {
        out += this.text.slice(runStart, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail("control character (\\u0000-\\u001F) found while parsing a string");
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.text.slice(runStart, this.pos);
      this.pos++;
      out += this.escape();
      runStart = this.pos;
    }
  }

  private escape(): string {
    if (this.atEnd()) this.fail("EOF while parsing a string");
    const c = this.text[this.pos++];
    switch (c) {
      case '"':
        return '"';
      case "\\":
        return "\\";
      case "/":
        return "/";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "u": {
        const unit = this.hex4();
        if (unit >= 0xdc00 && unit <= 0xdfff) this.fail("invalid unicode code point");
        if (unit < 0xd800 || unit > 0xdbff) return String.fromCharCode(unit);
        if (this.text[this.pos] !== "\\" || this.text[this.pos + 1] !== "u") {
          this.fail("lone leading surrogate in hex escape");
        }
        this.pos += 2;
        const low = this.hex4();
        if (low < 0xdc00 || low > 0xdfff) this.fail("lone leading surrogate in hex escape");
        return String.fromCharCode(unit, low);
      }
      default:
        return this.fail("invalid escape", this.pos - 1);
    }
  }

  private hex4(): number {
    let unit = 0;
    for (let i = 0; i < 4; i++) {
      if (this.atEnd()) this.fail("EOF while parsing a string");
      const digit = parseInt(this.text[this.pos] ?? "", 16);
      if (Number.isNaN(digit)) this.fail("invalid escape");
      unit = unit * 16 + digit;
      this.pos++;
    }
    return unit;
  }

  private array(depth: number): JsonValue[] {
    if (depth > MAX_DEPTH) this.fail("recursion limit exceeded");
    this.pos++;
    const items: JsonValue[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return items;
    }
    for (;;) {
      this.skipWhitespace();
      items.push(this.value(depth));
      this.skipWhitespace();
      if (this.atEnd()) this.fail("EOF while parsing a list");
      const c = this.text[this.pos];
      if (c === "]") {
        this.pos++;
        return items;
      }
      if (c !== ",") this.fail("expected `,` or `]`");
      this.pos++;
      this.skipWhitespace();
      if (this.text[this.pos] === "]") this.fail("trailing comma");
    }
  }

  private object(depth: number): JsonObject {
    if (depth > MAX_DEPTH) this.fail("recursion limit exceeded");
    this.pos++;
    const entries: [string, JsonValue][] = [];
    const seen = new Set<string>();
    this.skipWhitespace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return new JsonObject(entries);
    }
    for (;;) {
      this.skipWhitespace();
      if (this.atEnd()) this.fail("EOF while parsing an object");
      if (this.text[this.pos] !== '"') this.fail("key must be a string");
      const keyAt = this.pos;
      const key = this.string();
      if (seen.has(key)) this.fail(`duplicate JSON field ${JSON.stringify(key)}`, keyAt);
      seen.add(key);
      this.skipWhitespace();
      if (this.atEnd()) this.fail("EOF while parsing an object");
      if (this.text[this.pos] !== ":") this.fail("expected `:`");
      this.pos++;
      this.skipWhitespace();
      entries.push([key, this.value(depth)]);
      this.skipWhitespace();
      if (this.atEnd()) this.fail("EOF while parsing an object");
      const c = this.text[this.pos];
      if (c === "}") {
        this.pos++;
        return new JsonObject(entries);
      }
      if (c !== ",") this.fail("expected `,` or `}`");
      this.pos++;
      this.skipWhitespace();
      if (this.text[this.pos] === "}") this.fail("trailing comma");
    }
  }
}
