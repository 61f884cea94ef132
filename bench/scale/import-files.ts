// The generated flags as export files (the reference's format, which both services import),
// one project and environment per file, cut so that no request is larger than `limit` bytes.
import type { ENVIRONMENTS, FlagSpec, SegmentSpec } from "./data.js";

type Environment = (typeof ENVIRONMENTS)[number];

function entries(flag: FlagSpec, environment: Environment) {
  const settings = flag.environments[environment];
  return {
    features: [
      {
        name: flag.name,
        type: flag.type,
        description: flag.description,
        project: flag.project,
        stale: false,
        impressionData: false,
        archived: false,
      },
    ],
    featureStrategies: settings.strategies.map((strategy, sortOrder) => ({
      ...strategy,
      featureName: flag.name,
      title: null,
      disabled: false,
      sortOrder,
    })),
    featureEnvironments: [
      { name: flag.name, featureName: flag.name, environment, enabled: settings.enabled, variants: [] },
    ],
    featureTags: [{ featureName: flag.name, tagType: "simple", tagValue: flag.tag }],
  };
}

type Lists = ReturnType<typeof entries>;
const empty = (): Lists => ({
  features: [],
  featureStrategies: [],
  featureEnvironments: [],
  featureTags: [],
});

function body(project: string, environment: Environment, lists: Lists, segments: SegmentSpec[]): string {
  return JSON.stringify({
    project,
    environment,
    data: {
      ...lists,
      segments: segments.map(({ id, name }) => ({ id, name })),
      tagTypes: [{ name: "simple", description: "Used to simplify filtering of features", icon: "#" }],
    },
  });
}

/** A file to import: some of a project's flags in one environment. */
export interface ImportChunk {
  project: string;
  environment: Environment;
  flags: FlagSpec[];
}

/** The request body of a chunk, made when it is sent so that a large size is not held whole. */
export function importBody(chunk: ImportChunk, segments: SegmentSpec[]): string {
  const lists = empty();
  for (const flag of chunk.flags) {
    const mine = entries(flag, chunk.environment);
    for (const key of Object.keys(lists) as (keyof Lists)[]) (lists[key] as unknown[]).push(...mine[key]);
  }
  return body(chunk.project, chunk.environment, lists, segments);
}

/**
 * The files that import `flags`, by project, each project's in the order they must go (the
 * first environment's files create the flags that the later ones update).
 */
export function importChunks(
  flags: FlagSpec[],
  segments: SegmentSpec[],
  environments: readonly Environment[],
  limit: number,
): Map<string, ImportChunk[]> {
  const byProject = new Map<string, FlagSpec[]>();
  for (const flag of flags) {
    const held = byProject.get(flag.project);
    if (held) held.push(flag);
    else byProject.set(flag.project, [flag]);
  }
  const chunks = new Map<string, ImportChunk[]>();
  for (const [project, held] of byProject) {
    const list: ImportChunk[] = [];
    for (const environment of environments) {
      const overhead = body(project, environment, empty(), segments).length;
      let chunk: ImportChunk = { project, environment, flags: [] };
      let size = overhead;
      for (const flag of held) {
        const bytes = JSON.stringify(entries(flag, environment)).length;
        if (chunk.flags.length > 0 && size + bytes > limit) {
          list.push(chunk);
          chunk = { project, environment, flags: [] };
          size = overhead;
        }
        chunk.flags.push(flag);
        size += bytes;
      }
      if (chunk.flags.length > 0) list.push(chunk);
    }
    chunks.set(project, list);
  }
  return chunks;
}
