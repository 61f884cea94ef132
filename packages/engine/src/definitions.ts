// The client-features document (GET /api/client/features) and the delta events of
// GET /api/client/delta, as the protocol package defines them. Types only: the engine
// never loads the protocol at run time, and it checks at run time what it reads.
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
} from "@signalbox/protocol";
