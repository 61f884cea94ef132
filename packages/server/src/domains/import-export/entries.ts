import type { Static, TSchema } from "typebox";
import { Value } from "typebox/value";
import { conform } from "../../shared/conform.js";
import type { StrategyInput } from "../features/strategies/schemas.js";
import type { ImportData } from "./schemas.js";

// The entries of an import file as the import writes them, which the checks try beforehand.

/** The file as it will be written: archived flags dropped, every entry named by its flag. */
export interface Cleaned {
  features: ImportData["features"];
  strategies: (ImportData["featureStrategies"][number] & { featureName: string })[];
  environments: { featureName: string; enabled: boolean; variants: unknown[] }[];
  tags: { featureName: string; type: string; value: string }[];
  tagTypes: ImportData["tagTypes"];
  contextFields: NonNullable<ImportData["contextFields"]>;
  dependencies: NonNullable<ImportData["dependencies"]>;
}

/** An entry of the file made to meet the schema of its write: keys the write does not know are dropped. */
export const writable = <S extends TSchema>(schema: S, value: unknown, message: string): Static<S> =>
  conform(schema, Value.Clean(schema, structuredClone(value)), message);

export const unique = <T>(items: Iterable<T>): T[] => [...new Set(items)];

/** Drops what the reference drops before it checks anything: flags archived here, with their entries. */
export function clean(data: ImportData, archived: Set<string>): Cleaned {
  const kept = (name: string | undefined): name is string => name !== undefined && !archived.has(name);
  const tags = (data.featureTags ?? []).flatMap((tag) => {
    const type = tag.tagType ?? tag.type;
    const value = tag.tagValue ?? tag.value;
    // As the reference: a tag without a type is skipped.
    return kept(tag.featureName) && type && value !== undefined
      ? [{ featureName: tag.featureName, type, value }]
      : [];
  });
  const usedTypes = new Set(tags.map((tag) => tag.type));
  return {
    features: data.features.filter((feature) => !archived.has(feature.name)),
    strategies: data.featureStrategies.flatMap((strategy) =>
      kept(strategy.featureName) ? [{ ...strategy, featureName: strategy.featureName }] : [],
    ),
    environments: (data.featureEnvironments ?? []).flatMap((env) => {
      const featureName = env.featureName ?? env.name;
      return kept(featureName) ? [{ featureName, enabled: env.enabled, variants: env.variants ?? [] }] : [];
    }),
    tags,
    tagTypes: data.tagTypes.filter((type) => usedTypes.has(type.name)),
    contextFields: data.contextFields ?? [],
    dependencies: (data.dependencies ?? []).filter((entry) => kept(entry.feature)),
  };
}

const defined = <T extends object>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));

export const featureInput = (feature: ImportData["features"][number]) =>
  defined({
    name: feature.name,
    type: feature.type,
    description: feature.description,
    impressionData: feature.impressionData,
  });

export const stale = (feature: ImportData["features"][number]) =>
  feature.stale === undefined ? {} : { stale: feature.stale };

/** A strategy of the file as `POST …/strategies` takes it, its segments named by this instance's ids. */
export function strategyInput(
  strategy: Cleaned["strategies"][number],
  segmentIds: Map<number, number>,
): unknown {
  return defined({
    name: strategy.name,
    title: strategy.title,
    disabled: strategy.disabled,
    sortOrder: strategy.sortOrder,
    constraints: strategy.constraints,
    parameters: strategy.parameters,
    variants: strategy.variants && remainderFirst(strategy.variants),
    segments: strategy.segments?.map((id) => segmentIds.get(id) ?? id),
  }) as StrategyInput;
}

/**
 * A strategy's variants are settled again as they are written, and an uneven split's
 * remainder goes to the first variable variants as sent. A file holds them settled and
 * sorted by name: sent with the heavier variable ones first, each gets back the weight it
 * had, and users are placed as they were where the file came from.
 */
function remainderFirst<T extends { weight: number; weightType?: string }>(variants: T[]): T[] {
  const rank = (variant: T) => (variant.weightType === "fix" ? -1 : variant.weight);
  return [...variants].sort((a, b) => rank(b) - rank(a));
}

export const tagTypeInput = (type: ImportData["tagTypes"][number]) =>
  defined({ name: type.name, description: type.description, icon: type.icon });

export const contextFieldInput = (field: Cleaned["contextFields"][number]) =>
  defined({
    name: field.name,
    description: field.description,
    stickiness: field.stickiness,
    sortOrder: field.sortOrder,
    legalValues: field.legalValues,
  });
