import { invalidField, nameExists, notFound } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import { actorUserId } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { MilestoneStrategyRow } from "../../db/schema.js";
import { ulid } from "../../shared/ulid.js";
import type { EventService } from "../events/service.js";
import type { StrategyService } from "../features/strategies/service.js";
import type { SegmentService } from "../segments/service.js";
import type {} from "./events.js";
import type { MilestoneStrategyInput, Template, TemplateInput } from "./schemas.js";
import { type NewMilestone, releasePlanStore as store } from "./store.js";
import { templateView } from "./views.js";

const missingTemplate = (id: string) => notFound(`Could not find release template ${id}`);

/** The template library: named, ordered milestones, each with the strategies it will serve. */
export class ReleaseTemplateService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly lookups: {
      strategies: Pick<StrategyService, "check">;
      segments: Pick<SegmentService, "find">;
    },
  ) {}

  async list(_actor: Actor, includeArchived = false): Promise<Template[]> {
    const rows = await store.templates(this.db, includeArchived);
    const milestones = await store.milestones(
      this.db,
      rows.map((row) => row.id),
    );
    return rows.map((row) =>
      templateView(
        row,
        milestones.filter((milestone) => milestone.release_plan_definition_id === row.id),
      ),
    );
  }

  async get(_actor: Actor, id: string): Promise<Template> {
    return this.view(this.db, id);
  }

  async create(actor: Actor, input: TemplateInput): Promise<Template> {
    return this.events.change(actor, async (change) => {
      await this.refuseTakenName(change.db, input.name);
      const id = ulid();
      await store.insertDefinition(change.db, {
        id,
        discriminator: "template",
        name: input.name,
        description: input.description ?? null,
        feature_name: null,
        environment: null,
        release_plan_template_id: null,
        active_milestone_id: null,
        created_by_user_id: actorUserId(actor),
      });
      await store.replaceMilestones(change.db, id, await this.milestones(change.db, input));
      const template = await this.view(change.db, id);
      change.record({ type: "release-plan-template-created", data: template });
      return template;
    });
  }

  /** Replaces the template's name, description and milestones; plans made from it keep their copy. */
  async update(actor: Actor, id: string, input: TemplateInput): Promise<Template> {
    return this.events.change(actor, async (change) => {
      const before = await this.view(change.db, id);
      if (input.name !== before.name) await this.refuseTakenName(change.db, input.name);
      await store.updateDefinition(change.db, id, {
        name: input.name,
        description: input.description ?? null,
      });
      await store.replaceMilestones(change.db, id, await this.milestones(change.db, input, before));
      const template = await this.view(change.db, id);
      change.record({ type: "release-plan-template-updated", data: template, preData: before });
      return template;
    });
  }

  async archive(actor: Actor, id: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const before = await this.view(change.db, id);
      if (before.archivedAt) return;
      await store.updateDefinition(change.db, id, { archived_at: new Date() });
      change.record({
        type: "release-plan-template-archived",
        data: await this.view(change.db, id),
        preData: before,
      });
    });
  }

  async remove(actor: Actor, id: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const before = await this.view(change.db, id);
      await store.deleteDefinition(change.db, id);
      change.record({ type: "release-plan-template-deleted", preData: before });
    });
  }

  /** A template a plan is made from: it must exist and not be archived. */
  async usable(db: Db, id: string): Promise<Template> {
    const template = await this.view(db, id).catch(() => undefined);
    if (!template || template.archivedAt) {
      throw notFound(`Could not find release template ${id}${template ? " (it is archived)" : ""}`);
    }
    return template;
  }

  private async view(db: Db, id: string): Promise<Template> {
    const row = await store.definition(db, id, "template");
    if (!row) throw missingTemplate(id);
    return templateView(row, await store.milestones(db, [id]));
  }

  private async refuseTakenName(db: Db, name: string): Promise<void> {
    if (await store.templateNamed(db, name))
      throw nameExists(`A release template named ${name} already exists`);
  }

  /**
   * The milestones checked and brought to the stored form: strategies as a flag would store
   * them (parameters as strings, variant weights settled), segments that exist, and ids kept
   * for milestones and strategies an edit keeps.
   */
  private async milestones(db: Db, input: TemplateInput, before?: Template): Promise<NewMilestone[]> {
    const orders = new Set<number>();
    const result: NewMilestone[] = [];
    for (const [index, milestone] of input.milestones.entries()) {
      if (orders.has(milestone.sortOrder)) {
        throw invalidField(
          `milestones[${index}].sortOrder`,
          `Two milestones have sortOrder ${milestone.sortOrder}`,
        );
      }
      orders.add(milestone.sortOrder);
      const kept = before?.milestones.find((old) => old.name === milestone.name);
      const strategies: MilestoneStrategyRow[] = [];
      for (const [position, strategy] of (milestone.strategies ?? []).entries()) {
        strategies.push(
          await this.strategy(db, strategy, position, `milestones[${index}].strategies[${position}]`),
        );
      }
      result.push({
        id: kept?.id ?? ulid(),
        name: milestone.name,
        sortOrder: milestone.sortOrder,
        strategies,
        transitionCondition: milestone.transitionCondition ?? null,
      });
    }
    return result.sort((a, b) => a.sortOrder - b.sortOrder);
  }

  private async strategy(
    db: Db,
    input: MilestoneStrategyInput,
    position: number,
    path: string,
  ): Promise<MilestoneStrategyRow> {
    const name = input.name ?? input.strategyName;
    if (!name) throw invalidField(`${path}.name`, "A milestone's strategy needs a name");
    const checked = await this.lookups.strategies.check(db, { ...input, name });
    const segments = [...new Set(input.segments ?? [])];
    // A template serves every project: only global segments mean the same in each.
    for (const segment of segments) {
      if ((await this.lookups.segments.find(db, segment))?.project !== null) {
        throw invalidField(`${path}.segments`, `Segment ${segment} is not a global segment`);
      }
    }
    return {
      id: ulid(),
      name: checked.name,
      title: input.title ?? null,
      disabled: input.disabled ?? false,
      sortOrder: input.sortOrder ?? position,
      parameters: checked.parameters,
      constraints: checked.constraints,
      variants: checked.variants,
      segments,
    };
  }
}
