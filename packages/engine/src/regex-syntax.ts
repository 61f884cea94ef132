// The part of RE2's syntax that flag rules use in practice (literals, classes, `.`, `\d\w\s`,
// anchors, groups, alternation, repetition), parsed into a tree the engine can match without
// re2js. Anything else (Unicode classes, word boundaries, flags other than a leading `(?i)`,
// non-ASCII pattern text, constructs whose reading differs between engines) is left to re2js:
// `parseRegex` answers undefined. Patterns reach it only after re2js accepted them.

/**
 * Matching reads a text as symbols: an ASCII character is its code, every other character
 * (a surrogate pair counting as one) is `OTHER`, since no class built from ASCII text tells
 * two non-ASCII characters apart. Case-insensitive matching folds the text first (see `foldedSymbol`).
 */
export const OTHER = 128;
export const SYMBOLS = 129;

/** Which symbols a position accepts, indexed by symbol. */
export type CharSet = Uint8Array;

export type RegexNode =
  | { kind: "char"; set: CharSet }
  | { kind: "begin" }
  | { kind: "end" }
  | { kind: "concat"; items: RegexNode[] }
  | { kind: "alternate"; items: RegexNode[] }
  /** `max` is undefined when unbounded. */
  | { kind: "repeat"; item: RegexNode; min: number; max: number | undefined };

export interface ParsedRegex {
  root: RegexNode;
  /** The constraint's flag or a leading `(?i)`: the text is folded before matching. */
  caseInsensitive: boolean;
}

// The only characters outside ASCII that RE2's simple case folding joins to ASCII letters
// (checked over every code point): KELVIN SIGN to k, LATIN SMALL LETTER LONG S to s.
const KELVIN = 0x212a;
const LONG_S = 0x17f;

/** The symbol of the character `code` (not a surrogate pair), folded when case-insensitive. */
export function foldedSymbol(code: number, caseInsensitive: boolean): number {
  if (code < OTHER) return caseInsensitive && code >= 65 && code <= 90 ? code + 32 : code;
  if (caseInsensitive) {
    if (code === KELVIN) return 107;
    if (code === LONG_S) return 115;
  }
  return OTHER;
}

class Unsupported extends Error {}

const REPEAT_LIMIT = 1000; // RE2's
const ESCAPED_CONTROLS: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };
const isDigit = (code: number) => code >= 48 && code <= 57;
const isAlphanumeric = (code: number) =>
  isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
// RE2 reads a backslash before any other ASCII character as that character.
const isPunctuation = (code: number) => code > 32 && code < 127 && !isAlphanumeric(code);

const PERL_CLASSES: Record<string, (code: number) => boolean> = {
  d: isDigit,
  s: (code) => code === 9 || code === 10 || code === 12 || code === 13 || code === 32,
  w: (code) => isAlphanumeric(code) || code === 95,
};

class Parser {
  private position = 0;

  constructor(
    private readonly pattern: string,
    private readonly caseInsensitive: boolean,
  ) {}

  parse(): RegexNode {
    const root = this.alternation();
    if (this.position !== this.pattern.length) throw new Unsupported();
    return root;
  }

  private peek(): string | undefined {
    return this.pattern[this.position];
  }

  private alternation(): RegexNode {
    const items = [this.concatenation()];
    while (this.peek() === "|") {
      this.position++;
      items.push(this.concatenation());
    }
    return items.length === 1 ? items[0]! : { kind: "alternate", items };
  }

  private concatenation(): RegexNode {
    const items: RegexNode[] = [];
    for (let next = this.peek(); next !== undefined && next !== "|" && next !== ")"; next = this.peek()) {
      items.push(this.repetition(this.atom()));
    }
    return items.length === 1 ? items[0]! : { kind: "concat", items };
  }

  private repetition(item: RegexNode): RegexNode {
    const bounds = this.quantifier();
    if (!bounds) return item;
    // A repeated anchor or a second quantifier (`a**`) is read differently by engines.
    if (item.kind === "begin" || item.kind === "end") throw new Unsupported();
    if (this.peek() === "?") this.position++; // non-greedy: the same texts match
    if (this.quantifier()) throw new Unsupported();
    return { kind: "repeat", item, min: bounds[0], max: bounds[1] };
  }

  private quantifier(): [number, number | undefined] | undefined {
    const next = this.peek();
    if (next === "*" || next === "+" || next === "?") {
      this.position++;
      return next === "*" ? [0, undefined] : next === "+" ? [1, undefined] : [0, 1];
    }
    if (next !== "{") return undefined;
    // Only the forms RE2 reads as repetition; a `{` that is not one is a literal there.
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.pattern.slice(this.position));
    if (!match) throw new Unsupported();
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === "" ? undefined : Number(match[3]);
    if (min > REPEAT_LIMIT || (max !== undefined && (max > REPEAT_LIMIT || max < min)))
      throw new Unsupported();
    this.position += match[0].length;
    return [min, max];
  }

  private atom(): RegexNode {
    const code = this.pattern.charCodeAt(this.position);
    const next = this.pattern[this.position++]!;
    switch (next) {
      case "(": {
        if (this.peek() === "?") {
          // Only a non-capturing group; named groups and flag groups are left to re2js.
          if (this.pattern[this.position + 1] !== ":") throw new Unsupported();
          this.position += 2;
        }
        const inner = this.alternation();
        if (this.peek() !== ")") throw new Unsupported();
        this.position++;
        return inner;
      }
      case ".":
        return this.char(this.set((symbol) => symbol !== 10, true));
      case "^":
        return { kind: "begin" };
      case "$":
        return { kind: "end" };
      case "[":
        return this.char(this.characterClass());
      case "\\":
        return this.escape();
      case "*":
      case "+":
      case "?":
      case "{":
      case "}":
      case "]":
        throw new Unsupported();
      default:
        if (code >= OTHER) throw new Unsupported();
        return this.char(this.set((symbol) => symbol === code, false));
    }
  }

  private escape(): RegexNode {
    const letter = this.pattern[this.position++];
    if (letter === "A") return { kind: "begin" };
    if (letter === "z") return { kind: "end" };
    const set = letter === undefined ? undefined : this.escapedSet(letter);
    if (!set) throw new Unsupported();
    return this.char(set);
  }

  /** `\d`, `\W`, `\n`, `\.` and the like, inside or outside a class. */
  private escapedSet(letter: string): CharSet | undefined {
    const perl = PERL_CLASSES[letter.toLowerCase()];
    if (perl)
      return letter === letter.toLowerCase() ? this.set(perl, false) : this.set((c) => !perl(c), true);
    const code = ESCAPED_CONTROLS[letter] ?? letter.charCodeAt(0);
    if (ESCAPED_CONTROLS[letter] === undefined && !isPunctuation(code)) return undefined;
    return this.set((symbol) => symbol === code, false);
  }

  private characterClass(): CharSet {
    const negated = this.peek() === "^";
    if (negated) this.position++;
    const members = new Uint8Array(SYMBOLS);
    const add = (set: CharSet) => {
      for (let symbol = 0; symbol < SYMBOLS; symbol++) members[symbol] = members[symbol]! | set[symbol]!;
    };
    let first = true;
    for (;;) {
      const next = this.pattern[this.position];
      if (next === undefined || next === "[" || (first && next === "]")) throw new Unsupported();
      if (next === "]") break;
      const atEdge = first || this.pattern[this.position + 1] === "]";
      first = false;
      if (next === "\\") {
        this.position++;
        const set = this.escapedSet(this.pattern[this.position++] ?? "");
        if (!set) throw new Unsupported();
        add(set);
        continue;
      }
      const low = this.pattern.charCodeAt(this.position++);
      if (low >= OTHER || (next === "-" && !atEdge)) throw new Unsupported();
      let high = low;
      if (this.peek() === "-" && this.pattern[this.position + 1] !== "]") {
        high = this.pattern.charCodeAt(this.position + 1);
        if (high >= OTHER || high < low || "\\[]".includes(this.pattern[this.position + 1]!)) {
          throw new Unsupported();
        }
        this.position += 2;
      }
      add(this.set((symbol) => symbol >= low && symbol <= high, false));
    }
    this.position++;
    if (!negated) return members;
    // RE2 folds a class before negating it, so `(?i)[^k]` refuses K as well as k.
    for (let symbol = 0; symbol < SYMBOLS; symbol++) members[symbol] = members[symbol]! ^ 1;
    return members;
  }

  /** The symbols `accepts` takes, case-folded when the pattern is case-insensitive. */
  private set(accepts: (code: number) => boolean, other: boolean): CharSet {
    const members = new Uint8Array(SYMBOLS);
    for (let code = 0; code < OTHER; code++) {
      if (accepts(code)) members[foldedSymbol(code, this.caseInsensitive)] = 1;
    }
    members[OTHER] = other ? 1 : 0;
    return members;
  }

  private char(set: CharSet): RegexNode {
    return { kind: "char", set };
  }
}

/** The pattern as a tree, or undefined when it uses syntax left to re2js. */
export function parseRegex(pattern: string, caseInsensitive: boolean): ParsedRegex | undefined {
  const inline = pattern.startsWith("(?i)");
  const folded = caseInsensitive || inline;
  try {
    return { root: new Parser(inline ? pattern.slice(4) : pattern, folded).parse(), caseInsensitive: folded };
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}
