/**
 * A string that a JSON Schema `pattern` matches, for sample arguments: the
 * simple patterns tool schemas use (literals, classes, groups, alternation,
 * quantifiers, anchors) are generated; every candidate is checked with the
 * pattern itself, so a pattern beyond this subset gives `undefined`, never a
 * wrong string.
 */

type Node =
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "chars"; chars: string[] }
  | { kind: "repeat"; node: Node; min: number; max: number }
  | { kind: "empty" };

class Unsupported extends Error {}

/** Printable ASCII, most readable first: what a class or escape is sampled from. */
const POOL = [..."abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_-. "].concat(
  Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => !/[a-zA-Z0-9_\-. ]/.test(c)),
);

/** Longest run of repeats tried beyond each quantifier's minimum. */
const MAX_EXTRA = 64;

/** A string of `min`..`max` code points that `pattern` matches (ECMAScript, `u` flag, unanchored as JSON Schema reads it), or undefined. */
export function samplePattern(pattern: string, min: number, max: number, variant = 0): string | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, "u");
  } catch {
    try {
      regex = new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
  const fits = (value: string) => {
    const length = [...value].length;
    return length >= min && length <= max && regex.test(value);
  };
  let tree: Node | undefined;
  try {
    tree = new Parser(pattern).parse();
  } catch {
    tree = undefined;
  }
  const tried = new Set<string>();
  const attempt = (value: string): string | undefined => {
    if (tried.has(value)) return undefined;
    tried.add(value);
    if (fits(value)) return value;
    // JSON Schema patterns are unanchored: text around a match still matches.
    const short = min - [...value].length;
    if (short > 0) for (const pad of ["a", "0", " "]) if (fits(value + pad.repeat(short))) return value + pad.repeat(short);
    return undefined;
  };
  const limit = Math.min(MAX_EXTRA, Math.max(min, 1));
  for (const v of variant === 0 ? [0] : [variant, 0]) {
    for (let extra = 0; tree && extra <= limit; extra++) {
      const found = attempt(build(tree, extra, v));
      if (found !== undefined) return found;
    }
  }
  for (const c of ["a", "0", "A", "-", " "]) {
    const found = attempt(c.repeat(Math.max(min, 1)));
    if (found !== undefined) return found;
  }
  return attempt("");
}

function build(node: Node, extra: number, variant: number): string {
  switch (node.kind) {
    case "seq":
      return node.items.map((item) => build(item, extra, variant)).join("");
    case "alt":
      return build(node.options[variant % node.options.length]!, extra, variant);
    case "chars":
      return node.chars[variant % node.chars.length]!;
    case "repeat": {
      const count = Math.min(node.max, node.min + extra);
      return Array.from({ length: count }, () => build(node.node, extra, variant)).join("");
    }
    case "empty":
      return "";
  }
}

class Parser {
  private at = 0;

  constructor(private readonly source: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.source.length) throw new Unsupported(`unexpected ${this.source[this.at]}`);
    return node;
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === "|") {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: "alt", options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.peek() !== "|" && this.peek() !== ")") items.push(this.quantified(this.atom()));
    return { kind: "seq", items };
  }

  private atom(): Node {
    const c = this.source[this.at++]!;
    switch (c) {
      case "^":
      case "$":
        return { kind: "empty" };
      case ".":
        return { kind: "chars", chars: ["a", "b", "c"] };
      case "(":
        return this.group();
      case "[":
        return this.characterClass();
      case "\\":
        return this.escape();
      case "*":
      case "+":
      case "?":
      case "{":
        if (c === "{" && !/^\d/.test(this.source.slice(this.at))) return { kind: "chars", chars: [c] };
        throw new Unsupported("nothing to repeat");
      default:
        return { kind: "chars", chars: [c] };
    }
  }

  private group(): Node {
    if (this.source.startsWith("?:", this.at)) this.at += 2;
    else if (/^\?<[A-Za-z_$][\w$]*>/.test(this.source.slice(this.at))) this.at = this.source.indexOf(">", this.at) + 1;
    else if (this.peek() === "?") throw new Unsupported("lookaround");
    const node = this.alternation();
    if (this.source[this.at++] !== ")") throw new Unsupported("unclosed group");
    return node;
  }

  private characterClass(): Node {
    // Find the end, then let the engine say which pool characters the class admits.
    let end = this.at;
    if (this.source[end] === "^") end++;
    if (this.source[end] === "]") end++;
    while (end < this.source.length && this.source[end] !== "]") end += this.source[end] === "\\" ? 2 : 1;
    if (end >= this.source.length) throw new Unsupported("unclosed class");
    const text = this.source.slice(this.at - 1, end + 1);
    this.at = end + 1;
    return { kind: "chars", chars: admitted(text, text.startsWith("[^") ? undefined : text[1]) };
  }

  private escape(): Node {
    const c = this.source[this.at++];
    if (c === undefined) throw new Unsupported("trailing backslash");
    if ("dDwWsS".includes(c)) return { kind: "chars", chars: admitted(`\\${c}`) };
    if (c === "p" || c === "P") {
      const close = this.source.indexOf("}", this.at);
      if (this.peek() !== "{" || close === -1) throw new Unsupported("property escape");
      const text = this.source.slice(this.at - 2, close + 1);
      this.at = close + 1;
      return { kind: "chars", chars: admitted(text) };
    }
    if (c === "b" || c === "B") return { kind: "empty" };
    if (/[1-9k]/.test(c)) throw new Unsupported("back reference");
    const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", "0": "\0" };
    if (c in simple) return { kind: "chars", chars: [simple[c]!] };
    if (c === "x" || c === "u") {
      const braced = c === "u" && this.peek() === "{";
      const match = braced ? /^\{([0-9a-fA-F]+)\}/.exec(this.source.slice(this.at)) : new RegExp(`^[0-9a-fA-F]{${c === "x" ? 2 : 4}}`).exec(this.source.slice(this.at));
      if (!match) throw new Unsupported("escape");
      this.at += match[0].length;
      return { kind: "chars", chars: [String.fromCodePoint(parseInt(braced ? match[1]! : match[0], 16))] };
    }
    return { kind: "chars", chars: [c] };
  }

  private quantified(node: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!match) return node;
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] === "" ? Infinity : Number(match[3]);
      this.at += match[0].length - 1;
    } else return node;
    this.at++;
    if (this.peek() === "?") this.at++; // lazy: the same strings
    return { kind: "repeat", node, min, max };
  }
}

/** The pool characters `classText` admits; else its first literal character, when it has one. */
function admitted(classText: string, first?: string): string[] {
  let regex: RegExp;
  try {
    regex = new RegExp(`^${classText}$`, "u");
  } catch {
    throw new Unsupported("class");
  }
  const chars = POOL.filter((c) => regex.test(c));
  if (chars.length > 0) return chars;
  if (first !== undefined && first !== "\\" && regex.test(first)) return [first];
  throw new Unsupported("class beyond printable ASCII");
}
