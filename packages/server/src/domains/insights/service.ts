import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { FlagService } from "../features/flags/service.js";
import type { ProjectDetails } from "../projects/schemas.js";
import type { ProjectService } from "../projects/service.js";
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
 * health rating is the project listing's, over the flags the staleness job marks.
 */
export class InsightsService {
  constructor(
    private readonly db: Db,
    private readonly lookups: {
      projects: Pick<ProjectService, "get">;
      flags: Pick<FlagService, "listProject">;
    },
  ) {}

  /** Endpoint 1: the project (404 when unknown), its active flags, their health, its stats. */
  async healthReport(actor: Actor, projectId: string, now = new Date()): Promise<HealthReport> {
    const project = await this.lookups.projects.get(actor, projectId);
    const [features, { stats }] = await Promise.all([
      this.lookups.flags.listProject(actor, projectId, { tags: [] }),
      this.stats(projectId, now),
    ]);
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

  /** Endpoint 10; an unknown project is 404, as the spec says. */
  async insights(actor: Actor, projectId: string, now = new Date()): Promise<ProjectInsights> {
    const project = await this.lookups.projects.get(actor, projectId);
    const [{ stats, firstEnabled }, featureTypeCounts] = await Promise.all([
      this.stats(projectId, now),
      insightsStore.featureTypeCounts(this.db, projectId),
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
