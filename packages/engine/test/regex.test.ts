import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { compileRe2 } from "../src/regex.js";
import { parseRegex } from "../src/regex-syntax.js";

// The engine matches most patterns without re2js (a string comparison or a DFA of its own):
// whatever form a pattern takes, its answers must be re2js's, character for character.

const re2 = (pattern: string, caseInsensitive: boolean) => {
  try {
    return RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch {
    return undefined;
  }
};

// Letters with case partners inside and outside ASCII (K and KELVIN SIGN, s and LONG S),
// newline for `.`, `$` and classes, a surrogate pair, lone surrogates, other non-ASCII.
// (Spread by code point: the lone low surrogate comes first, so that it pairs with nothing.)
const TEXT_CHARACTERS = [..."aAbBkKsS\u212a\u017f19_-. \n\t\v\r@éİ😀\udc00\ud800]^$"];
const text = fc.array(fc.constantFrom(...TEXT_CHARACTERS), { maxLength: 10 }).map((parts) => parts.join(""));

// Space-separated, then a space and a newline as themselves.
const ATOMS = String.raw`a b k K s S 1 _ - @ . \. \- \_ \$ \^ \{ \} \] \d \D \w \W \s \S \n \t \v \r \f
  ^ $ \A \z [a-c] [^a-c] [kK] [^s] [-a] [a-] [\d_] [^\W] [^\n] [A-Z] [^a-z] [\.\-] [\s\v] [^\d\t] [\S] [_\W]`
  .split(/\s+/)
  .concat(" ", "\n");
// Beyond what the engine reads itself: re2js answers, and the pattern must still be read whole.
const FOREIGN_ATOMS = ["[]a]", "[a-b-c]", "\\b", "\\pL", "(?s:.)", "é", "a{,2}", "\\x41", "[[:alpha:]]"];
const QUANTIFIERS = ["", "", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,}", "{2,3}?", "{0}"];

const pattern: fc.Arbitrary<string> = fc.letrec<{
  alternation: string;
  concatenation: string;
  piece: string;
}>((tie) => ({
  alternation: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("concatenation"),
    fc.tuple(tie("concatenation"), tie("concatenation")).map(([a, b]) => `${a}|${b}`),
  ),
  concatenation: fc.array(tie("piece"), { maxLength: 5 }).map((pieces) => pieces.join("")),
  piece: fc
    .tuple(
      fc.oneof(
        { depthSize: "small" },
        { arbitrary: fc.constantFrom(...ATOMS), weight: 20 },
        fc.constantFrom(...FOREIGN_ATOMS),
        tie("alternation").map((inner) => `(${inner})`),
        tie("alternation").map((inner) => `(?:${inner})`),
      ),
      fc.constantFrom(...QUANTIFIERS),
    )
    .map(([atom, quantifier]) => atom + quantifier),
})).alternation;

const flagged = fc
  .tuple(pattern, fc.boolean(), fc.boolean())
  .map(([body, inline, caseInsensitive]) => ({ pattern: inline ? `(?i)${body}` : body, caseInsensitive }));

describe("REGEX matching", () => {
  it("answers as re2js on generated patterns and texts", () => {
    fc.assert(
      fc.property(
        flagged,
        fc.array(text, { minLength: 1, maxLength: 20 }),
        ({ pattern, caseInsensitive }, texts) => {
          const reference = re2(pattern, caseInsensitive);
          const compiled = compileRe2(pattern, caseInsensitive);
          expect(compiled === undefined).toBe(reference === undefined);
          if (!reference || !compiled) return;
          for (const sample of texts)
            expect([sample, compiled.test(sample)]).toEqual([sample, reference.test(sample)]);
        },
      ),
      // REGEX_RUNS=40000 (and --testTimeout) searches deeper after a change to the matcher.
      { numRuns: Number(process.env.REGEX_RUNS ?? 3000) },
    );
  }, 60_000);

  it("reads most generated patterns itself, so that the comparison above tests its own matching", () => {
    const samples = fc.sample(flagged, { numRuns: 2000, seed: 42 });
    const valid = samples.filter(({ pattern, caseInsensitive }) => re2(pattern, caseInsensitive));
    const own = valid.filter(({ pattern, caseInsensitive }) => parseRegex(pattern, caseInsensitive));
    expect(own.length).toBeGreaterThan(valid.length * 0.5);
  });

  it("folds case as RE2 does: K with the Kelvin sign, s with the long s, never İ with i", () => {
    const matches = (pattern: string, sample: string, caseInsensitive = true) =>
      compileRe2(pattern, caseInsensitive)!.test(sample);
    expect(matches("^k$", "\u212a")).toBe(true);
    expect(matches("^[A-Z]+$", "\u017fK")).toBe(true);
    expect(matches("^[^k]$", "\u212a")).toBe(false);
    expect(matches("^\\W$", "\u212a")).toBe(false);
    expect(matches("^\\W$", "\u212a", false)).toBe(true);
    expect(matches("^i$", "\u0130")).toBe(false);
    expect(matches("(?i)^admin-", "ADMIN-1", false)).toBe(true);
  });

  it("reads a surrogate pair as one character and `$` as the end of the text only", () => {
    const matches = (pattern: string, sample: string) => compileRe2(pattern, false)!.test(sample);
    expect(matches("^.$", "😀")).toBe(true);
    expect(matches("^..$", "😀")).toBe(false);
    expect(matches("^..$", "\udc00x")).toBe(true);
    expect(matches("a$", "a\n")).toBe(false);
    expect(matches("^$", "")).toBe(true);
  });

  it("matches literal patterns and their alternatives by anchors", () => {
    const matches = (pattern: string, sample: string) => compileRe2(pattern, false)!.test(sample);
    expect(matches("^(beta|gamma)$", "gamma")).toBe(true);
    expect(matches("^(beta|gamma)$", "gammas")).toBe(false);
    expect(matches("^beta$|^gamma$", "beta")).toBe(true);
    expect(matches("^beta|gamma$", "a gamma")).toBe(true);
    expect(matches("@example\\.com$", "ann@example.com")).toBe(true);
    expect(matches("@example\\.com$", "ann@exampleXcom")).toBe(false);
    expect(matches("^admin", "the admin")).toBe(false);
    expect(matches("admin", "the admin")).toBe(true);
  });

  it("stays linear where a backtracking engine would not", () => {
    const nested = compileRe2("^(a+)+$", false)!;
    expect(nested.test(`${"a".repeat(50_000)}!`)).toBe(false);
    expect(nested.test("a".repeat(50_000))).toBe(true);
    // More DFA states than the engine keeps: re2js takes over, with the same answer.
    const wide = compileRe2("a[ab]{12}$", false)!;
    const sample = Array.from({ length: 4000 }, (_, i) => ((i * 7919) % 3 === 0 ? "a" : "b")).join("");
    expect(wide.test(sample)).toBe(re2("a[ab]{12}$", false)!.test(sample));
  });
});
