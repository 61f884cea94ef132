import { notFound } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import { canSee } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { ProjectOwner } from "../access/members/schemas.js";
import type { MemberService } from "../access/members/service.js";
import { gatedEnvironments } from "../change-gate/settings.js";
import type { FavoriteService } from "../favorites/service.js";
import type { FlagService } from "../features/flags/service.js";
import type { InsightsService } from "../insights/service.js";
import type { ProjectDetails, ProjectSummary } from "./schemas.js";
import { iso, naming } from "./service.js";
import { type ProjectSummaryRow, projectStore } from "./store.js";

type Figures = Awaited<ReturnType<FlagService["figures"]>>[number];

// The reference's rating, computed on read rather than by an hourly job.
function health(figures: Figures | undefined): number {
  if (!figures?.featureCount) return 100;
  const unhealthy = figures.staleCount + figures.potentiallyStaleCount;
  return Math.max(0, Math.round(100 - (100 * unhealthy) / figures.featureCount));
}

/** Who is in a project, and whether the caller marked it. */
interface Company {
  figures: Map<string, Figures>;
  owners: Map<string, ProjectOwner[]>;
  members: Map<string, number>;
  favorites: Set<string>;
  timeToProduction: Map<string, number>;
}

const summary = (row: ProjectSummaryRow, company: Company): ProjectSummary => {
  const figures = company.figures.get(row.id);
  const owners = company.owners.get(row.id) ?? [];
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    health: health(figures),
    featureCount: figures?.featureCount ?? 0,
    staleFeatureCount: figures?.staleCount ?? 0,
    potentiallyStaleFeatureCount: figures?.potentiallyStaleCount ?? 0,
    memberCount: company.members.get(row.id) ?? 0,
    createdAt: row.created_at.toISOString(),
    updatedAt: iso(row.updated_at),
    lastUpdatedAt: iso(row.last_updated_at),
    archivedAt: iso(row.archived_at),
    favorite: company.favorites.has(row.id),
    mode: row.mode,
    defaultStickiness: row.default_stickiness,
    avgTimeToProduction: company.timeToProduction.get(row.id) ?? 0,
    lastReportedFlagUsage: iso(figures?.lastReportedFlagUsage ?? null),
    // The reference shows the system as owner when no user or group holds the Owner role.
    owners: owners.length > 0 ? owners : [{ ownerType: "system" }],
  };
};

/** What a project's overview reads of those who live in it, each asked for every project listed at once. */
export interface ProjectCompany {
  flags: Pick<FlagService, "figures">;
  members: Pick<MemberService, "owners" | "memberCounts">;
  favorites: Pick<FavoriteService, "projects">;
  /** How long flags take to reach production, which insights count from the event log. */
  insights: Pick<InsightsService, "averageTimeToProduction">;
}

/**
 * Projects as the listing (endpoint 7) and a project's page show them: their settings with
 * figures from their flags, owners and members, the caller's favourites and the time to
 * production. It only reads, so it sits above all of those.
 */
export class ProjectOverview {
  constructor(
    private readonly db: Db,
    private readonly company: ProjectCompany,
  ) {}

  /** Active projects, or with `archived` only the archived ones. */
  async list(actor: Actor, archived: boolean): Promise<ProjectSummary[]> {
    const rows = (await projectStore.summaries(this.db, archived)).filter((row) => canSee(actor, row.id));
    const company = await this.companyOf(
      this.db,
      rows.map((row) => row.id),
      actor,
    );
    return rows.map((row) => summary(row, company));
  }

  get(actor: Actor, id: string): Promise<ProjectDetails> {
    return this.details(this.db, id, actor);
  }

  /** A project with its settings and environments, read in `db` (a creation's transaction). */
  async details(db: Db, id: string, actor: Actor): Promise<ProjectDetails> {
    const [row, environments, company, gated] = await Promise.all([
      projectStore.summary(db, id),
      projectStore.environments(db, id),
      this.companyOf(db, [id], actor),
      gatedEnvironments(db, id),
    ]);
    if (!row) throw notFound(`Could not find project with id ${id}`);
    return {
      ...summary(row, company),
      featureLimit: row.feature_limit,
      featureNaming: naming(row),
      environments: environments.map((env) => ({
        environment: env.environment_name,
        changeRequestsEnabled: gated.includes(env.environment_name),
        ...(env.default_strategy ? { defaultStrategy: env.default_strategy } : {}),
      })),
    };
  }

  private async companyOf(db: Db, ids: string[], actor: Actor): Promise<Company> {
    const { flags, members, favorites, insights } = this.company;
    const [figures, owners, counts, favorite, timeToProduction] = await Promise.all([
      flags.figures(db, ids),
      members.owners(db, ids),
      members.memberCounts(db, ids),
      favorites.projects(actor, db),
      insights.averageTimeToProduction(db, ids),
    ]);
    return {
      figures: new Map(figures.map((entry) => [entry.project, entry])),
      owners,
      members: counts,
      favorites: favorite,
      timeToProduction,
    };
  }
}
