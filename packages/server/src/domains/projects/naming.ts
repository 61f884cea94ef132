import { compileRe2, type Re2Pattern } from "@signalbox/engine";
import { invalidField } from "@signalbox/protocol";

import type { FeatureNaming } from "./schemas.js";

/**
 * A project's naming pattern as flag names are checked against it: the whole name must
 * match, as if the pattern were written between `^` and `$` (the reference's rule). It is
 * read as RE2, like REGEX constraints, so no pattern can make a flag's creation stall;
 * undefined when RE2 refuses it.
 */
const namingPattern = (pattern: string): Re2Pattern | undefined => compileRe2(`^(?:${pattern})$`, false);

/** Refuses a pattern that does not compile, an example it rejects, and text without a pattern. */
export function checkNaming(naming: FeatureNaming): void {
  const { pattern, example, description } = naming;
  if (pattern === null) {
    if (example) throw invalidField("featureNaming.example", "An example needs a pattern to match");
    if (description) throw invalidField("featureNaming.description", "A description needs a pattern");
    return;
  }
  const compiled = namingPattern(pattern);
  if (!compiled) {
    throw invalidField(
      "featureNaming.pattern",
      "featureNaming.pattern is not a valid RE2 regular expression (look-around and back-references are not RE2)",
    );
  }
  if (example !== null && !compiled.test(example)) {
    throw invalidField(
      "featureNaming.example",
      `The example "${example}" does not match the pattern "${pattern}" (the whole name must match)`,
    );
  }
}

/** Refuses a new flag's name that the project's pattern does not match. */
export function checkFlagName(naming: FeatureNaming, name: string): void {
  const { pattern, example, description } = naming;
  if (!pattern) return;
  const compiled = namingPattern(pattern);
  if (!compiled) {
    // Stored before patterns were read as RE2: say so rather than guess what it meant.
    throw invalidField(
      "name",
      `The project's naming pattern "${pattern}" is not valid RE2: change it in the project's settings first`,
    );
  }
  if (!compiled.test(name)) {
    const hints = [example && `for example "${example}"`, description].filter(Boolean).join("; ");
    throw invalidField(
      "name",
      `The flag name must match the project's pattern "${pattern}"${hints ? ` (${hints})` : ""}`,
    );
  }
}
