import { ApiError, invalidField, notFound } from "@signalbox/protocol";
import type { Db } from "../../db/connection.js";
import type { EventService } from "../events/service.js";
import { requireFeature } from "./access.js";
import { featureStore } from "./store.js";

export interface DependencyInput {
  feature: string;
  enabled?: boolean;
  variants?: string[];
}

const refused = (message: string) => new ApiError("InvalidOperationError", message);

/** Parent flags: one level deep, within one project. */
export class DependencyService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
  ) {}

  async add(projectId: string, child: string, input: DependencyInput, by: string): Promise<void> {
    const enabled = input.enabled ?? true;
    const variants = input.variants ?? [];
    if (!enabled && variants.length > 0) {
      throw invalidField("variants", "variants can only be required of a parent that must be enabled");
    }
    await this.events.transaction(async (tx) => {
      const row = await requireFeature(tx.db, projectId, child);
      // Statuses and order of the checks as the reference's, which scripts may test for.
      if (input.feature === child) throw refused("a flag cannot depend on itself");
      if ((await featureStore.childrenOf(tx.db, [child])).length > 0) {
        throw refused(`${child} has children of its own: dependencies are one level deep`);
      }
      if ((await featureStore.parentsOf(tx.db, [input.feature])).length > 0) {
        throw refused(`${input.feature} depends on another flag itself: dependencies are one level deep`);
      }
      const parent = await featureStore.find(tx.db, input.feature);
      if (!parent || parent.archived_at) throw refused(`parent flag ${input.feature} does not exist`);
      if (parent.project !== row.project)
        throw notFound(`a parent flag must be in the same project as its child (${row.project})`);
      await featureStore.addDependency(tx.db, child, parent.name, enabled, variants);
      tx.record({
        type: "feature-dependency-added",
        createdBy: by,
        project: row.project,
        featureName: child,
        data: { feature: parent.name, enabled, variants },
      });
    });
  }

  /** Removes one parent, or all of them when `parent` is undefined. */
  async remove(projectId: string, child: string, parent: string | undefined, by: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      const row = await requireFeature(tx.db, projectId, child);
      const removed = await featureStore.removeDependency(tx.db, child, parent);
      if (parent && removed === 0) throw notFound(`${child} does not depend on ${parent}`);
      tx.record({
        type: parent ? "feature-dependency-removed" : "feature-dependencies-removed",
        createdBy: by,
        project: row.project,
        featureName: child,
        ...(parent ? { data: { feature: parent } } : {}),
      });
    });
  }

  hasAny(projectId: string): Promise<boolean> {
    return featureStore.projectHasDependencies(this.db, projectId);
  }
}
