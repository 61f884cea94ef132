// SDK documents (GET /api/client/features) made comparable: the normalisations below each
// remove something no SDK can see, and nothing that changes an evaluation.

export interface Document {
  version: number;
  features: Record<string, unknown>[];
  segments?: { id: number }[];
  query?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Normalisation {
  name: string;
  why: string;
  apply(document: Document): void;
}

type Strategies = Record<string, unknown>[];

/** Applied to both documents before they are compared. */
export const NORMALISATIONS: Normalisation[] = [
  {
    name: "the reference's `meta` block is dropped",
    why: "revision id, ETag and query hash for its own caches; SDKs read the ETag header, not this (unleash-client 6.12.1 never reads `meta`)",
    apply(document) {
      delete document.meta;
    },
  },
  {
    name: "flags are compared by name, not by position in `features`",
    why: "SDKs index the listing by flag name; the order of the array decides nothing",
    apply(document) {
      document.features.sort((a, b) => String(a.name).localeCompare(String(b.name)));
    },
  },
  {
    name: "an empty `segments` list on a strategy is the same as none",
    why: "SDKs read a missing list of segment ids as an empty one",
    apply(document) {
      for (const feature of document.features) {
        for (const strategy of (feature.strategies ?? []) as Strategies) {
          if (Array.isArray(strategy.segments) && strategy.segments.length === 0) delete strategy.segments;
        }
      }
    },
  },
  {
    name: "a strategy's constraints are compared in any order",
    why: "every constraint must hold and none has side effects, so their order decides nothing; the reference appends inlined segment constraints in the row order of its SQL join",
    apply(document) {
      for (const feature of document.features) {
        for (const strategy of (feature.strategies ?? []) as Strategies) {
          if (Array.isArray(strategy.constraints)) {
            strategy.constraints = [...strategy.constraints].sort((a, b) =>
              canonical(a).localeCompare(canonical(b)),
            );
          }
        }
      }
    },
  },
  {
    name: "segments are compared by id, not by position in `segments`",
    why: "SDKs look segments up by the ids strategies name",
    apply(document) {
      document.segments?.sort((a, b) => a.id - b.id);
    },
  },
];

/** JSON with keys sorted, so equal values print alike. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** A copy of the document with the normalisations applied. */
export function normalise(
  document: Document,
  normalisations: readonly Normalisation[] = NORMALISATIONS,
): Document {
  const copy = structuredClone(document);
  for (const normalisation of normalisations) normalisation.apply(copy);
  return copy;
}

/** Whether a value read off the network is an SDK document at all. */
export function isDocument(value: unknown): value is Document {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as Document).features) &&
    (value as Document).features.every((feature) => typeof feature?.name === "string")
  );
}
