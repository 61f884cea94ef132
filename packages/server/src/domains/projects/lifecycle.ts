import { invalidField, nameExists, notFound, validationError } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { MemberService } from "../access/members/service.js";
import { refuseUnreviewable } from "../change-gate/gate.js";
import type { EnvironmentService } from "../environments/service.js";
import type { EventService } from "../events/service.js";
import type { FlagService } from "../features/flags/service.js";
import type { StrategyService } from "../features/strategies/service.js";
import type {} from "./events.js";
import type { ProjectOverview } from "./overview.js";
import type { NewProject, ProjectDetails } from "./schemas.js";
import { type ProjectService, projectRecords, settings } from "./service.js";
import { projectStore } from "./store.js";

/** What a project's life reaches: its owner, its flags and their strategies, and how it then reads. */
export interface ProjectReach {
  projects: Pick<ProjectService, "create" | "requireActive" | "environmentsOf">;
  overview: Pick<ProjectOverview, "details">;
  environments: Pick<EnvironmentService, "missing">;
  members: Pick<MemberService, "addOwner">;
  flags: Pick<FlagService, "inProject" | "removeWithProject" | "joinEnvironment" | "leaveEnvironment">;
  strategies: Pick<StrategyService, "removeInProject">;
}

/**
 * What happens to a project that reaches what lives in it: created with its owner, archived
 * and deleted only without active flags (its archived ones go with it), and its environments,
 * which its flags join and leave with it. A use case, above the project's flags and people.
 */
export class ProjectLifecycle {
  constructor(
    private readonly events: EventService,
    private readonly reach: ProjectReach,
  ) {}

  create(actor: Actor, input: NewProject): Promise<ProjectDetails> {
    return this.events.change(actor, async (change) => {
      await this.reach.projects.create(change, input);
      // A person who creates a project owns it, as in the reference; a token or the system owns nothing.
      if (actor.kind === "user") await this.reach.members.addOwner(change, input.id, actor.userId);
      const created = await this.reach.overview.details(change.db, input.id, actor);
      change.record({ type: "project-created", project: input.id, data: created });
      return created;
    });
  }

  async archive(actor: Actor, id: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const before = await projectRecords.require(change.db, id);
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
      projectRecords.remove(change, id, async () => {
        await this.refuseActiveFlags(change.db, id, "deleted");
        await this.reach.flags.removeWithProject(change, id);
        await projectStore.remove(change.db, id);
      }),
    );
  }

  async addEnvironment(actor: Actor, projectId: string, environment: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      await this.reach.projects.requireActive(change.db, projectId);
      const [unknown] = await this.reach.environments.missing(change.db, [environment]);
      if (unknown) throw invalidField("environment", `Environment ${environment} does not exist`);
      if (!(await projectStore.linkEnvironment(change.db, projectId, environment))) {
        throw nameExists(`Project ${projectId} already has the environment ${environment}`);
      }
      await this.reach.flags.joinEnvironment(change.db, projectId, environment);
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
      await this.reach.projects.requireActive(change.db, projectId);
      const linked = await this.reach.projects.environmentsOf(change.db, projectId);
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
      await this.reach.strategies.removeInProject(change.db, projectId, environment);
      await this.reach.flags.leaveEnvironment(change.db, projectId, environment);
      await projectStore.unlinkEnvironment(change.db, projectId, environment);
      change.record({
        type: "project-environment-removed",
        project: projectId,
        environment,
        preData: { environment },
      });
    });
  }

  /** Refuses when the project holds active flags. */
  private async refuseActiveFlags(db: Db, id: string, fate: string): Promise<void> {
    const active = (await this.reach.flags.inProject(db, id))
      .filter((flag) => !flag.archived)
      .map((flag) => flag.name);
    if (active.length > 0) {
      throw validationError(
        `Project ${id} cannot be ${fate} while it holds active flags (${active.join(", ")}); archive them first`,
      );
    }
  }
}
