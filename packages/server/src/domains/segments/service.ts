import { conflict, invalidField, nameExists, noAccess, notFound } from "@signalbox/protocol";
import type { Selectable } from "kysely";
import type { Actor } from "../../access/actor.js";
import { canSee } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { SegmentTable } from "../../db/schema.js";
import { checkConstraints } from "../../shared/schemas.js";
import { refuseUnreviewed } from "../change-gate/gate.js";
import { resource } from "../events/resource.js";
import type { Change, EventService } from "../events/service.js";
import type { ProjectService } from "../projects/service.js";
import type {} from "./events.js";
import type { SegmentInput, SegmentView, StrategyUse } from "./schemas.js";
import { type SegmentRow, segmentStore } from "./store.js";

/** A segment as defined: what it shows but where strategies use it. */
export type SegmentDefinition = Omit<SegmentView, "usedInFeatures" | "usedInProjects">;

const definition = (row: Selectable<SegmentTable>): SegmentDefinition => ({
  id: row.id,
  name: row.name,
  description: row.description,
  project: row.project,
  constraints: row.constraints,
  createdAt: row.created_at.toISOString(),
  createdBy: row.created_by,
});

const view = (row: SegmentRow): SegmentView => ({
  ...definition(row),
  usedInFeatures: row.used_in_features,
  usedInProjects: row.used_in_projects,
});

const segmentMissing = (id: number) => notFound(`Could not find segment with id ${id}`);

const segments = resource<number, SegmentView>({
  read: async (db, id) => {
    const row = await segmentStore.byId(db, id);
    return row && view(row);
  },
  missing: segmentMissing,
  subject: (segment) => ({ project: segment.project }),
  events: { created: "segment-created", updated: "segment-updated", deleted: "segment-deleted" },
});

/** Named lists of constraints that strategies share (`segments`). */
export class SegmentService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly projects: Pick<ProjectService, "findActive">,
  ) {}

  /** A private project's segments are hidden with it. */
  async list(actor: Actor): Promise<SegmentView[]> {
    return (await segmentStore.list(this.db))
      .map(view)
      .filter((segment) => segment.project === null || canSee(actor, segment.project));
  }

  /** The segments `list` shows, without where they are used, which it counts over every strategy. */
  async definitions(actor: Actor): Promise<SegmentDefinition[]> {
    return (await segmentStore.definitions(this.db))
      .map(definition)
      .filter((segment) => segment.project === null || canSee(actor, segment.project));
  }

  async get(actor: Actor, id: number): Promise<SegmentView> {
    const segment = await segments.require(this.db, id);
    this.requireVisible(actor, segment);
    return segment;
  }

  create(actor: Actor, input: SegmentInput): Promise<SegmentView> {
    checkConstraints(input.constraints, "constraints");
    return this.events.change(actor, async (change) => {
      await this.checkProject(change, input.project);
      return segments.create(change, async () => {
        const id = await segmentStore.insert(change.db, {
          name: input.name,
          description: input.description ?? null,
          project: input.project ?? null,
          constraints: JSON.stringify(input.constraints),
          created_by: actor.name,
        });
        if (id === undefined) throw nameExists(`A segment named ${input.name} already exists`);
        return id;
      });
    });
  }

  async update(actor: Actor, id: number, input: SegmentInput): Promise<void> {
    checkConstraints(input.constraints, "constraints");
    await this.events.change(actor, (change) =>
      segments.update(change, id, async (before) => {
        this.requireVisible(actor, before);
        await this.refuseUnreviewedUses(change, id);
        if (await segmentStore.nameTaken(change.db, input.name, id)) {
          throw nameExists(`A segment named ${input.name} already exists`);
        }
        await this.checkProject(change, input.project);
        if (input.project) {
          // A segment bound to a project may only serve that project's flags.
          const elsewhere = (await this.usedBy(change.db, id)).find(
            (strategy) => strategy.projectId !== input.project,
          );
          if (elsewhere) {
            throw invalidField(
              "project",
              `The segment is used by flag ${elsewhere.featureName} in project ${elsewhere.projectId}`,
            );
          }
        }
        // As in the reference, a project left out is cleared; a description left out is kept.
        await segmentStore.update(change.db, id, {
          name: input.name,
          description: input.description,
          project: input.project ?? null,
          constraints: JSON.stringify(input.constraints),
        });
      }),
    );
  }

  async remove(actor: Actor, id: number): Promise<void> {
    await this.events.change(actor, (change) =>
      segments.remove(change, id, async (before) => {
        this.requireVisible(actor, before);
        const users = await this.usedBy(change.db, id);
        await this.refuseUnreviewedUses(change, id);
        if (users.length > 0) {
          const flags = [...new Set(users.map((strategy) => strategy.featureName))].join(", ");
          throw conflict(`Segment ${before.name} is used by strategies of ${flags} and cannot be deleted`);
        }
        await segmentStore.remove(change.db, id);
      }),
    );
  }

  /** The strategies using the segment, in the projects the actor sees. */
  async strategiesOf(actor: Actor, id: number): Promise<StrategyUse[]> {
    await this.get(actor, id);
    return (await this.usedBy(this.db, id)).filter((use) => canSee(actor, use.projectId));
  }

  /**
   * For the strategies of a project's flag that name segments: each must be one the actor
   * sees, global or of that project. One they may not see is answered as one that does not
   * exist; another project's may serve only its own flags (403, the reference's 400).
   */
  async requireUsable(db: Db, actor: Actor, project: string, ids: number[]): Promise<void> {
    const owners = new Map((await segmentStore.owners(db, ids)).map((row) => [row.id, row]));
    for (const id of ids) {
      const segment = owners.get(id);
      if (!segment || (segment.project !== null && !canSee(actor, segment.project))) {
        throw invalidField("segments", `Segment ${id} does not exist`);
      }
      if (segment.project !== null && segment.project !== project) {
        throw noAccess(
          `Segment ${segment.name} (${id}) belongs to project ${segment.project}: only that project's flags can use it`,
        );
      }
    }
  }

  /** The segment read inside a transaction, for change requests that snapshot it. */
  async find(db: Db, id: number): Promise<SegmentView | undefined> {
    const row = await segmentStore.byId(db, id);
    return row && view(row);
  }

  /** A segment change reaches every environment whose strategies use it. */
  private async refuseUnreviewedUses(change: Change, id: number): Promise<void> {
    const places = new Map<string, Set<string>>();
    for (const use of await this.usedBy(change.db, id)) {
      places.set(use.projectId, (places.get(use.projectId) ?? new Set()).add(use.environment));
    }
    for (const [project, environments] of places) await refuseUnreviewed(change, project, [...environments]);
  }

  private async usedBy(db: Db, id: number): Promise<StrategyUse[]> {
    return (await segmentStore.usedBy(db, id)).map((row) => ({
      id: row.id,
      featureName: row.feature_name,
      projectId: row.project_name,
      environment: row.environment,
      strategyName: row.strategy_name,
    }));
  }

  /** A private project's segment does not exist for those who may not see the project. */
  private requireVisible(actor: Actor, segment: SegmentView): void {
    if (segment.project !== null && !canSee(actor, segment.project)) throw segmentMissing(segment.id);
  }

  private async checkProject(change: Change, project: string | null | undefined): Promise<void> {
    if (project && !(canSee(change.actor, project) && (await this.projects.findActive(change.db, project)))) {
      throw invalidField("project", `Active project with id ${project} does not exist`);
    }
  }
}
