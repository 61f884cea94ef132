/**
 * A multi-select's placeholder, saying what to pick, while nothing is picked: Mantine keeps
 * showing it after the chosen values, where it would read as one of them.
 */
export const pickHint = (picked: readonly unknown[], hint: string): string | undefined =>
  picked.length === 0 ? hint : undefined;
