import { invalidField, nameExists, notFound, validationError } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import { canSee } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { ProjectOwner } from "../access/members/schemas.js";
import type { MemberService } from "../access/members/service.js";
import { refuseUnreviewable } from "../change-requests/gate.js";
import type { ChangeRequestService } from "../change-requests/service.js";
import type { EnvironmentService } from "../environments/service.js";
import { resource } from "../events/resource.js";
import type { EventService } from "../events/service.js";
import type { FavoriteService } from "../favorites/service.js";
import type { FlagService } from "../features/flags/service.js";
import type { StrategyInput } from "../features/strategies/schemas.js";
import type { InsightsService } from "../insights/service.js";
import { checkNaming } from "./naming.js";
import type {
  FeatureNaming,
  NewProject,
  ProjectDetails,
  ProjectSummary,
  ProjectUpdate,
  Settings,
} from "./schemas.js";
import { type ProjectRow, type ProjectSummaryRow, projectStore } from "./store.js";

/** What the features domain needs to know before it adds a flag to a project. */
export interface ActiveProject {
  id: string;
  featureNaming: FeatureNaming;
  featureLimit: number | null;
  defaultStickiness: string;
}

type Figures = Awaited<ReturnType<FlagService["figures"]>>[number];

const iso = (date: Date | null) => date?.toISOString() ?? null;

const naming = (row: ProjectRow): FeatureNaming => ({
  pattern: row.feature_naming_pattern,
  example: row.feature_naming_example,
  description: row.feature_naming_description,
});

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

/** The stored settings of a project: what its events carry as data and preData. */
export type ProjectSettings = ReturnType<typeof settings>;

const settings = (row: ProjectRow) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  mode: row.mode,
  defaultStickiness: row.default_stickiness,
  featureLimit: row.feature_limit,
  featureNaming: naming(row),
  createdAt: row.created_at.toISOString(),
  updatedAt: iso(row.updated_at),
  archivedAt: iso(row.archived_at),
});

const projects = resource<string, ProjectSettings>({
  read: async (db, id) => {
    const row = await projectStore.byId(db, id);
    return row && settings(row);
  },
  missing: (id) => notFound(`Could not find project with id ${id}`),
  subject: (project) => ({ project: project.id }),
  events: { updated: "project-updated", deleted: "project-deleted" },
});

/** What projects ask of their flags, which live in projects and so are reached when asked. */
type ProjectFlags = Pick<
  FlagService,
  "inProject" | "removeWithProject" | "joinEnvironment" | "leaveEnvironment" | "figures"
>;

/** Projects (`projects`) and the environments each uses (`project_environments`). */
export class ProjectService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly environments: Pick<EnvironmentService, "enabledNames" | "missing">,
    private readonly flags: () => ProjectFlags,
    private readonly people: () => {
      members: Pick<MemberService, "addOwner" | "owners" | "memberCounts">;
      favorites: Pick<FavoriteService, "projects">;
    },
    /** Which environments require change requests: reviews are of projects, so reached when asked. */
    private readonly changeRequests: () => Pick<ChangeRequestService, "gatedEnvironments">,
    /** How long flags take to reach production, which insights count from the event log. */
    private readonly insights: () => Pick<InsightsService, "averageTimeToProduction">,
  ) {}

  /** Active projects, or with `archived` only the archived ones. */
  async list(actor: Actor, archived: boolean): Promise<ProjectSummary[]> {
    const rows = (await projectStore.summaries(this.db, archived)).filter((row) => canSee(actor, row.id));
    const company = await this.company(
      this.db,
      rows.map((row) => row.id),
      actor,
    );
    return rows.map((row) => summary(row, company));
  }

  get(actor: Actor, id: string): Promise<ProjectDetails> {
    return this.details(this.db, id, actor);
  }

  create(actor: Actor, input: NewProject): Promise<ProjectDetails> {
    return this.events.change(actor, async (change) => {
      const environments = input.environments?.length
        ? [...new Set(input.environments)]
        : await this.environments.enabledNames(change.db);
      const [unknown] = await this.environments.missing(change.db, environments);
      if (unknown) throw invalidField("environments", `Environment ${unknown} does not exist`);
      const inserted = await projectStore.insert(change.db, {
        id: input.id,
        name: input.name,
        description: input.description ?? null,
        mode: input.mode,
        default_stickiness: input.defaultStickiness,
      });
      if (!inserted) throw nameExists(`A project with id ${input.id} already exists`);
      for (const environment of environments) {
        await projectStore.linkEnvironment(change.db, input.id, environment);
      }
      // A person who creates a project owns it, as in the reference; a token or the system owns nothing.
      if (actor.kind === "user") await this.people().members.addOwner(change, input.id, actor.userId);
      const created = await this.details(change.db, input.id, actor);
      change.record({ type: "project-created", project: input.id, data: created });
      return created;
    });
  }

  async update(actor: Actor, id: string, input: ProjectUpdate): Promise<void> {
    await this.events.change(actor, (change) =>
      projects.update(change, id, () =>
        projectStore.update(change.db, id, {
          name: input.name,
          description: input.description,
          mode: input.mode,
          default_stickiness: input.defaultStickiness,
          feature_limit: input.featureLimit,
          updated_at: new Date(),
        }),
      ),
    );
  }

  /** Endpoint 12: fields left out keep their value. */
  async updateSettings(actor: Actor, id: string, input: Settings): Promise<void> {
    const featureNaming = input.featureNaming && {
      pattern: input.featureNaming.pattern,
      example: input.featureNaming.example ?? null,
      description: input.featureNaming.description ?? null,
    };
    if (featureNaming) checkNaming(featureNaming);
    await this.events.change(actor, (change) =>
      projects.update(change, id, () =>
        projectStore.update(change.db, id, {
          mode: input.mode,
          feature_naming_pattern: featureNaming?.pattern,
          feature_naming_example: featureNaming?.example,
          feature_naming_description: featureNaming?.description,
          updated_at: new Date(),
        }),
      ),
    );
  }

  async archive(actor: Actor, id: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const before = await projects.require(change.db, id);
      if (before.archivedAt) throw notFound(`Active project with id ${id} does not exist`);
      await this.refuseActiveFlags(change.db, id, "archived");
      await projectStore.update(change.db, id, { archived_at: new Date() });
      change.record({ type: "project-archived", project: id, preData: before });
    });
  }

  async revive(actor: Actor, id: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const row = await projectStore.byId(change.db, id);
      if (!row?.archived_at) throw notFound(`Archived project with id ${id} does not exist`);
      await projectStore.update(change.db, id, { archived_at: null });
      change.record({ type: "project-revived", project: id, preData: settings(row) });
    });
  }

  /** Deletes a project without active flags; its archived flags go with it. */
  async remove(actor: Actor, id: string): Promise<void> {
    if (id === "default") throw validationError("The default project cannot be deleted");
    await this.events.change(actor, (change) =>
      projects.remove(change, id, async () => {
        await this.refuseActiveFlags(change.db, id, "deleted");
        await this.flags().removeWithProject(change, id);
        await projectStore.remove(change.db, id);
      }),
    );
  }

  async addEnvironment(actor: Actor, projectId: string, environment: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      await this.requireActive(change.db, projectId);
      const [unknown] = await this.environments.missing(change.db, [environment]);
      if (unknown) throw invalidField("environment", `Environment ${environment} does not exist`);
      if (!(await projectStore.linkEnvironment(change.db, projectId, environment))) {
        throw nameExists(`Project ${projectId} already has the environment ${environment}`);
      }
      await this.flags().joinEnvironment(change.db, projectId, environment);
      change.record({
        type: "project-environment-added",
        project: projectId,
        environment,
        data: { environment },
      });
    });
  }

  async removeEnvironment(actor: Actor, projectId: string, environment: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      await this.requireActive(change.db, projectId);
      const linked = await this.environmentsOf(change.db, projectId);
      if (!linked.includes(environment)) {
        throw notFound(`Project ${projectId} does not have the environment ${environment}`);
      }
      if (linked.length === 1) {
        throw validationError(`Project ${projectId} must keep at least one environment`);
      }
      // Its flags' strategies go with it: what the environment served would come back
      // unreviewed, all off, were it added again.
      await refuseUnreviewable(
        change,
        `Removing environment ${environment} from project ${projectId}`,
        projectId,
        [environment],
      );
      await this.flags().leaveEnvironment(change.db, projectId, environment);
      await projectStore.unlinkEnvironment(change.db, projectId, environment);
      change.record({
        type: "project-environment-removed",
        project: projectId,
        environment,
        preData: { environment },
      });
    });
  }

  /** The mode of every project that is not open. */
  async restrictedModes(db: Db = this.db): Promise<Map<string, "protected" | "private">> {
    const rows = await projectStore.restrictedModes(db);
    return new Map(rows.map((row) => [row.id, row.mode as "protected" | "private"]));
  }

  /** The ids among `ids` that are not projects, archived or not. */
  async missing(db: Db, ids: readonly string[]): Promise<string[]> {
    const known = new Set(await projectStore.existing(db, ids));
    return ids.filter((id) => !known.has(id));
  }

  /** The project when it exists and is not archived. */
  async findActive(db: Db, id: string): Promise<ActiveProject | undefined> {
    const row = await projectStore.byId(db, id);
    if (!row || row.archived_at) return undefined;
    return {
      id: row.id,
      featureNaming: naming(row),
      featureLimit: row.feature_limit,
      defaultStickiness: row.default_stickiness,
    };
  }

  async requireActive(db: Db, id: string): Promise<ActiveProject> {
    const project = await this.findActive(db, id);
    if (!project) throw notFound(`Active project with id ${id} does not exist`);
    return project;
  }

  /** What a flag switched on in the environment without an active strategy is given, when the project sets it. */
  defaultStrategy(db: Db, projectId: string, environment: string): Promise<StrategyInput | undefined> {
    return projectStore.defaultStrategy(db, projectId, environment);
  }

  async environmentsOf(db: Db, projectId: string): Promise<string[]> {
    return (await projectStore.environments(db, projectId)).map((row) => row.environment_name);
  }

  /** Refuses when the project holds active flags. */
  private async refuseActiveFlags(db: Db, id: string, fate: string): Promise<void> {
    const active = (await this.flags().inProject(db, id))
      .filter((flag) => !flag.archived)
      .map((flag) => flag.name);
    if (active.length > 0) {
      throw validationError(
        `Project ${id} cannot be ${fate} while it holds active flags (${active.join(", ")}); archive them first`,
      );
    }
  }

  private async company(db: Db, ids: string[], actor: Actor): Promise<Company> {
    const { members, favorites } = this.people();
    const [figures, owners, counts, favorite, timeToProduction] = await Promise.all([
      this.flags().figures(db, ids),
      members.owners(db, ids),
      members.memberCounts(db, ids),
      favorites.projects(actor, db),
      this.insights().averageTimeToProduction(db, ids),
    ]);
    return {
      figures: new Map(figures.map((entry) => [entry.project, entry])),
      owners,
      members: counts,
      favorites: favorite,
      timeToProduction,
    };
  }

  private async details(db: Db, id: string, actor: Actor): Promise<ProjectDetails> {
    const [row, environments, company, gated] = await Promise.all([
      projectStore.summary(db, id),
      projectStore.environments(db, id),
      this.company(db, [id], actor),
      this.changeRequests().gatedEnvironments(db, id),
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
}
