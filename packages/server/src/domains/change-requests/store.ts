import { type Selectable, sql } from "kysely";
import type { Db } from "../../db/connection.js";
import type { ChangeRequestChangeTable, ChangeRequestTable } from "../../db/schema.js";

export type RequestRow = Selectable<ChangeRequestTable>;
export type ChangeRow = Selectable<ChangeRequestChangeTable>;
export interface ReviewRow {
  change_request_id: number;
  user_id: number;
  created_at: Date;
}
export interface CommentRow {
  id: number;
  change_request_id: number;
  text: string;
  created_by: number | null;
  created_at: Date;
}
export interface ScheduleRow {
  change_request_id: number;
  scheduled_at: Date;
  created_by: number | null;
  status: string;
  reason: string | null;
}

/** What a listing filters on. */
export interface RequestFilter {
  ids?: number[];
  project?: string;
  environments?: string[];
  states?: readonly string[];
  createdBy?: number;
  reviewer?: number;
}

const json = (value: unknown) => JSON.stringify(value);

/** Change requests, their changes, reviews, comments, requested reviewers and schedules. */
export const changeRequestStore = {
  // Requests.

  async draftOf(
    db: Db,
    project: string,
    environment: string,
    userId: number,
  ): Promise<RequestRow | undefined> {
    return db
      .selectFrom("change_requests")
      .selectAll()
      .where("project", "=", project)
      .where("environment", "=", environment)
      .where("created_by", "=", userId)
      .where("state", "=", "Draft")
      .executeTakeFirst();
  },

  async insert(
    db: Db,
    values: { project: string; environment: string; minApprovals: number; createdBy: number },
  ): Promise<RequestRow> {
    return db
      .insertInto("change_requests")
      .values({
        project: values.project,
        environment: values.environment,
        min_approvals: values.minApprovals,
        created_by: values.createdBy,
        state: "Draft",
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** The request, locked until the transaction ends: transitions of one request happen one at a time. */
  async lock(db: Db, id: number): Promise<RequestRow | undefined> {
    return db.selectFrom("change_requests").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
  },

  async list(db: Db, filter: RequestFilter, page?: { offset: number; limit: number }) {
    let query = db.selectFrom("change_requests").selectAll();
    if (filter.ids) query = query.where("id", "in", filter.ids.length > 0 ? filter.ids : [-1]);
    if (filter.project !== undefined) query = query.where("project", "=", filter.project);
    if (filter.environments) {
      query = query.where("environment", "in", filter.environments.length > 0 ? filter.environments : [""]);
    }
    if (filter.states) query = query.where("state", "in", [...filter.states]);
    if (filter.createdBy !== undefined) query = query.where("created_by", "=", filter.createdBy);
    if (filter.reviewer !== undefined) {
      const reviewer = filter.reviewer;
      query = query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom("change_request_reviewers as r")
            .select("r.user_id")
            .whereRef("r.change_request_id", "=", "change_requests.id")
            .where("r.user_id", "=", reviewer),
        ),
      );
    }
    query = query.orderBy("id", "desc");
    if (page) query = query.offset(page.offset).limit(page.limit);
    return query.execute();
  },

  async update(db: Db, id: number, values: { state?: string; title?: string; minApprovals?: number }) {
    await db
      .updateTable("change_requests")
      .set({
        ...(values.state === undefined ? {} : { state: values.state }),
        ...(values.title === undefined ? {} : { title: values.title }),
        ...(values.minApprovals === undefined ? {} : { min_approvals: values.minApprovals }),
        updated_at: sql`now()`,
      })
      .where("id", "=", id)
      .execute();
  },

  async remove(db: Db, id: number): Promise<void> {
    await db.deleteFrom("change_requests").where("id", "=", id).execute();
  },

  // Changes.

  async changes(db: Db, requestIds: readonly number[]): Promise<ChangeRow[]> {
    if (requestIds.length === 0) return [];
    return db
      .selectFrom("change_request_changes")
      .selectAll()
      .where("change_request_id", "in", [...requestIds])
      .orderBy("id")
      .execute();
  },

  async addChange(
    db: Db,
    values: {
      requestId: number;
      feature: string | null;
      action: string;
      payload: unknown;
      snapshot: unknown;
      refs: unknown;
      createdBy: number;
    },
  ): Promise<number> {
    const row = await db
      .insertInto("change_request_changes")
      .values({
        change_request_id: values.requestId,
        feature: values.feature,
        action: values.action,
        payload: json(values.payload),
        snapshot: values.snapshot === undefined ? null : json(values.snapshot),
        refs: values.refs === undefined ? null : json(values.refs),
        created_by: values.createdBy,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  },

  async replaceChange(
    db: Db,
    id: number,
    values: { payload: unknown; snapshot: unknown; refs: unknown },
  ): Promise<void> {
    await db
      .updateTable("change_request_changes")
      .set({
        payload: json(values.payload),
        snapshot: values.snapshot === undefined ? null : json(values.snapshot),
        refs: values.refs === undefined ? null : json(values.refs),
      })
      .where("id", "=", id)
      .execute();
  },

  async removeChange(db: Db, id: number): Promise<void> {
    await db.deleteFrom("change_request_changes").where("id", "=", id).execute();
  },

  // Reviews, comments, requested reviewers.

  async reviews(
    db: Db,
    kind: "approvals" | "rejections",
    requestIds: readonly number[],
  ): Promise<ReviewRow[]> {
    if (requestIds.length === 0) return [];
    return db
      .selectFrom(`change_request_${kind}`)
      .selectAll()
      .where("change_request_id", "in", [...requestIds])
      .orderBy("created_at")
      .execute();
  },

  /** Adds a review; false when the person had already given it. */
  async review(
    db: Db,
    kind: "approvals" | "rejections",
    requestId: number,
    userId: number,
  ): Promise<boolean> {
    const rows = await db
      .insertInto(`change_request_${kind}`)
      .values({ change_request_id: requestId, user_id: userId })
      .onConflict((conflict) => conflict.doNothing())
      .returning("user_id")
      .execute();
    return rows.length > 0;
  },

  async revokeApprovals(db: Db, requestId: number): Promise<void> {
    await db.deleteFrom("change_request_approvals").where("change_request_id", "=", requestId).execute();
  },

  async comments(db: Db, requestIds: readonly number[]): Promise<CommentRow[]> {
    if (requestIds.length === 0) return [];
    return db
      .selectFrom("change_request_comments")
      .selectAll()
      .where("change_request_id", "in", [...requestIds])
      .orderBy("id")
      .execute();
  },

  async comment(db: Db, requestId: number, text: string, userId: number): Promise<void> {
    await db
      .insertInto("change_request_comments")
      .values({ change_request_id: requestId, text, created_by: userId })
      .execute();
  },

  async reviewers(db: Db, requestIds: readonly number[]) {
    if (requestIds.length === 0) return [];
    return db
      .selectFrom("change_request_reviewers")
      .selectAll()
      .where("change_request_id", "in", [...requestIds])
      .orderBy("user_id")
      .execute();
  },

  async setReviewers(db: Db, requestId: number, userIds: readonly number[]): Promise<void> {
    await db.deleteFrom("change_request_reviewers").where("change_request_id", "=", requestId).execute();
    if (userIds.length === 0) return;
    await db
      .insertInto("change_request_reviewers")
      .values([...new Set(userIds)].map((user_id) => ({ change_request_id: requestId, user_id })))
      .execute();
  },

  // Schedules.

  async schedules(db: Db, requestIds: readonly number[]): Promise<ScheduleRow[]> {
    if (requestIds.length === 0) return [];
    return db
      .selectFrom("change_request_schedules")
      .selectAll()
      .where("change_request_id", "in", [...requestIds])
      .execute();
  },

  async schedule(db: Db, requestId: number, at: Date, userId: number): Promise<void> {
    const values = { scheduled_at: at, created_by: userId, status: "pending", reason: null };
    await db
      .insertInto("change_request_schedules")
      .values({ change_request_id: requestId, ...values })
      .onConflict((conflict) => conflict.column("change_request_id").doUpdateSet(values))
      .execute();
  },

  async setScheduleStatus(
    db: Db,
    requestId: number,
    status: "failed" | "suspended",
    reason: string,
    at?: Date,
  ): Promise<void> {
    await db
      .updateTable("change_request_schedules")
      .set({ status, reason, ...(at ? { scheduled_at: at } : {}) })
      .where("change_request_id", "=", requestId)
      .execute();
  },

  async unschedule(db: Db, requestId: number): Promise<void> {
    await db.deleteFrom("change_request_schedules").where("change_request_id", "=", requestId).execute();
  },

  /** The pending schedules, soonest first. */
  async pending(db: Db): Promise<ScheduleRow[]> {
    return db
      .selectFrom("change_request_schedules")
      .selectAll()
      .where("status", "=", "pending")
      .orderBy("scheduled_at")
      .execute();
  },

  /** A pending schedule, locked for this transaction unless another holds it. */
  async lockPending(db: Db, requestId: number): Promise<ScheduleRow | undefined> {
    return db
      .selectFrom("change_request_schedules")
      .selectAll()
      .where("change_request_id", "=", requestId)
      .where("status", "=", "pending")
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
  },

  /**
   * A pending schedule that is due, locked for this transaction; one another instance holds
   * is skipped, so each is applied by one instance only.
   */
  async claimDue(db: Db, requestId: number, now: Date): Promise<ScheduleRow | undefined> {
    return db
      .selectFrom("change_request_schedules")
      .selectAll()
      .where("change_request_id", "=", requestId)
      .where("status", "=", "pending")
      .where("scheduled_at", "<=", now)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
  },
};
