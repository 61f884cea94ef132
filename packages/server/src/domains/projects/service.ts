import { invalidField, nameExists, notFound } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { StrategyInput } from "../../shared/strategy.js";
import type { EnvironmentService } from "../environments/service.js";
import { resource } from "../events/resource.js";
import type { Change, EventService } from "../events/service.js";
import { checkNaming } from "./naming.js";
import type { FeatureNaming, NewProject, ProjectUpdate, Settings } from "./schemas.js";
import { type ProjectRow, projectStore } from "./store.js";

/** What the features domain needs to know before it adds a flag to a project. */
export interface ActiveProject {
  id: string;
  featureNaming: FeatureNaming;
  featureLimit: number | null;
  defaultStickiness: string;
}

export const iso = (date: Date | null) => date?.toISOString() ?? null;

export const naming = (row: ProjectRow): FeatureNaming => ({
  pattern: row.feature_naming_pattern,
  example: row.feature_naming_example,
  description: row.feature_naming_description,
});

/** The stored settings of a project: what its events carry as data and preData. */
export type ProjectSettings = ReturnType<typeof settings>;

export const settings = (row: ProjectRow) => ({
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

/** A project's settings read, updated and deleted with their events. */
export const projectRecords = resource<string, ProjectSettings>({
  read: async (db, id) => {
    const row = await projectStore.byId(db, id);
    return row && settings(row);
  },
  missing: (id) => notFound(`Could not find project with id ${id}`),
  subject: (project) => ({ project: project.id }),
  events: { updated: "project-updated", deleted: "project-deleted" },
});

/**
 * Projects (`projects`) and the environments each uses (`project_environments`): what every
 * domain that lives in a project looks up, and the project's own settings. What a project
 * shows of its flags and people is its overview (overview.ts); what reaches into its flags
 * when it is created, archived, deleted or given environments is its lifecycle (lifecycle.ts).
 */
export class ProjectService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly environments: Pick<EnvironmentService, "enabledNames" | "missing">,
  ) {}

  /**
   * Inserts a project with its environments (those named, else every enabled one), inside
   * the creation's transaction; its event is the lifecycle's to record, with the project as
   * its overview then shows it.
   */
  async create(change: Change, input: NewProject): Promise<void> {
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
  }

  async update(actor: Actor, id: string, input: ProjectUpdate): Promise<void> {
    await this.events.change(actor, (change) =>
      projectRecords.update(change, id, () =>
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
      projectRecords.update(change, id, () =>
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

  /** Stores the environment's default strategy; the caller has checked it and records the event. */
  setDefaultStrategy(db: Db, projectId: string, environment: string, strategy: StrategyInput): Promise<void> {
    return projectStore.setDefaultStrategy(db, projectId, environment, strategy);
  }

  async environmentsOf(db: Db, projectId: string): Promise<string[]> {
    return (await projectStore.environments(db, projectId)).map((row) => row.environment_name);
  }
}
