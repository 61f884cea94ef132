// Two SDK documents compared as their users would see them: flag by flag, the definitions
// after normalisation, and the answers Signalbox's engine gives for the same contexts.
import { type ClientFeatures, type Context, Snapshot } from "@signalbox/engine";
import { generateContexts, poolsFrom, type WireContext } from "./contexts.js";
import { type Document, NORMALISATIONS, type Normalisation, normalise } from "./documents.js";
import { jsonDiff } from "./json-diff.js";
import { pairSeed, Random, withSeededMath } from "./random.js";

export interface Answer {
  enabled: boolean;
  variant: { name: string; enabled: boolean; payload?: unknown; feature_enabled?: boolean };
}

export interface Disagreement {
  flag: string;
  /** Where its definitions differ after normalisation; empty when they do not. */
  paths: string[];
  /** How many contexts were answered differently. */
  contexts: number;
  /** The first of them, with both answers. */
  example?: { context: WireContext; from: Answer; to: Answer };
}

export interface Comparison {
  flags: number;
  contexts: number;
  evaluations: number;
  disagreements: Disagreement[];
  /** What was read as the same although written differently, once each. */
  notes: string[];
}

const SIDES = ["from", "to"] as const;

type Strategy = { segments?: unknown; constraints?: unknown };

/**
 * A strategy's segments as the constraints they stand for. Two services number segments
 * each their own way (a segment made again on the new one gets a new id), and segment
 * constraints only add to the strategy's: the answer is the same. A segment the document
 * lacks stays named, since it can never be met.
 */
const INLINE_SEGMENTS: Normalisation = {
  name: "segments are compared by their constraints, not their ids",
  why: "ids are each service's own; a segment's constraints hold with the strategy's",
  apply(document) {
    const segments = new Map(
      (document.segments ?? []).map((segment) => [
        segment.id,
        (segment as { constraints?: unknown[] }).constraints ?? [],
      ]),
    );
    for (const feature of document.features) {
      for (const strategy of (feature.strategies ?? []) as Strategy[]) {
        if (!Array.isArray(strategy.segments)) continue;
        const ids = strategy.segments as number[];
        if (ids.some((id) => !segments.has(id))) continue;
        strategy.constraints = [
          ...(Array.isArray(strategy.constraints) ? strategy.constraints : []),
          ...ids.flatMap((id) => segments.get(id)!),
        ];
        delete strategy.segments;
      }
    }
    delete document.segments;
  },
};

/**
 * A dependency listed more than once counts once: Unleash's listing repeats a dependency
 * once per row its query joins, and what was configured is one.
 */
const REPEATED_DEPENDENCIES: Normalisation = {
  name: "a dependency listed more than once counts once",
  why: "Unleash's listing repeats a dependency once per row its query joins, where one was configured; SDKs evaluate every copy, so a parent with a random rollout is drawn once per copy there",
  apply(document) {
    for (const feature of document.features) {
      if (!Array.isArray(feature.dependencies)) continue;
      const unique = new Map(
        feature.dependencies.map((dependency) => [JSON.stringify(dependency), dependency]),
      );
      if (unique.size < feature.dependencies.length) feature.dependencies = [...unique.values()];
    }
  },
};

/** Flags of a document whose listing repeats a dependency. */
const repeating = (document: Document) =>
  document.features.filter(
    (feature) =>
      Array.isArray(feature.dependencies) &&
      new Set(feature.dependencies.map((dependency) => JSON.stringify(dependency))).size <
        feature.dependencies.length,
  ).length;

function answerOf(snapshot: Snapshot, flag: string, context: WireContext): Answer {
  const { enabled, variant } = snapshot.evaluate(flag, context as Context);
  return { enabled, variant: { ...variant } };
}

export interface CompareOptions {
  /** How many contexts to evaluate every flag for. */
  contexts: number;
  /** The contexts' seed, and the draws' of random stickiness. */
  seed: number;
}

/**
 * Compares `to` with `from`: each flag's definition after normalisation, and each flag's
 * answer for generated contexts, both documents evaluated by the engine with the same
 * random draws.
 */
export function compareDocuments(from: Document, to: Document, options: CompareOptions): Comparison {
  const normalisations = [INLINE_SEGMENTS, REPEATED_DEPENDENCIES, ...NORMALISATIONS];
  const documents = { from: normalise(from, normalisations), to: normalise(to, normalisations) };
  const notes = SIDES.flatMap((side) => {
    const count = repeating(side === "from" ? from : to);
    return count > 0
      ? [
          `${count} flags of --${side} list a dependency more than once, compared as listed once: ${REPEATED_DEPENDENCIES.why}`,
        ]
      : [];
  });

  const byName = (document: Document) =>
    new Map(document.features.map((feature) => [String(feature.name), feature]));
  const definitions = { from: byName(documents.from), to: byName(documents.to) };
  const flags = [...new Set([...definitions.from.keys(), ...definitions.to.keys()])].sort();
  const found = new Map<string, Disagreement>();
  const disagreement = (flag: string) => {
    const known = found.get(flag) ?? { flag, paths: [], contexts: 0 };
    found.set(flag, known);
    return known;
  };
  for (const flag of flags) {
    const left = definitions.from.get(flag);
    const right = definitions.to.get(flag);
    const paths =
      left === undefined
        ? ["(only on --to)"]
        : right === undefined
          ? ["(only on --from)"]
          : jsonDiff(left, right, SIDES);
    if (paths.length > 0) disagreement(flag).paths = paths;
  }

  // The engine checks a document's shape as it compiles it: it reads documents off the network.
  const compile = (document: Document) => Snapshot.compile(document as unknown as ClientFeatures);
  const snapshots = { from: compile(documents.from), to: compile(documents.to) };
  const pools = poolsFrom([documents.from, documents.to]);
  const contexts = generateContexts(new Random(options.seed), options.contexts, pools.environments, pools);
  let evaluations = 0;
  withSeededMath((math) => {
    for (const { index, context } of contexts) {
      flags.forEach((flag, flagIndex) => {
        const seed = pairSeed(options.seed, index, flagIndex);
        math.restart(seed);
        const left = answerOf(snapshots.from, flag, context);
        math.restart(seed);
        const right = answerOf(snapshots.to, flag, context);
        evaluations++;
        if (jsonDiff(left, right, SIDES).length === 0) return;
        const found = disagreement(flag);
        found.contexts++;
        found.example ??= { context, from: left, to: right };
      });
    }
  });
  return {
    flags: flags.length,
    contexts: contexts.length,
    evaluations,
    disagreements: [...found.values()].sort((a, b) => a.flag.localeCompare(b.flag)),
    notes,
  };
}
