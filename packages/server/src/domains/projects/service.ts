import { invalidField, nameExists, notFound, validationError } from "@signalbox/protocol";
import type { Updateable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { ProjectTable } from "../../db/schema.js";
import type { EnvironmentService } from "../environments/service.js";
import type { EventService } from "../events/service.js";
import { checkNaming, type FeatureNaming } from "./naming.js";
import { type ProjectRow, type ProjectSummaryRow, projectStore } from "./store.js";

export type ProjectMode = "open" | "protected" | "private";

/** A project as the listing (endpoint 7) shows it. */
export interface ProjectSummary {
  id: string;
  name: string;
  description: string | null;
  health: number;
  featureCount: number;
  staleFeatureCount: number;
  potentiallyStaleFeatureCount: number;
  memberCount: number;
  createdAt: string;
  updatedAt: string | null;
  lastUpdatedAt: string | null;
  archivedAt: string | null;
  favorite: boolean;
  mode: string;
  defaultStickiness: string;
  avgTimeToProduction: number;
  lastReportedFlagUsage: string | null;
  owners: { ownerType: "system" }[];
}

export interface ProjectDetails extends ProjectSummary {
  featureLimit: number | null;
  featureNaming: FeatureNaming;
  environments: { environment: string; defaultStrategy?: Record<string, unknown> }[];
}

/** What the features domain needs to know before it adds a flag to a project. */
export interface ActiveProject {
  id: string;
  featureNaming: FeatureNaming;
  featureLimit: number | null;
  defaultStickiness: string;
}

export interface NewProject {
  id: string;
  name: string;
  description?: string | null;
  mode?: ProjectMode;
  defaultStickiness?: string;
  environments?: string[];
}

export interface ProjectUpdate {
  name: string;
  description?: string | null;
  mode?: ProjectMode;
  defaultStickiness?: string;
  featureLimit?: number | null;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

const naming = (row: ProjectRow): FeatureNaming => ({
  pattern: row.feature_naming_pattern,
  example: row.feature_naming_example,
  description: row.feature_naming_description,
});

// The reference's rating, computed on read rather than by an hourly job.
function health(row: ProjectSummaryRow): number {
  if (row.feature_count === 0) return 100;
  const unhealthy = row.stale_count + row.potentially_stale_count;
  return Math.max(0, Math.round(100 - (100 * unhealthy) / row.feature_count));
}

const summary = (row: ProjectSummaryRow): ProjectSummary => ({
  id: row.id,
  name: row.name,
  description: row.description,
  health: health(row),
  featureCount: row.feature_count,
  staleFeatureCount: row.stale_count,
  potentiallyStaleFeatureCount: row.potentially_stale_count,
  memberCount: 0,
  createdAt: row.created_at.toISOString(),
  updatedAt: iso(row.updated_at),
  lastUpdatedAt: iso(row.last_updated_at),
  archivedAt: iso(row.archived_at),
  favorite: false,
  mode: row.mode,
  defaultStickiness: row.default_stickiness,
  avgTimeToProduction: 0,
  lastReportedFlagUsage: iso(row.last_reported_flag_usage),
  owners: [{ ownerType: "system" }],
});

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

export class ProjectService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly environments: EnvironmentService,
  ) {}

  /** Active projects, or with `archived` only the archived ones. */
  async list(archived: boolean): Promise<ProjectSummary[]> {
    return (await projectStore.summaries(this.db, archived)).map(summary);
  }

  get(id: string): Promise<ProjectDetails> {
    return this.details(this.db, id);
  }

  create(input: NewProject, createdBy: string): Promise<ProjectDetails> {
    return this.events.transaction(async (tx) => {
      const environments = input.environments?.length
        ? [...new Set(input.environments)]
        : await this.environments.enabledNames(tx.db);
      const [unknown] = await this.environments.missing(tx.db, environments);
      if (unknown) throw invalidField("environments", `Environment ${unknown} does not exist`);
      const inserted = await projectStore.insert(tx.db, {
        id: input.id,
        name: input.name,
        description: input.description ?? null,
        mode: input.mode,
        default_stickiness: input.defaultStickiness,
      });
      if (!inserted) throw nameExists(`A project with id ${input.id} already exists`);
      for (const environment of environments) {
        await projectStore.linkEnvironment(tx.db, input.id, environment);
      }
      const created = await this.details(tx.db, input.id);
      tx.record({ type: "project-created", createdBy, project: input.id, data: created });
      return created;
    });
  }

  update(id: string, input: ProjectUpdate, updatedBy: string): Promise<void> {
    return this.change(
      id,
      {
        name: input.name,
        description: input.description,
        mode: input.mode,
        default_stickiness: input.defaultStickiness,
        feature_limit: input.featureLimit,
      },
      updatedBy,
    );
  }

  /** Endpoint 12: fields left out keep their value. */
  updateSettings(
    id: string,
    input: { mode?: ProjectMode; featureNaming?: FeatureNaming },
    updatedBy: string,
  ): Promise<void> {
    if (input.featureNaming) checkNaming(input.featureNaming);
    return this.change(
      id,
      {
        mode: input.mode,
        feature_naming_pattern: input.featureNaming?.pattern,
        feature_naming_example: input.featureNaming?.example,
        feature_naming_description: input.featureNaming?.description,
      },
      updatedBy,
    );
  }

  async archive(id: string, archivedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const before = await this.requireRow(tx.db, id);
      if (before.archived_at) throw notFound(`Active project with id ${id} does not exist`);
      await this.refuseActiveFlags(tx.db, id, "archived");
      await projectStore.update(tx.db, id, { archived_at: new Date() });
      tx.record({ type: "project-archived", createdBy: archivedBy, project: id, preData: settings(before) });
    });
  }

  async revive(id: string, revivedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const before = await projectStore.byId(tx.db, id);
      if (!before?.archived_at) throw notFound(`Archived project with id ${id} does not exist`);
      await projectStore.update(tx.db, id, { archived_at: null });
      tx.record({ type: "project-revived", createdBy: revivedBy, project: id, preData: settings(before) });
    });
  }

  /** Deletes a project without active flags; its archived flags go with it. */
  async remove(id: string, deletedBy: string): Promise<void> {
    if (id === "default") throw validationError("The default project cannot be deleted");
    await this.events.transaction(async (tx) => {
      const before = await this.requireRow(tx.db, id);
      const archived = await this.refuseActiveFlags(tx.db, id, "deleted");
      if (archived.length > 0) await projectStore.removeFlags(tx.db, archived);
      for (const featureName of archived) {
        tx.record({ type: "feature-deleted", createdBy: deletedBy, project: id, featureName });
      }
      await projectStore.remove(tx.db, id);
      tx.record({ type: "project-deleted", createdBy: deletedBy, project: id, preData: settings(before) });
    });
  }

  async addEnvironment(projectId: string, environment: string, addedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      await this.requireActive(tx.db, projectId);
      const [unknown] = await this.environments.missing(tx.db, [environment]);
      if (unknown) throw invalidField("environment", `Environment ${environment} does not exist`);
      if (!(await projectStore.linkEnvironment(tx.db, projectId, environment))) {
        throw nameExists(`Project ${projectId} already has the environment ${environment}`);
      }
      await projectStore.connectFlags(tx.db, projectId, environment);
      tx.record({
        type: "project-environment-added",
        createdBy: addedBy,
        project: projectId,
        environment,
        data: { environment },
      });
    });
  }

  async removeEnvironment(projectId: string, environment: string, removedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      await this.requireActive(tx.db, projectId);
      const linked = await this.environmentsOf(tx.db, projectId);
      if (!linked.includes(environment)) {
        throw notFound(`Project ${projectId} does not have the environment ${environment}`);
      }
      if (linked.length === 1) {
        throw validationError(`Project ${projectId} must keep at least one environment`);
      }
      await projectStore.unlinkEnvironment(tx.db, projectId, environment);
      tx.record({
        type: "project-environment-removed",
        createdBy: removedBy,
        project: projectId,
        environment,
        preData: { environment },
      });
    });
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

  async environmentsOf(db: Db, projectId: string): Promise<string[]> {
    return (await projectStore.environments(db, projectId)).map((row) => row.environment_name);
  }

  private async change(id: string, changes: Updateable<ProjectTable>, updatedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const before = await this.requireRow(tx.db, id);
      await projectStore.update(tx.db, id, { ...changes, updated_at: new Date() });
      const after = await this.requireRow(tx.db, id);
      tx.record({
        type: "project-updated",
        createdBy: updatedBy,
        project: id,
        data: settings(after),
        preData: settings(before),
      });
    });
  }

  /** Refuses when the project holds active flags; returns the names of its archived ones. */
  private async refuseActiveFlags(db: Db, id: string, fate: string): Promise<string[]> {
    const flags = await projectStore.flags(db, id);
    const active = flags.filter((flag) => !flag.archived_at).map((flag) => flag.name);
    if (active.length > 0) {
      throw validationError(
        `Project ${id} cannot be ${fate} while it holds active flags (${active.join(", ")}); archive them first`,
      );
    }
    return flags.map((flag) => flag.name);
  }

  private async details(db: Db, id: string): Promise<ProjectDetails> {
    const [row, environments] = await Promise.all([
      projectStore.summary(db, id),
      projectStore.environments(db, id),
    ]);
    if (!row) throw notFound(`Could not find project with id ${id}`);
    return {
      ...summary(row),
      featureLimit: row.feature_limit,
      featureNaming: naming(row),
      environments: environments.map((env) =>
        env.default_strategy
          ? { environment: env.environment_name, defaultStrategy: env.default_strategy }
          : { environment: env.environment_name },
      ),
    };
  }

  private async requireRow(db: Db, id: string): Promise<ProjectRow> {
    const row = await projectStore.byId(db, id);
    if (!row) throw notFound(`Could not find project with id ${id}`);
    return row;
  }
}
