import type { Db } from "../../db/connection.js";
import type { ProjectDetails } from "../projects/schemas.js";
import type { HealthReport, ProjectInsights, ProjectStats } from "./schemas.js";
import { insightsStore } from "./store.js";
import { averageTimeToProduction, daysToProduction, type FirstEnabled } from "./time-to-production.js";

const DAY_MS = 86_400_000;

/** The flag counts a project's health is made of, as its details show them. */
const flagCounts = (project: ProjectDetails) => ({
  activeCount: project.featureCount - project.staleFeatureCount,
  potentiallyStaleCount: project.potentiallyStaleFeatureCount,
  staleCount: project.staleFeatureCount,
});

/**
 * A project's health report (endpoint 1) and insights (endpoint 10), and the time its flags
 * take to reach production, counted on request from flags, events and memberships: each
 * figure is one indexed query over a project's rows, so nothing is stored to go stale. The
 * health rating is the project listing's, over the flags the staleness job marks. The
 * project comes as its overview reads it, and the flags as their view lists them: both are
 * read models, above this, which feeds the overview its time to production.
 */
export class InsightsService {
  constructor(private readonly db: Db) {}

  /** Endpoint 1: the project, its active flags, their health, its stats. */
  async healthReport(
    project: ProjectDetails,
    features: HealthReport["features"],
    now = new Date(),
  ): Promise<HealthReport> {
    const { stats } = await this.stats(project.id, now);
    return {
      version: 1,
      name: project.name,
      description: project.description,
      defaultStickiness: project.defaultStickiness,
      mode: project.mode,
      featureLimit: project.featureLimit,
      members: project.memberCount,
      health: project.health,
      technicalDebt: 100 - project.health,
      environments: project.environments,
      features,
      updatedAt: project.updatedAt,
      createdAt: project.createdAt,
      favorite: project.favorite,
      stats,
      featureNaming: project.featureNaming,
      ...flagCounts(project),
    };
  }

  /** Endpoint 10. */
  async insights(project: ProjectDetails, now = new Date()): Promise<ProjectInsights> {
    const [{ stats, firstEnabled }, featureTypeCounts] = await Promise.all([
      this.stats(project.id, now),
      insightsStore.featureTypeCounts(this.db, project.id),
    ]);
    const counts = flagCounts(project);
    return {
      stats,
      health: { rating: project.health, ...counts },
      technicalDebt: { rating: 100 - project.health, ...counts },
      leadTime: {
        projectAverage: stats.avgTimeToProdCurrentWindow,
        features: firstEnabled.map((flag) => ({ name: flag.name, timeToProduction: daysToProduction(flag) })),
      },
      featureTypeCounts,
      members: { currentMembers: project.memberCount, change: stats.projectMembersAddedCurrentWindow },
    };
  }

  /** Each project's average days to production (0 for a project with no flag there yet). */
  async averageTimeToProduction(db: Db, projectIds: string[]): Promise<Map<string, number>> {
    const flags = await insightsStore.firstEnabledInProduction(db, projectIds);
    return new Map(
      projectIds.map((id) => [id, averageTimeToProduction(flags.filter((flag) => flag.project === id))]),
    );
  }

  /**
   * The reference's project stats: the last 30 days against the 30 before. Its average time to
   * production, despite the name, is over every flag of the project, whenever it was created.
   */
  private async stats(
    projectId: string,
    now: Date,
  ): Promise<{ stats: ProjectStats; firstEnabled: FirstEnabled[] }> {
    const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);
    const current = { from: daysAgo(30), to: now };
    const past = { from: daysAgo(60), to: current.from };
    const [activity, firstEnabled, joined] = await Promise.all([
      insightsStore.activity(this.db, projectId, current, past),
      insightsStore.firstEnabledInProduction(this.db, [projectId]),
      insightsStore.membersJoinedSince(this.db, projectId, current.from),
    ]);
    return {
      stats: {
        avgTimeToProdCurrentWindow: averageTimeToProduction(firstEnabled),
        ...activity,
        projectMembersAddedCurrentWindow: joined,
      },
      firstEnabled,
    };
  }
}
