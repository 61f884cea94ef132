import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import { configureGate, requiredApprovals } from "../change-gate/settings.js";
import type { EnvironmentService } from "../environments/service.js";
import type { EventService } from "../events/service.js";
import { type Projects, requireEnvironment, requireProject } from "./rules.js";
import type { ConfigInput, EnvironmentConfigView } from "./schemas.js";

/**
 * The change gate's settings as a project shows and changes them: one entry per environment
 * the project uses. What the gate does with them is in domains/change-gate.
 */
export class ChangeRequestConfiguration {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly others: { projects: Projects; environments: Pick<EnvironmentService, "list"> },
  ) {}

  async config(actor: Actor, project: string): Promise<EnvironmentConfigView[]> {
    const { projects, environments } = this.others;
    await requireProject(projects, this.db, actor, project);
    const types = new Map((await environments.list(actor)).map((env) => [env.name, env.type]));
    const approvals = await requiredApprovals(this.db, project);
    return (await projects.environmentsOf(this.db, project)).map((environment) => ({
      environment,
      type: types.get(environment) ?? "development",
      changeRequestEnabled: approvals.has(environment),
      requiredApprovals: approvals.get(environment) ?? null,
    }));
  }

  async configure(actor: Actor, project: string, environment: string, input: ConfigInput): Promise<void> {
    await this.events.change(actor, async (change) => {
      await requireEnvironment(this.others.projects, change.db, actor, project, environment);
      await configureGate(change, { project, environment }, input);
    });
  }
}
