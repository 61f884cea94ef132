import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import type { Db } from "../../db/connection.js";
import type { SegmentTable } from "../../db/schema.js";
import { strategyUsage } from "../../db/strategy-usage.js";

export type SegmentRow = Selectable<SegmentTable> & { used_in_features: number; used_in_projects: number };

/** The segments alone: `withUsage` reads every strategy for each. */
const segments = (db: Db) => db.selectFrom("segments as s").selectAll("s");

const withUsage = (db: Db) => segments(db).select(strategyUsage(sql<boolean>`s.id = any(fs.segments)`));

export const segmentStore = {
  list: (db: Db): Promise<SegmentRow[]> => withUsage(db).orderBy("s.name").execute(),

  definitions: (db: Db): Promise<Selectable<SegmentTable>[]> => segments(db).orderBy("s.name").execute(),

  byId: (db: Db, id: number): Promise<SegmentRow | undefined> =>
    withUsage(db).where("s.id", "=", id).executeTakeFirst(),

  /** The new id, or undefined when the name is taken. */
  insert: async (db: Db, segment: Insertable<SegmentTable>): Promise<number | undefined> =>
    (
      await db
        .insertInto("segments")
        .values(segment)
        .onConflict((oc) => oc.column("name").doNothing())
        .returning("id")
        .executeTakeFirst()
    )?.id,

  update: (db: Db, id: number, changes: Updateable<SegmentTable>) =>
    db.updateTable("segments").set(changes).where("id", "=", id).execute(),

  remove: (db: Db, id: number) => db.deleteFrom("segments").where("id", "=", id).execute(),

  nameTaken: async (db: Db, name: string, exceptId: number): Promise<boolean> =>
    (await db
      .selectFrom("segments")
      .select("id")
      .where("name", "=", name)
      .where("id", "!=", exceptId)
      .executeTakeFirst()) !== undefined,

  owners: async (db: Db, ids: number[]): Promise<{ id: number; name: string; project: string | null }[]> =>
    ids.length === 0
      ? []
      : db.selectFrom("segments").select(["id", "name", "project"]).where("id", "in", ids).execute(),

  /**
   * The strategies that name the segment, by flag, environment and position. Strategies name
   * their segments in their own rows (`feature_strategies.segments`); segments sit below
   * strategies, so they read those rows here, as the usage counts above do.
   */
  usedBy: (db: Db, id: number) =>
    db
      .selectFrom("feature_strategies")
      .select(["id", "feature_name", "project_name", "environment", "strategy_name"])
      .where(sql<boolean>`${id} = any(segments)`)
      .orderBy("feature_name")
      .orderBy("environment")
      .orderBy("sort_order")
      .execute(),
};
