// The shared comparison of JSON values, naming the side a key is missing from as the
// reference or Signalbox.
import { jsonDiff as diff } from "@signalbox/server/compare";

export { at } from "@signalbox/server/compare";

const SIDES = ["reference", "signalbox"] as const;

/** Paths at which the reference's value and Signalbox's differ. */
export const jsonDiff = (reference: unknown, signalbox: unknown): string[] =>
  diff(reference, signalbox, SIDES);
