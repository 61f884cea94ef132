import { invalidField } from "../../http/errors.js";

export interface FeatureNaming {
  pattern: string | null;
  example: string | null;
  description: string | null;
}

/**
 * A project's naming pattern as flag names are checked against it: the whole name must
 * match, as if the pattern were written between `^` and `$` (the reference's rule).
 */
export const namingPattern = (pattern: string): RegExp => new RegExp(`^(?:${pattern})$`);

/** Refuses a pattern that does not compile, an example it rejects, and text without a pattern. */
export function checkNaming(naming: FeatureNaming): void {
  const { pattern, example, description } = naming;
  if (pattern === null) {
    if (example) throw invalidField("featureNaming.example", "An example needs a pattern to match");
    if (description) throw invalidField("featureNaming.description", "A description needs a pattern");
    return;
  }
  let compiled: RegExp;
  try {
    compiled = namingPattern(pattern);
  } catch (error) {
    throw invalidField(
      "featureNaming.pattern",
      `featureNaming.pattern is not a valid regular expression: ${(error as Error).message}`,
    );
  }
  if (example !== null && !compiled.test(example)) {
    throw invalidField(
      "featureNaming.example",
      `The example "${example}" does not match the pattern "${pattern}" (the whole name must match)`,
    );
  }
}
