import { type RawBuilder, sql } from "kysely";

/**
 * How many flags and projects have a strategy (`fs`) for which `uses` holds, as two
 * selections named `used_in_features` and `used_in_projects`.
 */
export const strategyUsage = (uses: RawBuilder<boolean>) =>
  [
    sql<number>`(select count(distinct fs.feature_name) from feature_strategies fs where ${uses})`.as(
      "used_in_features",
    ),
    sql<number>`(select count(distinct fs.project_name) from feature_strategies fs where ${uses})`.as(
      "used_in_projects",
    ),
  ] as const;
