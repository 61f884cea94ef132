// Compares the SDK documents (GET /api/client/features) of the two services, flag by flag,
// after the shared normalisations (NORMALISATIONS): each removes something no SDK can see.
import { type Document, normalise } from "@signalbox/server/compare";
import { at, jsonDiff } from "./diff.js";
import {
  DISABLED_PARENT_NOTE,
  DRAWING_PARENT_NOTE,
  PARENT_REQUIRED_OFF_NOTE,
  REPEATED_DEPENDENCY_NOTE,
  UNUSED_SEGMENTS_NOTE,
  USER_WITH_ID_PARENT_NOTE,
} from "./notes.js";

export { type Document, NORMALISATIONS } from "@signalbox/server/compare";

export interface DocumentDifference {
  kind: "document";
  environment: string;
  spec: string;
  /** A flag's name, or `(listing)` for what is outside the flags. */
  flag: string;
  paths: string[];
  reference: unknown;
  signalbox: unknown;
  note?: string;
}

/** Segment ids the listed flags' strategies name. */
function usedSegments(document: Document): Set<number> {
  const used = new Set<number>();
  for (const feature of document.features) {
    for (const strategy of (feature.strategies ?? []) as { segments?: number[] }[]) {
      for (const id of strategy.segments ?? []) used.add(id);
    }
  }
  return used;
}

export function compareDocuments(
  environment: string,
  spec: string,
  referenceDocument: Document,
  signalboxDocument: Document,
  skip: Set<string>,
): DocumentDifference[] {
  const reference = normalise(referenceDocument);
  const signalbox = normalise(signalboxDocument);
  const differences: DocumentDifference[] = [];
  const listing = (paths: string[], note?: string, left: unknown = reference, right: unknown = signalbox) =>
    differences.push({
      kind: "document",
      environment,
      spec,
      flag: "(listing)",
      paths,
      reference: left,
      signalbox: right,
      note,
    });

  const { features: referenceFeatures, segments: referenceSegments, ...referenceRest } = reference;
  const { features: signalboxFeatures, segments: signalboxSegments, ...signalboxRest } = signalbox;
  const restPaths = jsonDiff(referenceRest, signalboxRest);
  if (restPaths.length > 0) {
    listing(
      restPaths,
      undefined,
      Object.fromEntries(restPaths.map((path) => [path, at(referenceRest, path)])),
      Object.fromEntries(restPaths.map((path) => [path, at(signalboxRest, path)])),
    );
  }

  // Segments the listed flags use must match; the reference also lists segments no listed
  // flag uses, reported on their own so the known-differences table can name that case.
  const used = new Set([...usedSegments(reference), ...usedSegments(signalbox)]);
  const pick = (segments: { id: number }[] | undefined, keep: (id: number) => boolean) =>
    segments === undefined ? undefined : segments.filter((segment) => keep(segment.id));
  const segmentPaths = jsonDiff(
    pick(referenceSegments, (id) => used.has(id)),
    pick(signalboxSegments, (id) => used.has(id)),
  );
  if (segmentPaths.length > 0) {
    listing(
      segmentPaths.map((path) => `.segments${path}`),
      "segments the listed flags use",
      referenceSegments,
      signalboxSegments,
    );
  }
  const unused = (segments: { id: number }[] | undefined) =>
    (segments ?? []).filter((segment) => !used.has(segment.id)).map((segment) => segment.id);
  const referenceUnused = unused(referenceSegments);
  const signalboxUnused = unused(signalboxSegments);
  if (jsonDiff(referenceUnused, signalboxUnused).length > 0) {
    listing([".segments"], UNUSED_SEGMENTS_NOTE, referenceUnused, signalboxUnused);
  }

  const byName = (features: Record<string, unknown>[]) =>
    new Map(features.map((feature) => [String(feature.name), feature]));
  const left = byName(referenceFeatures);
  const right = byName(signalboxFeatures);
  for (const name of new Set([...left.keys(), ...right.keys()])) {
    if (skip.has(name)) continue;
    const paths = jsonDiff(left.get(name), right.get(name));
    if (paths.length === 0) continue;
    differences.push({
      kind: "document",
      environment,
      spec,
      flag: name,
      paths,
      reference: left.get(name) ?? "(not listed)",
      signalbox: right.get(name) ?? "(not listed)",
    });
  }
  return differences;
}

/**
 * For each flag of the reference's listing, what about its dependencies may explain an
 * evaluation difference: a parent listed more than once, a parent switched off in this
 * environment, a parent required off (and whether it may draw), or a parent with a userWithId
 * strategy.
 */
export function dependencyNotes(document: Document): Map<string, string[]> {
  const enabled = new Map(
    document.features.map((feature) => [String(feature.name), feature.enabled === true]),
  );
  const userWithId = new Set(
    document.features
      .filter((feature) =>
        ((feature.strategies ?? []) as { name: string }[]).some((strategy) => strategy.name === "userWithId"),
      )
      .map((feature) => String(feature.name)),
  );
  // Strategies whose answer may be a random draw for some context (random stickiness, or
  // default stickiness without the ids it falls back on).
  const draws = new Set(
    document.features
      .filter((feature) =>
        ((feature.strategies ?? []) as { name: string; parameters?: Record<string, string> }[]).some(
          (strategy) =>
            strategy.name === "gradualRolloutRandom" ||
            (strategy.name === "flexibleRollout" &&
              ["random", "default", "", undefined].includes(strategy.parameters?.stickiness)),
        ),
      )
      .map((feature) => String(feature.name)),
  );
  const notes = new Map<string, string[]>();
  for (const feature of document.features) {
    const dependencies = (feature.dependencies ?? []) as { feature: string; enabled?: boolean }[];
    const parents = dependencies.map((dependency) => dependency.feature);
    const found: string[] = [];
    if (new Set(parents).size < parents.length) found.push(REPEATED_DEPENDENCY_NOTE);
    if (parents.some((parent) => enabled.get(parent) === false)) found.push(DISABLED_PARENT_NOTE);
    if (dependencies.some((dependency) => dependency.enabled === false)) found.push(PARENT_REQUIRED_OFF_NOTE);
    if (parents.some((parent) => userWithId.has(parent))) found.push(USER_WITH_ID_PARENT_NOTE);
    if (dependencies.some((dependency) => dependency.enabled === false && draws.has(dependency.feature)))
      found.push(DRAWING_PARENT_NOTE);
    if (found.length > 0) notes.set(String(feature.name), found);
  }
  return notes;
}
