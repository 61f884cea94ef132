// Unleash's export leaves out each strategy's position (its strategy store reads no sort_order
// for the export), and the position decides which strategy's variants a user gets when
// several let them in. `signalbox export` puts the positions back from the service's admin
// API, ranked as Unleash ranks them for SDKs: by position, ties by id. Files Signalbox
// exports carry them already.
import { call, refusal } from "./cli-common.js";

interface Strategy {
  id?: string;
  featureName?: string;
  sortOrder?: number;
}

export interface Exported {
  features: { name: string; project?: string }[];
  featureStrategies: Strategy[];
}

/** Flags whose strategies lack a position: those the admin API is asked about. */
export function unplaced(data: Exported): string[] {
  return [
    ...new Set(
      data.featureStrategies
        .filter((strategy) => strategy.sortOrder === undefined && strategy.id !== undefined)
        .flatMap((strategy) => strategy.featureName ?? []),
    ),
  ];
}

/** Gives each strategy without a position its rank among the flag's strategies in the environment. */
export async function placeStrategies(
  url: URL,
  token: string,
  data: Exported,
  environment: string,
  project: string | undefined,
): Promise<void> {
  const ranks = new Map<string, number>();
  const projects = new Map(data.features.map((flag) => [flag.name, flag.project ?? project]));
  for (const name of unplaced(data)) {
    const where = projects.get(name);
    if (!where) continue;
    const answer = await call(
      url,
      token,
      `api/admin/projects/${encodeURIComponent(where)}/features/${encodeURIComponent(name)}`,
    );
    if (answer.status !== 200) throw refusal(answer, `reading the strategies of ${name}`);
    const flag = answer.body as {
      environments?: { name: string; strategies?: { id: string; sortOrder?: number }[] }[];
    };
    const strategies = flag.environments?.find((env) => env.name === environment)?.strategies ?? [];
    const ranked = [...strategies].sort(
      (a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0) || a.id.localeCompare(b.id),
    );
    for (const [rank, strategy] of ranked.entries()) ranks.set(strategy.id, rank);
  }
  for (const strategy of data.featureStrategies) {
    const rank = strategy.id === undefined ? undefined : ranks.get(strategy.id);
    if (strategy.sortOrder === undefined && rank !== undefined) strategy.sortOrder = rank;
  }
}
