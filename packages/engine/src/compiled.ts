import type { ConstraintCheck, Predicate } from "./constraints.js";
import type { SegmentDefinition, StrategyDefinition } from "./definitions.js";
import type { StrategyTest } from "./strategies.js";
import type { VariantPicker } from "./variants.js";

// What a strategy compiles to: evaluated by the snapshot, reported on by `explain`.

/**
 * A segment a strategy names; `segment` is undefined when the document lacks it. One object
 * serves every strategy that names the segment.
 */
export interface CompiledSegment {
  id: number;
  segment: SegmentDefinition | undefined;
  checks: ConstraintCheck[];
  /** The checks as one predicate, remembered for an evaluation call; undefined when there are none. */
  holds: Predicate | undefined;
}

export interface CompiledStrategy {
  definition: StrategyDefinition;
  /** Its own constraints and its segments', one by one: what `explain` reports. */
  checks: ConstraintCheck[];
  segments: CompiledSegment[];
  /** The same checks as one predicate, for evaluation. */
  constraints: Predicate | undefined;
  test: StrategyTest;
  variants: VariantPicker | undefined;
}
