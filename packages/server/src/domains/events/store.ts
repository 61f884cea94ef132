import { type Selectable, sql } from "kysely";
import type { Db } from "../../db/connection.js";
import type { EventTable } from "../../db/schema.js";
import type { EventType } from "./catalogue.js";
import { namesAnyOf } from "./hidden.js";
import type { EventListQuery, StoredEvent } from "./schemas.js";

export interface NewEvent {
  type: EventType;
  createdBy: string;
  createdByUserId?: number | null;
  project?: string | null;
  environment?: string | null;
  featureName?: string | null;
  data?: unknown;
  preData?: unknown;
  tags?: { type: string; value: string }[];
}

export type EventQuery = Omit<EventListQuery, "limit" | "offset"> & {
  limit: number;
  /** Matching events to skip, newest first. */
  offset: number;
  /** The id of the newest event to list (endpoint 16's `offset`); older ones follow. */
  startAt?: number;
  /**
   * Projects whose events are left out: every event that names one (as its project, or in its
   * data or preData), or names a flag that is in one now.
   */
  hidden?: string[];
};

const toEvent = (row: Selectable<EventTable>): StoredEvent => ({
  id: row.id,
  // Written only through NewEvent, whose type is the catalogue's.
  type: row.type as EventType,
  createdAt: row.created_at.toISOString(),
  createdBy: row.created_by,
  createdByUserId: row.created_by_user_id,
  project: row.project,
  environment: row.environment,
  featureName: row.feature_name,
  data: row.data,
  preData: row.pre_data,
  tags: row.tags,
});

/** Where commits are announced to every instance on the database: `<revision>[ credentials]`. */
export const CHANGES_CHANNEL = "signalbox_changes";
export const CREDENTIALS_SUFFIX = " credentials";

/**
 * An event as one row of the JSON array `append` sends. `tags` is left null for an event about
 * a flag that was given none: it carries the flag's tags as they are when the event is
 * written, read in the statement that writes it (the one place every event passes).
 */
const appended = (event: NewEvent) => ({
  type: event.type,
  created_by: event.createdBy,
  created_by_user_id: event.createdByUserId ?? null,
  project: event.project ?? null,
  environment: event.environment ?? null,
  feature_name: event.featureName ?? null,
  data: event.data ?? null,
  pre_data: event.preData ?? null,
  tags: event.tags !== undefined || !event.featureName ? (event.tags ?? []) : null,
});

export const eventStore = {
  /**
   * One statement however many events a change records (an import records thousands): they
   * travel as one JSON parameter, as a statement holds at most 65 535 parameters, and are
   * numbered in the order recorded.
   */
  async append(db: Db, events: readonly NewEvent[]): Promise<void> {
    await sql`
      insert into events
        (type, created_by, created_by_user_id, project, environment, feature_name, data, pre_data, tags)
      select e.type, e.created_by, e.created_by_user_id, e.project, e.environment, e.feature_name,
             e.data, e.pre_data,
             coalesce(e.tags, (
               select coalesce(
                 jsonb_agg(jsonb_build_object('type', tag_type, 'value', tag_value)
                           order by created_at, tag_type, tag_value),
                 '[]'::jsonb)
               from feature_tags where feature_name = e.feature_name
             ))
      from rows from (
        jsonb_to_recordset(${JSON.stringify(events.map(appended))}::jsonb) as (
          type text, created_by text, created_by_user_id integer, project text, environment text,
          feature_name text, data jsonb, pre_data jsonb, tags jsonb
        )
      ) with ordinality as e (
        type, created_by, created_by_user_id, project, environment, feature_name, data, pre_data, tags, position
      )
      order by e.position
    `.execute(db);
  },

  /** The events after a position, oldest first: what an outbox consumer is handed next. */
  async after(db: Db, position: number, limit: number): Promise<StoredEvent[]> {
    const rows = await db
      .selectFrom("events")
      .selectAll()
      .where("id", ">", position)
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map(toEvent);
  },

  /**
   * A flag's events, oldest first, each with the moment of its transaction to the
   * microsecond (`transaction`): the events one change records share it. With `hidden`,
   * those `search` would leave out for such a reader are left out.
   */
  async ofFeature(
    db: Db,
    name: string,
    hidden: readonly string[] = [],
  ): Promise<(StoredEvent & { transaction: string })[]> {
    let select = db.selectFrom("events").selectAll().where("feature_name", "=", name);
    if (hidden.length > 0) select = select.where(sql<boolean>`not ${namesAnyOf(hidden)}`);
    const rows = await select
      .select(sql<string>`(extract(epoch from created_at) * 1000000)::bigint::text`.as("transaction"))
      .orderBy("id")
      .execute();
    return rows.map((row) => ({ ...toEvent(row), transaction: row.transaction }));
  },

  /** The events of some types after a position, oldest first. */
  async ofTypes(db: Db, types: readonly EventType[], after: number): Promise<StoredEvent[]> {
    if (types.length === 0) return [];
    const rows = await db
      .selectFrom("events")
      .selectAll()
      .where("type", "in", types)
      .where("id", ">", after)
      .orderBy("id")
      .execute();
    return rows.map(toEvent);
  },

  /**
   * Advances the revision inside the writing transaction. The row stays locked until commit,
   * so revisions are handed out in commit order; the notification is delivered on commit.
   */
  async advanceRevision(db: Db, credentials: boolean): Promise<number> {
    const suffix = credentials ? CREDENTIALS_SUFFIX : "";
    const { rows } = await sql<{ value: number }>`
      with advanced as (update revision set value = value + 1 returning value)
      select value, pg_notify(${CHANGES_CHANNEL}, value::text || ${suffix}) from advanced
    `.execute(db);
    return Number(rows[0]!.value);
  },

  async revision(db: Db): Promise<number> {
    const row = await db.selectFrom("revision").select("value").executeTakeFirstOrThrow();
    return Number(row.value);
  },

  async search(db: Db, query: EventQuery): Promise<{ events: StoredEvent[]; total: number }> {
    let select = db.selectFrom("events");
    if (query.type) select = select.where("type", "=", query.type);
    if (query.project) select = select.where("project", "=", query.project);
    if (query.feature) select = select.where("feature_name", "=", query.feature);
    const hidden = query.hidden ?? [];
    if (hidden.length > 0) {
      select = select.where(sql<boolean>`not ${namesAnyOf(hidden)}`);
    }
    if (query.createdBy) select = select.where("created_by", "ilike", containing(query.createdBy));
    if (query.from) select = select.where("created_at", ">=", new Date(query.from));
    if (query.to) select = select.where("created_at", "<", new Date(query.to));
    if (query.query) {
      const pattern = containing(query.query);
      select = select.where((eb) =>
        eb.or([
          eb("type", "ilike", pattern),
          eb("created_by", "ilike", pattern),
          // The author as a person reads: their display name or e-mail, whatever the event recorded.
          eb.exists(
            eb
              .selectFrom("users")
              .select("users.id")
              .whereRef("users.id", "=", "events.created_by_user_id")
              .where((user) =>
                user.or([user("users.name", "ilike", pattern), user("users.email", "ilike", pattern)]),
              ),
          ),
          eb(sql`data::text`, "ilike", pattern),
          eb(sql`pre_data::text`, "ilike", pattern),
          eb(sql`tags::text`, "ilike", pattern),
        ]),
      );
    }
    // The total counts every match, wherever the page starts.
    const page = query.startAt === undefined ? select : select.where("id", "<=", query.startAt);
    const [rows, count] = await Promise.all([
      page.selectAll().orderBy("id", "desc").limit(query.limit).offset(query.offset).execute(),
      select.select((eb) => eb.fn.countAll<number>().as("count")).executeTakeFirst(),
    ]);
    return { events: rows.map(toEvent), total: Number(count?.count ?? 0) };
  },
};

/** An ILIKE pattern for text containing `text` as it is, its wildcards taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, "\\$&")}%`;

const lease = (ms: number) => sql<Date>`now() + ${ms}::float8 * interval '1 millisecond'`;

/**
 * Outbox consumers' cursors. A consumer is delivered to by one instance at a time: the
 * one whose claim (`holder`, until `held_until`) is in place, which only it moves on.
 */
export const cursorStore = {
  /** A new consumer starts at the end of the log: it hears of what happens from now on. */
  async create(db: Db, consumer: string): Promise<void> {
    await sql`
      insert into outbox_cursors (consumer, position)
      select ${consumer}, coalesce(max(id), 0) from events
      on conflict (consumer) do nothing
    `.execute(db);
  },

  async remove(db: Db, consumer: string): Promise<void> {
    await db.deleteFrom("outbox_cursors").where("consumer", "=", consumer).execute();
  },

  /**
   * Claims a consumer for a while, when events wait after its cursor and no other instance
   * holds it; gives the cursor's position, or undefined when there is nothing to do here.
   */
  async claim(db: Db, consumer: string, holder: string, ms: number): Promise<number | undefined> {
    const row = await db
      .updateTable("outbox_cursors")
      .set({ holder, held_until: lease(ms) })
      .where("consumer", "=", consumer)
      .where((eb) =>
        eb.or([eb("holder", "is", null), eb("holder", "=", holder), eb("held_until", "<", sql<Date>`now()`)]),
      )
      .where(({ exists, selectFrom, ref }) =>
        exists(selectFrom("events").select("id").where("id", ">", ref("outbox_cursors.position"))),
      )
      .returning("position")
      .executeTakeFirst();
    return row?.position;
  },

  /** Keeps a claim for a while longer; false when another instance has taken the consumer over. */
  async extend(db: Db, consumer: string, holder: string, ms: number): Promise<boolean> {
    const result = await db
      .updateTable("outbox_cursors")
      .set({ held_until: lease(ms) })
      .where("consumer", "=", consumer)
      .where("holder", "=", holder)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /** Moves the cursor on and gives the claim up; false when the claim was lost meanwhile. */
  async advance(db: Db, consumer: string, holder: string, position: number): Promise<boolean> {
    const result = await db
      .updateTable("outbox_cursors")
      .set({ position, updated_at: sql<Date>`now()`, holder: null, held_until: null })
      .where("consumer", "=", consumer)
      .where("holder", "=", holder)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /** Gives up every claim of a holder, so that other instances take over at once. */
  async release(db: Db, holder: string): Promise<void> {
    await db
      .updateTable("outbox_cursors")
      .set({ holder: null, held_until: null })
      .where("holder", "=", holder)
      .execute();
  },

  /** How many event ids each consumer is behind the newest event. */
  async lag(db: Db, consumers: readonly string[]): Promise<Record<string, number>> {
    if (consumers.length === 0) return {};
    const rows = await db
      .selectFrom("outbox_cursors")
      .select(({ selectFrom }) => [
        "consumer",
        "position",
        selectFrom("events")
          .select((eb) => eb.fn.max("id").as("newest"))
          .as("newest"),
      ])
      .where("consumer", "in", consumers)
      .execute();
    return Object.fromEntries(
      rows.map((row) => [row.consumer, Math.max(Number(row.newest ?? 0) - row.position, 0)]),
    );
  },
};
