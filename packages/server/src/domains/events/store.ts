import { type Selectable, sql } from "kysely";
import type { Db } from "../../db/connection.js";
import type { EventTable } from "../../db/schema.js";

export interface NewEvent {
  type: string;
  createdBy: string;
  createdByUserId?: number | null;
  project?: string | null;
  environment?: string | null;
  featureName?: string | null;
  data?: unknown;
  preData?: unknown;
  tags?: { type: string; value: string }[];
}

export interface StoredEvent {
  id: number;
  type: string;
  createdAt: string;
  createdBy: string;
  createdByUserId: number | null;
  project: string | null;
  environment: string | null;
  featureName: string | null;
  data: unknown;
  preData: unknown;
  tags: { type: string; value: string }[];
}

export interface EventQuery {
  type?: string;
  project?: string;
  feature?: string;
  query?: string;
  limit: number;
  /** Matching events to skip, newest first. */
  offset: number;
  /** The id of the newest event to list (endpoint 16's `offset`); older ones follow. */
  startAt?: number;
}

const toEvent = (row: Selectable<EventTable>): StoredEvent => ({
  id: row.id,
  type: row.type,
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

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

export const eventStore = {
  async append(db: Db, events: readonly NewEvent[]): Promise<StoredEvent[]> {
    const rows = await db
      .insertInto("events")
      .values(
        events.map((event) => ({
          type: event.type,
          created_by: event.createdBy,
          created_by_user_id: event.createdByUserId ?? null,
          project: event.project ?? null,
          environment: event.environment ?? null,
          feature_name: event.featureName ?? null,
          data: json(event.data),
          pre_data: json(event.preData),
          tags: JSON.stringify(event.tags ?? []),
        })),
      )
      .returningAll()
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
    if (query.query) {
      const pattern = `%${query.query.replace(/[\\%_]/g, "\\$&")}%`;
      select = select.where((eb) =>
        eb.or([
          eb("type", "ilike", pattern),
          eb("created_by", "ilike", pattern),
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
