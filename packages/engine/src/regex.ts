// REGEX constraints follow RE2 syntax (what the other SDKs use), so a pattern is
// translated to a JavaScript RegExp: inline flags become RegExp flags, POSIX classes
// become ranges, and what RE2 rejects (look-around, back-references) is rejected.

const POSIX_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** The RegExp for an RE2 pattern, or undefined when RE2 would not accept it. */
export function compileRe2(pattern: string, caseInsensitive: boolean): RegExp | undefined {
  const flags = new Set<string>(caseInsensitive ? ["i"] : []);
  let source = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return undefined;
      if (/[1-9]/.test(next) || next === "k") return undefined;
      if (!inClass && next === "A") source += "^";
      else if (!inClass && next === "z") source += "$";
      else source += char + next;
      i++;
      continue;
    }
    if (inClass) {
      if (char === "[" && pattern[i + 1] === ":") {
        const end = pattern.indexOf(":]", i + 2);
        const range = end < 0 ? undefined : POSIX_CLASSES[pattern.slice(i + 2, end)];
        if (range === undefined) return undefined;
        source += range;
        i = end + 1;
        continue;
      }
      if (char === "]") inClass = false;
      source += char;
      continue;
    }
    if (char === "[") {
      inClass = true;
      source += char;
      if (pattern[i + 1] === "^") source += pattern[++i];
      // A leading `]` is a literal in RE2.
      if (pattern[i + 1] === "]") {
        source += "\\]";
        i++;
      }
      continue;
    }
    if (char === "(" && pattern[i + 1] === "?") {
      const rest = pattern.slice(i + 2);
      const inline = /^([ims]+)([:)])/.exec(rest);
      if (inline) {
        // JavaScript has no scoped flags before Node 23: apply them to the whole pattern.
        for (const flag of inline[1]!) flags.add(flag);
        if (inline[2] === ":") source += "(?:";
        i += 1 + inline[0].length;
        continue;
      }
      if (rest.startsWith("P<")) {
        source += "(?<";
        i += 3;
        continue;
      }
      if (/^[=!]|^<[=!]/.test(rest)) return undefined;
    }
    source += char;
  }
  try {
    return new RegExp(source, [...flags].join(""));
  } catch {
    return undefined;
  }
}
