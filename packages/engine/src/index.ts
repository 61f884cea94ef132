export { CONSTRAINT_OPERATORS, type ConstraintOperator, constraintProblem } from "./constraints.js";
export type {
  Context,
  CustomStrategy,
  Decision,
  Evaluation,
  EvaluationOptions,
  PayloadResult,
  VariantResult,
} from "./context.js";
export type {
  ClientFeatures,
  ConstraintDefinition,
  DeltaDocument,
  DeltaEvent,
  DependencyDefinition,
  FeatureDefinition,
  OverrideDefinition,
  PayloadDefinition,
  SegmentDefinition,
  StrategyDefinition,
  VariantDefinition,
} from "./definitions.js";
export type {
  ConstraintExplanation,
  Explanation,
  SegmentExplanation,
  StrategyExplanation,
} from "./explain.js";
export { normalizedHash, VARIANT_SEED } from "./hash.js";
export { compileRe2, type Re2Pattern } from "./regex.js";
export { type CompileOptions, compile, Snapshot } from "./snapshot.js";
export { BUILT_IN_STRATEGIES, type BuiltInStrategy } from "./strategies.js";
