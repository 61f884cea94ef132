import { invalidField, notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import type { StrategyInput } from "../../../shared/strategy.js";
import { refuseUnreviewable } from "../../change-gate/gate.js";
import type { EventService } from "../../events/service.js";
import type { ProjectService } from "../../projects/service.js";
import type { SegmentService } from "../../segments/service.js";
import type {} from "./events.js";
import type { StrategyService } from "./service.js";

/**
 * A project environment's default strategy (`project_environments.default_strategy`): what a
 * flag switched on there without an active strategy is given. It is kept with the project's
 * environment, but follows the rules of strategies and segments, so it is decided here,
 * above both.
 */
export class DefaultStrategyService {
  constructor(
    private readonly events: EventService,
    private readonly lookups: {
      projects: Pick<
        ProjectService,
        "requireActive" | "environmentsOf" | "defaultStrategy" | "setDefaultStrategy"
      >;
      strategies: Pick<StrategyService, "check">;
      segments: Pick<SegmentService, "requireUsable">;
    },
  ) {}

  /**
   * Sets it, checked as a strategy of the project's flags would be when given. As in the
   * reference, only a gradual rollout can be a default, and its group id may be left empty
   * for each flag's name.
   */
  set(actor: Actor, projectId: string, environment: string, input: StrategyInput): Promise<StrategyInput> {
    if (input.name !== "flexibleRollout") {
      throw invalidField(
        "name",
        'Only the "flexibleRollout" strategy can be the default strategy of an environment',
      );
    }
    return this.events.change(actor, async (change) => {
      await this.lookups.projects.requireActive(change.db, projectId);
      if (!(await this.lookups.projects.environmentsOf(change.db, projectId)).includes(environment)) {
        throw notFound(`Project ${projectId} does not have the environment ${environment}`);
      }
      // What flags switched on there will serve, yet no change request can hold it.
      await refuseUnreviewable(change, "Changing the default strategy", projectId, [environment]);
      const { parameters } = await this.lookups.strategies.check(change.db, input);
      const segments = [...new Set(input.segments ?? [])];
      await this.lookups.segments.requireUsable(change.db, actor, projectId, segments);
      const strategy: StrategyInput = {
        name: input.name,
        ...(input.title !== undefined && { title: input.title }),
        ...(input.disabled !== undefined && { disabled: input.disabled }),
        ...(input.sortOrder !== undefined && { sortOrder: input.sortOrder }),
        constraints: input.constraints ?? [],
        parameters,
        variants: input.variants ?? [],
        segments,
      };
      const before = await this.lookups.projects.defaultStrategy(change.db, projectId, environment);
      await this.lookups.projects.setDefaultStrategy(change.db, projectId, environment, strategy);
      change.record({
        type: "default-strategy-updated",
        project: projectId,
        environment,
        data: strategy,
        preData: before,
      });
      return strategy;
    });
  }
}
