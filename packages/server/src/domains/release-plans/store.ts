import type { Selectable } from "kysely";
import type { Db } from "../../db/connection.js";
import type {
  MilestoneStrategyRow,
  ReleasePlanDefinitionTable,
  ReleasePlanMilestoneTable,
  SafeguardMetricRow,
  SafeguardTable,
} from "../../db/schema.js";

export type DefinitionRow = Selectable<ReleasePlanDefinitionTable>;
export type MilestoneRow = Selectable<ReleasePlanMilestoneTable>;
export type SafeguardRow = Selectable<SafeguardTable>;

export interface NewMilestone {
  id: string;
  name: string;
  sortOrder: number;
  strategies: MilestoneStrategyRow[];
  transitionCondition: { intervalMinutes: number } | null;
}

const json = (value: unknown) => JSON.stringify(value);

/** Templates, plans and their milestones (`release_plan_*`), and safeguards. */
export const releasePlanStore = {
  async definition(db: Db, id: string, discriminator: "template" | "plan") {
    return db
      .selectFrom("release_plan_definitions")
      .selectAll()
      .where("id", "=", id)
      .where("discriminator", "=", discriminator)
      .executeTakeFirst();
  },

  async templates(db: Db, includeArchived: boolean) {
    let query = db.selectFrom("release_plan_definitions").selectAll().where("discriminator", "=", "template");
    if (!includeArchived) query = query.where("archived_at", "is", null);
    return query.orderBy("created_at").orderBy("id").execute();
  },

  async templateNamed(db: Db, name: string) {
    return db
      .selectFrom("release_plan_definitions")
      .select("id")
      .where("discriminator", "=", "template")
      .where("name", "=", name)
      .where("archived_at", "is", null)
      .executeTakeFirst();
  },

  /** The plans of flags, in each environment (all of them when `environment` is undefined). */
  async plansOf(db: Db, features: string[], environment?: string) {
    if (features.length === 0) return [];
    let query = db
      .selectFrom("release_plan_definitions")
      .selectAll()
      .where("discriminator", "=", "plan")
      .where("feature_name", "in", features);
    if (environment !== undefined) query = query.where("environment", "=", environment);
    return query.orderBy("environment").execute();
  },

  async insertDefinition(db: Db, row: Omit<DefinitionRow, "created_at" | "archived_at">) {
    await db.insertInto("release_plan_definitions").values(row).execute();
  },

  async updateDefinition(
    db: Db,
    id: string,
    values: Partial<Pick<DefinitionRow, "name" | "description" | "active_milestone_id" | "archived_at">>,
  ) {
    await db.updateTable("release_plan_definitions").set(values).where("id", "=", id).execute();
  },

  async deleteDefinition(db: Db, id: string) {
    await db.deleteFrom("release_plan_definitions").where("id", "=", id).execute();
  },

  async milestones(db: Db, definitionIds: string[]) {
    if (definitionIds.length === 0) return [];
    return db
      .selectFrom("release_plan_milestones")
      .selectAll()
      .where("release_plan_definition_id", "in", definitionIds)
      .orderBy("sort_order")
      .orderBy("id")
      .execute();
  },

  async replaceMilestones(db: Db, definitionId: string, milestones: NewMilestone[]) {
    await db
      .deleteFrom("release_plan_milestones")
      .where("release_plan_definition_id", "=", definitionId)
      .execute();
    if (milestones.length === 0) return;
    await db
      .insertInto("release_plan_milestones")
      .values(
        milestones.map((milestone) => ({
          id: milestone.id,
          release_plan_definition_id: definitionId,
          name: milestone.name,
          sort_order: milestone.sortOrder,
          strategies: json(milestone.strategies),
          transition_condition: json(milestone.transitionCondition),
        })),
      )
      .execute();
  },

  async updateMilestone(
    db: Db,
    id: string,
    values: Partial<{
      started_at: Date | null;
      paused_at: Date | null;
      progression_due_at: Date | null;
      progression_executed_at: Date | null;
      transition_condition: { intervalMinutes: number } | null;
      progression_target: string | null;
    }>,
  ) {
    const { transition_condition, ...rest } = values;
    await db
      .updateTable("release_plan_milestones")
      .set({
        ...rest,
        ...(transition_condition !== undefined && { transition_condition: json(transition_condition) }),
      })
      .where("id", "=", id)
      .execute();
  },

  /** When the soonest progression falls due, of milestones that are active and not paused. */
  async nextDue(db: Db): Promise<Date | undefined> {
    const row = await db
      .selectFrom("release_plan_milestones")
      .select((eb) => eb.fn.min("progression_due_at").as("due"))
      .where("progression_due_at", "is not", null)
      .executeTakeFirst();
    return row?.due ? new Date(row.due) : undefined;
  },

  /** The milestone whose progression is the most overdue. */
  async firstDue(db: Db, now: Date) {
    return db
      .selectFrom("release_plan_milestones")
      .selectAll()
      .where("progression_due_at", "<=", now)
      .orderBy("progression_due_at")
      .limit(1)
      .executeTakeFirst();
  },

  /** Locks a plan's row for the rest of the transaction: changes to one plan are made one at a time. */
  async lockPlan(db: Db, id: string) {
    return db
      .selectFrom("release_plan_definitions")
      .selectAll()
      .where("id", "=", id)
      .where("discriminator", "=", "plan")
      .forUpdate()
      .executeTakeFirst();
  },

  async safeguardsOf(db: Db, features: string[], environment?: string) {
    if (features.length === 0) return [];
    let query = db.selectFrom("safeguards").selectAll().where("feature_name", "in", features);
    if (environment !== undefined) query = query.where("environment", "=", environment);
    return query.orderBy("created_at").orderBy("id").execute();
  },

  async allSafeguards(db: Db) {
    return db.selectFrom("safeguards").selectAll().orderBy("id").execute();
  },

  async safeguard(db: Db, id: string) {
    return db.selectFrom("safeguards").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** The safeguard, locked, if another instance is not acting on it right now. */
  async claimSafeguard(db: Db, id: string) {
    return db
      .selectFrom("safeguards")
      .selectAll()
      .where("id", "=", id)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
  },

  async saveSafeguard(
    db: Db,
    row: Omit<SafeguardRow, "created_at" | "triggered_at" | "impact_metric" | "trigger_condition"> & {
      impact_metric: SafeguardMetricRow;
      trigger_condition: SafeguardRow["trigger_condition"];
    },
  ) {
    const values = {
      ...row,
      impact_metric: json(row.impact_metric),
      trigger_condition: json(row.trigger_condition),
    };
    await db
      .insertInto("safeguards")
      .values(values)
      .onConflict((conflict) =>
        conflict.column("id").doUpdateSet({
          impact_metric: values.impact_metric,
          trigger_condition: values.trigger_condition,
          triggered_at: null,
        }),
      )
      .execute();
  },

  async markTriggered(db: Db, id: string, at: Date) {
    await db.updateTable("safeguards").set({ triggered_at: at }).where("id", "=", id).execute();
  },

  async rearm(db: Db, feature: string, environment: string, since: Date) {
    await db
      .updateTable("safeguards")
      .set({ triggered_at: null })
      .where("feature_name", "=", feature)
      .where("environment", "=", environment)
      .where("release_plan_id", "is", null)
      .where("triggered_at", "<", since)
      .execute();
  },

  async deleteSafeguard(db: Db, id: string) {
    await db.deleteFrom("safeguards").where("id", "=", id).execute();
  },
};
