import { sql } from "kysely";
import { anyOf } from "../../../db/any-of.js";
import type { Db } from "../../../db/connection.js";

/** The stages flags have entered (`feature_lifecycles`), one row per flag and stage. */
export const lifecycleStore = {
  ofFlags: (db: Db, names: string[]) =>
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("feature_lifecycles")
          .selectAll()
          .where("feature", "=", anyOf(names))
          .orderBy("created_at")
          .execute(),

  /** Enters each of the flags, named once, into the stage. */
  enter: (
    db: Db,
    names: readonly string[],
    stage: string,
    status: string | null,
    statusValue: string | null,
  ) =>
    sql`
      insert into feature_lifecycles (feature, stage, status, status_value)
      select name, ${stage}, ${status}, ${statusValue} from unnest(${names}::text[]) as name
      on conflict (feature, stage) do update set status = excluded.status, status_value = excluded.status_value
    `.execute(db),

  forget: (db: Db, name: string) => db.deleteFrom("feature_lifecycles").where("feature", "=", name).execute(),

  leave: (db: Db, name: string, stage: string) =>
    db.deleteFrom("feature_lifecycles").where("feature", "=", name).where("stage", "=", stage).execute(),

  /** Enters each flag into each stage it has not entered yet, unless it has been completed. */
  async enterOnce(db: Db, names: string[], stages: string[]): Promise<void> {
    const rows = names.flatMap((feature) => stages.map((stage) => ({ feature, stage })));
    if (rows.length === 0) return;
    await db
      .insertInto("feature_lifecycles")
      .columns(["feature", "stage"])
      .expression((eb) =>
        eb
          .selectFrom(
            sql<{
              feature: string;
              stage: string;
            }>`(select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(feature text, stage text))`.as(
              "wanted",
            ),
          )
          .select(["wanted.feature", "wanted.stage"])
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom("feature_lifecycles as done")
                  .select("done.feature")
                  .whereRef("done.feature", "=", "wanted.feature")
                  .where("done.stage", "=", "completed"),
              ),
            ),
          ),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  },
};
