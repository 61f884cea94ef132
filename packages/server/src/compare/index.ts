// What `signalbox compare` and the differential and migration tests share: seeded contexts,
// SDK document normalisation and the comparison itself.
export {
  type Answer,
  type CompareOptions,
  type Comparison,
  compareDocuments,
  type Disagreement,
} from "./compare.js";
export {
  type ContextPools,
  type GeneratedContext,
  generateContexts,
  poolsFrom,
  type WireContext,
} from "./contexts.js";
export {
  canonical,
  type Document,
  isDocument,
  NORMALISATIONS,
  type Normalisation,
  normalise,
} from "./documents.js";
export { at, isObject, jsonDiff } from "./json-diff.js";
export { pairSeed, Random, randomSeed, type SeededMath, withSeededMath } from "./random.js";
