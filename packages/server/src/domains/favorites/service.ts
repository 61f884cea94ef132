import { noAccess, notFound } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { EventService } from "../events/service.js";
import type { FlagService } from "../features/flags/service.js";
import type { ProjectService } from "../projects/service.js";
import type {} from "./events.js";
import { type FavoriteKind, favoriteStore } from "./store.js";

/** The person marking favourites; API tokens belong to no one. */
function person(actor: Actor): number {
  if (actor.kind === "user") return actor.userId;
  throw noAccess(
    "Favourites belong to a person, and an API token is not one: log in, or use a personal access token, to mark favourites.",
  );
}

/**
 * The flags and projects each person marks as favourites. Marking twice, or unmarking what
 * is not marked, changes nothing and records nothing.
 */
export class FavoriteService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    // What can be marked: asked of the domains that hold it.
    private readonly known: { flags: Pick<FlagService, "find">; projects: Pick<ProjectService, "missing"> },
  ) {}

  /** Marks or unmarks a flag of the project, archived or not. */
  async setFeature(actor: Actor, projectId: string, featureName: string, favorite: boolean): Promise<void> {
    const userId = person(actor);
    await this.events.change(actor, async (change) => {
      const flag = await this.known.flags.find(change.db, featureName);
      if (flag?.project !== projectId) {
        throw notFound(`Could not find feature flag ${featureName} in project ${projectId}`);
      }
      if (!(await favoriteStore.set(change.db, "feature", userId, featureName, favorite))) return;
      change.record({
        type: favorite ? "feature-favorited" : "feature-unfavorited",
        project: projectId,
        featureName,
        data: { feature: featureName },
      });
    });
  }

  /** Marks or unmarks a project, archived or not. */
  async setProject(actor: Actor, projectId: string, favorite: boolean): Promise<void> {
    const userId = person(actor);
    await this.events.change(actor, async (change) => {
      if ((await this.known.projects.missing(change.db, [projectId])).length > 0) {
        throw notFound(`Could not find project ${projectId}`);
      }
      if (!(await favoriteStore.set(change.db, "project", userId, projectId, favorite))) return;
      change.record({
        type: favorite ? "project-favorited" : "project-unfavorited",
        project: projectId,
        data: { project: projectId },
      });
    });
  }

  /** The names of the flags the actor marked; none for callers who are not people. */
  features(actor: Actor, db: Db = this.db): Promise<Set<string>> {
    return this.marked(actor, "feature", db);
  }

  /** The ids of the projects the actor marked; none for callers who are not people. */
  projects(actor: Actor, db: Db = this.db): Promise<Set<string>> {
    return this.marked(actor, "project", db);
  }

  private async marked(actor: Actor, kind: FavoriteKind, db: Db): Promise<Set<string>> {
    if (actor.kind !== "user") return new Set();
    return new Set(await favoriteStore.of(db, kind, actor.userId));
  }
}
