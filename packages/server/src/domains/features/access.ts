import { notFound } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import { type FeatureRow, featureStore } from "./store.js";

/** What the features domain asks of the projects domain. */
export interface ProjectLookup {
  requireActive(
    db: Db,
    id: string,
  ): Promise<{
    id: string;
    featureNaming: { pattern: string | null; example: string | null; description: string | null };
    featureLimit: number | null;
    defaultStickiness: string;
  }>;
  environmentsOf(db: Db, projectId: string): Promise<string[]>;
}

/**
 * An active flag, of the project in the path when there is one; archived flags and flags
 * of other projects are not found there, as in the reference.
 */
export async function requireFeature(db: Db, project: string | undefined, name: string): Promise<FeatureRow> {
  const row = await featureStore.find(db, name);
  if (!row || (project !== undefined && row.project !== project) || row.archived_at !== null) {
    throw notFound(`Could not find feature flag ${name}${project ? ` in project ${project}` : ""}`);
  }
  return row;
}

/** An environment the flag's project uses. */
export async function requireEnvironment(
  db: Db,
  projects: ProjectLookup,
  feature: FeatureRow,
  environment: string,
): Promise<void> {
  if (!(await projects.environmentsOf(db, feature.project)).includes(environment)) {
    throw notFound(`Environment ${environment} is not enabled in project ${feature.project}`);
  }
}
