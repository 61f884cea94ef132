import { conflict, invalidField, nameExists, notFound } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import type { ConstraintRow } from "../../db/schema.js";
import { checkConstraints } from "../../shared/schemas.js";
import type { EventService } from "../events/service.js";
import type { ProjectService } from "../projects/service.js";
import { type SegmentRow, segmentStore } from "./store.js";

export interface SegmentView {
  id: number;
  name: string;
  description: string | null;
  project: string | null;
  constraints: ConstraintRow[];
  createdAt: string;
  createdBy: string | null;
  usedInFeatures: number;
  usedInProjects: number;
}

export interface SegmentInput {
  name: string;
  description?: string | null;
  project?: string | null;
  constraints: ConstraintRow[];
}

export interface SegmentStrategy {
  id: string;
  featureName: string;
  projectId: string;
  environment: string;
  strategyName: string;
}

const view = (row: SegmentRow): SegmentView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  project: row.project,
  constraints: row.constraints,
  createdAt: row.created_at.toISOString(),
  createdBy: row.created_by,
  usedInFeatures: row.used_in_features,
  usedInProjects: row.used_in_projects,
});

export class SegmentService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly projects: ProjectService,
  ) {}

  async list(): Promise<SegmentView[]> {
    return (await segmentStore.list(this.db)).map(view);
  }

  async get(id: number): Promise<SegmentView> {
    return view(await this.require(this.db, id));
  }

  create(input: SegmentInput, createdBy: string): Promise<SegmentView> {
    checkConstraints(input.constraints, "constraints");
    return this.events.transaction(async (tx) => {
      await this.checkProject(tx.db, input.project);
      const id = await segmentStore.insert(tx.db, {
        name: input.name,
        description: input.description ?? null,
        project: input.project ?? null,
        constraints: JSON.stringify(input.constraints),
        created_by: createdBy,
      });
      if (id === undefined) throw nameExists(`A segment named ${input.name} already exists`);
      const created = view(await this.require(tx.db, id));
      tx.record({ type: "segment-created", createdBy, project: created.project, data: created });
      return created;
    });
  }

  async update(id: number, input: SegmentInput, updatedBy: string): Promise<void> {
    checkConstraints(input.constraints, "constraints");
    await this.events.transaction(async (tx) => {
      const before = view(await this.require(tx.db, id));
      if (await segmentStore.nameTaken(tx.db, input.name, id)) {
        throw nameExists(`A segment named ${input.name} already exists`);
      }
      await this.checkProject(tx.db, input.project);
      if (input.project) {
        // A segment bound to a project may only serve that project's flags.
        const elsewhere = (await segmentStore.strategiesUsing(tx.db, id)).find(
          (strategy) => strategy.project_name !== input.project,
        );
        if (elsewhere) {
          throw invalidField(
            "project",
            `The segment is used by flag ${elsewhere.feature_name} in project ${elsewhere.project_name}`,
          );
        }
      }
      // As in the reference, a project left out is cleared; a description left out is kept.
      await segmentStore.update(tx.db, id, {
        name: input.name,
        description: input.description,
        project: input.project ?? null,
        constraints: JSON.stringify(input.constraints),
      });
      const after = view(await this.require(tx.db, id));
      tx.record({
        type: "segment-updated",
        createdBy: updatedBy,
        project: after.project,
        data: after,
        preData: before,
      });
    });
  }

  async remove(id: number, deletedBy: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const before = view(await this.require(tx.db, id));
      const users = await segmentStore.strategiesUsing(tx.db, id);
      if (users.length > 0) {
        const flags = [...new Set(users.map((strategy) => strategy.feature_name))].join(", ");
        throw conflict(`Segment ${before.name} is used by strategies of ${flags} and cannot be deleted`);
      }
      await segmentStore.remove(tx.db, id);
      tx.record({ type: "segment-deleted", createdBy: deletedBy, project: before.project, preData: before });
    });
  }

  async strategiesOf(id: number): Promise<SegmentStrategy[]> {
    return (await segmentStore.strategiesUsing(this.db, id)).map((row) => ({
      id: row.id,
      featureName: row.feature_name,
      projectId: row.project_name,
      environment: row.environment,
      strategyName: row.strategy_name,
    }));
  }

  /** For strategies that name segments: every id must be a segment. */
  async requireAll(db: Db, ids: number[]): Promise<void> {
    const known = new Set(await segmentStore.existingIds(db, ids));
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined) throw invalidField("segments", `Segment ${unknown} does not exist`);
  }

  private async checkProject(db: Db, project: string | null | undefined): Promise<void> {
    if (project && !(await this.projects.findActive(db, project))) {
      throw invalidField("project", `Active project with id ${project} does not exist`);
    }
  }

  private async require(db: Db, id: number): Promise<SegmentRow> {
    const row = await segmentStore.byId(db, id);
    if (!row) throw notFound(`Could not find segment with id ${id}`);
    return row;
  }
}
