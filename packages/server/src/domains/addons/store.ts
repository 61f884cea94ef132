import { type Insertable, type Selectable, sql } from "kysely";
import type { Db } from "../../db/connection.js";
import type { AddonTable, IntegrationEventTable } from "../../db/schema.js";
import { namesAnyOf } from "../events/hidden.js";

export type AddonRow = Selectable<AddonTable>;
export type IntegrationEventRow = Omit<Selectable<IntegrationEventTable>, "id"> & { id: string };

export interface AddonFields {
  provider: string;
  description: string | null;
  enabled: boolean;
  parameters: AddonTable["parameters"]["__select__"];
  events: string[];
  projects: string[];
  environments: string[];
}

const asColumns = (fields: AddonFields) => ({
  provider: fields.provider,
  description: fields.description,
  enabled: fields.enabled,
  parameters: JSON.stringify(fields.parameters),
  events: JSON.stringify(fields.events),
  projects: JSON.stringify(fields.projects),
  environments: JSON.stringify(fields.environments),
});

export const addonStore = {
  list: (db: Db): Promise<AddonRow[]> => db.selectFrom("addons").selectAll().orderBy("id").execute(),

  enabled: (db: Db): Promise<AddonRow[]> =>
    db.selectFrom("addons").selectAll().where("enabled", "=", true).orderBy("id").execute(),

  byId: (db: Db, id: number): Promise<AddonRow | undefined> =>
    db.selectFrom("addons").selectAll().where("id", "=", id).executeTakeFirst(),

  async insert(db: Db, fields: AddonFields): Promise<number> {
    const row = await db
      .insertInto("addons")
      .values(asColumns(fields))
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  },

  async update(db: Db, id: number, fields: AddonFields): Promise<void> {
    await db.updateTable("addons").set(asColumns(fields)).where("id", "=", id).execute();
  },

  async remove(db: Db, id: number): Promise<void> {
    await db.deleteFrom("addons").where("id", "=", id).execute();
  },
};

const COLUMNS = [
  sql<string>`id::text`.as("id"),
  "integration_id",
  "created_at",
  "state",
  "state_details",
  "event",
  "details",
  "attempts",
] as const;

export const integrationEventStore = {
  /** Records a delivery and cuts the addon's log to its newest `keep` entries; the new entry's id. */
  async record(db: Db, entry: Insertable<IntegrationEventTable>, keep: number): Promise<string> {
    const { id } = await db
      .insertInto("integration_events")
      .values(entry)
      .returning(sql<string>`id::text`.as("id"))
      .executeTakeFirstOrThrow();
    await db
      .deleteFrom("integration_events")
      .where("integration_id", "=", entry.integration_id)
      .where(
        "id",
        "<",
        db
          .selectFrom("integration_events")
          .select("id")
          .where("integration_id", "=", entry.integration_id)
          .orderBy("id", "desc")
          .offset(keep - 1)
          .limit(1),
      )
      .execute();
    return id;
  },

  byId: (db: Db, id: string): Promise<IntegrationEventRow | undefined> =>
    db
      .selectFrom("integration_events")
      .select(COLUMNS)
      .where("integration_events.id", "=", Number(id))
      .executeTakeFirst(),

  /**
   * Newest first; ids as text, being bigints. A delivery of an event that names a `hidden`
   * project is left out, as the event log leaves the event out.
   */
  list: (
    db: Db,
    integrationId: number,
    page: { limit: number; offset: number; hidden: readonly string[] },
  ): Promise<IntegrationEventRow[]> =>
    db
      .selectFrom("integration_events")
      .select(COLUMNS)
      .where("integration_id", "=", integrationId)
      .$if(page.hidden.length > 0, (select) =>
        select.where(
          sql<boolean>`not exists (
            select from events
            where events.id = (integration_events.event ->> 'id')::bigint and ${namesAnyOf(page.hidden)}
          )`,
        ),
      )
      .orderBy("integration_events.id", "desc")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
};
