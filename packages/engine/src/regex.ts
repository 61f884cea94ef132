import { RE2JS } from "re2js";
import { LazyDfa } from "./regex-automaton.js";
import { OTHER, parseRegex, type RegexNode } from "./regex-syntax.js";

// REGEX constraints are written in RE2 syntax, what the other SDKs evaluate with. RE2's
// promise is linear time in the input: a pattern such as `^(a+)+$` cannot stall evaluation,
// which JavaScript's backtracking RegExp would do on a long non-matching input. re2js is a
// pure-JavaScript RE2, so the engine still runs in a browser; it decides which patterns are
// valid, and matches those whose syntax the engine does not read itself. The others, nearly
// all that flag rules hold, become a string comparison when they are literal text, or else
// a DFA of their own: both linear too, and faster than re2js on the short texts of contexts.

export interface Re2Pattern {
  /** Whether the pattern matches anywhere in the text, as RE2's MatchString does. */
  test(text: string): boolean;
}

/** The text a node matches, when it matches exactly one (case-sensitive) text. */
function literalText(node: RegexNode): string | undefined {
  if (node.kind === "char") {
    let only: number | undefined;
    for (let symbol = 0; symbol <= OTHER; symbol++) {
      if (node.set[symbol] === 0) continue;
      if (only !== undefined || symbol === OTHER) return undefined;
      only = symbol;
    }
    return only === undefined ? undefined : String.fromCharCode(only);
  }
  if (node.kind !== "concat") return undefined;
  let text = "";
  for (const item of node.items) {
    const part = literalText(item);
    if (part === undefined) return undefined;
    text += part;
  }
  return text;
}

interface Literals {
  begin: boolean;
  end: boolean;
  texts: string[];
}

/** `^?(text|text…)$?`: literal alternatives, each anchored alike. */
function anchoredLiterals(node: RegexNode): Literals | undefined {
  const items = node.kind === "concat" ? node.items : [node];
  const begin = items[0]?.kind === "begin";
  const end = items.length > (begin ? 1 : 0) && items[items.length - 1]!.kind === "end";
  const middle = items.slice(begin ? 1 : 0, end ? -1 : undefined);
  const alternatives =
    middle.length === 1 && middle[0]!.kind === "alternate"
      ? middle[0]!.items
      : [{ kind: "concat", items: middle } as const];
  const texts: string[] = [];
  for (const alternative of alternatives) {
    const text = literalText(alternative);
    if (text === undefined) return undefined;
    texts.push(text);
  }
  return { begin, end, texts };
}

function literals(root: RegexNode): Literals | undefined {
  if (root.kind !== "alternate") return anchoredLiterals(root);
  const branches = root.items.map(anchoredLiterals);
  const first = branches[0];
  if (
    !first ||
    branches.some((branch) => !branch || branch.begin !== first.begin || branch.end !== first.end)
  ) {
    return undefined;
  }
  return { begin: first.begin, end: first.end, texts: branches.flatMap((branch) => branch!.texts) };
}

function literalTest({ begin, end, texts }: Literals): (text: string) => boolean {
  if (begin && end) {
    const set = new Set(texts);
    return (text) => set.has(text);
  }
  const found = begin
    ? (text: string, literal: string) => text.startsWith(literal)
    : end
      ? (text: string, literal: string) => text.endsWith(literal)
      : (text: string, literal: string) => text.includes(literal);
  if (texts.length === 1) {
    const literal = texts[0]!;
    return (text) => found(text, literal);
  }
  return (text) => {
    for (const literal of texts) if (found(text, literal)) return true;
    return false;
  };
}

/** The fastest safe test for a pattern RE2 accepts. */
function fastestTest(pattern: string, caseInsensitive: boolean, re2: RE2JS): (text: string) => boolean {
  const viaRe2 = (text: string) => re2.test(text);
  const parsed = parseRegex(pattern, caseInsensitive);
  if (!parsed) return viaRe2;
  const texts = parsed.caseInsensitive ? undefined : literals(parsed.root);
  if (texts) return literalTest(texts);
  const dfa = LazyDfa.of(parsed, viaRe2);
  return dfa ? (text) => dfa.test(text) : viaRe2;
}

// Documents repeat patterns across flags: compiled once, their DFA states are shared too.
const compiledPatterns = new Map<string, Re2Pattern | undefined>();
const CACHE_LIMIT = 1000;

/** The compiled RE2 pattern, or undefined when RE2 would not accept it. */
export function compileRe2(pattern: string, caseInsensitive: boolean): Re2Pattern | undefined {
  const key = `${caseInsensitive ? "i" : "-"}${pattern}`;
  if (compiledPatterns.has(key)) return compiledPatterns.get(key);
  let re2: RE2JS | undefined;
  try {
    re2 = RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch {
    re2 = undefined;
  }
  const compiled = re2 && { test: fastestTest(pattern, caseInsensitive, re2) };
  if (compiledPatterns.size >= CACHE_LIMIT) compiledPatterns.clear();
  compiledPatterns.set(key, compiled);
  return compiled;
}
