import type { Db } from "../../db/connection.js";

/** Which environments of a project require change requests, and how many approvals each. */
export const changeGateStore = {
  async settings(db: Db, project: string) {
    return db
      .selectFrom("change_request_settings")
      .select(["environment", "required_approvals"])
      .where("project", "=", project)
      .execute();
  },

  /** Of `environments` (all of the project's when undefined), those that require change requests. */
  async gated(db: Db, project: string, environments?: readonly string[]): Promise<string[]> {
    if (environments?.length === 0) return [];
    let query = db.selectFrom("change_request_settings").select("environment").where("project", "=", project);
    if (environments) query = query.where("environment", "in", [...environments]);
    return (await query.orderBy("environment").execute()).map((row) => row.environment);
  },

  async approvals(db: Db, project: string, environment: string): Promise<number | undefined> {
    const row = await db
      .selectFrom("change_request_settings")
      .select("required_approvals")
      .where("project", "=", project)
      .where("environment", "=", environment)
      .executeTakeFirst();
    return row?.required_approvals;
  },

  /** Requires `approvals` in the environment, or no change requests at all when undefined. */
  async configure(db: Db, project: string, environment: string, approvals: number | undefined) {
    if (approvals === undefined) {
      await db
        .deleteFrom("change_request_settings")
        .where("project", "=", project)
        .where("environment", "=", environment)
        .execute();
      return;
    }
    await db
      .insertInto("change_request_settings")
      .values({ project, environment, required_approvals: approvals })
      .onConflict((conflict) =>
        conflict.columns(["project", "environment"]).doUpdateSet({ required_approvals: approvals }),
      )
      .execute();
  },
};
