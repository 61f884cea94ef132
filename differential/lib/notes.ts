// What a known difference says it is, shared by the code that finds the difference and by
// the table (known.ts) that accepts it.

export const INLINING_NOTE = "Signalbox inlines segment constraints for this client, the reference does not";
export const UNUSED_SEGMENTS_NOTE = "segments no listed flag uses";
export const REPEATED_DEPENDENCY_NOTE = "the reference lists a dependency more than once";
export const DISABLED_PARENT_NOTE = "a parent is switched off in this environment";
export const PARENT_REQUIRED_OFF_NOTE = "a dependency requires its parent off";
export const USER_WITH_ID_PARENT_NOTE = "a parent has a userWithId strategy";
export const DRAWING_PARENT_NOTE = "a parent required off has a strategy that may draw a random number";
export const TIED_ORDER_NOTE = "strategies of the flag in this environment share a sortOrder";
export const CASE_INSENSITIVE_IN_NOTE =
  "an IN or NOT_IN constraint marked case-insensitive meets the context's value only when case is ignored";
