import type { Actor } from "../../access/actor.js";
import { can, canSee } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { GrantsService } from "../access/grants/service.js";
import { gatedEnvironments } from "../change-gate/settings.js";
import type { UserService } from "../users/service.js";
import type { Targets } from "./actions.js";
import { Conflicts, conflictsOf } from "./conflicts.js";
import {
  isAdmin,
  missing,
  type Projects,
  person,
  requireEnvironment,
  requireProject,
  subject,
} from "./rules.js";
import {
  type AvailableReviewersView,
  type ChangeRequestView,
  CLOSED_STATES,
  OPEN_STATES,
  type SearchInput,
  type SearchResultView,
} from "./schemas.js";
import { type RequestRow, changeRequestStore as store } from "./store.js";
import { requestView, summaryView } from "./view.js";

interface Others {
  projects: Projects;
  users: Pick<UserService, "byIds">;
  grants: Pick<GrantsService, "peopleWho">;
  /** What the changes are to: their conflicts, and the segments they name, are read from it. */
  targets: Targets;
}

/** Change requests as people read them: one, a project's, the caller's pending ones, a search. */
export class ChangeRequestQueries {
  constructor(
    private readonly db: Db,
    private readonly others: Others,
  ) {}

  async get(actor: Actor, project: string, id: number): Promise<ChangeRequestView> {
    await requireProject(this.others.projects, this.db, actor, project);
    const row = (await store.list(this.db, { ids: [id], project }))[0];
    if (!row) throw missing(id, project);
    return (await this.views(this.db, [row]))[0]!;
  }

  /** Every request of the project, newest first. */
  async list(actor: Actor, project: string): Promise<ChangeRequestView[]> {
    await requireProject(this.others.projects, this.db, actor, project);
    return this.views(this.db, await store.list(this.db, { project }));
  }

  /** Endpoint 6: the caller's open requests in the environments of the project that require them. */
  async pending(actor: Actor, project: string): Promise<ChangeRequestView[]> {
    await requireProject(this.others.projects, this.db, actor, project);
    if (actor.kind !== "user") return [];
    const environments = await gatedEnvironments(this.db, project);
    const rows = await store.list(this.db, {
      project,
      environments,
      states: OPEN_STATES,
      createdBy: actor.userId,
    });
    return this.views(this.db, rows);
  }

  /** The people who may approve requests in the environment: whom an author may ask to review. */
  async availableReviewers(
    actor: Actor,
    project: string,
    environment: string,
  ): Promise<AvailableReviewersView> {
    await requireEnvironment(this.others.projects, this.db, actor, project, environment);
    const people = await this.others.grants.peopleWho("APPROVE_CHANGE_REQUEST", { project, environment });
    return {
      reviewers: people.map((row) => ({
        id: row.id,
        ...(row.name === null ? {} : { name: row.name }),
        ...(row.email === null ? {} : { email: row.email }),
        ...(row.username === null ? {} : { username: row.username }),
        ...(row.image_url === null ? {} : { imageUrl: row.image_url }),
      })),
    };
  }

  async search(actor: Actor, query: SearchInput): Promise<SearchResultView> {
    const states =
      query.state === "open" ? OPEN_STATES : query.state === "closed" ? CLOSED_STATES : undefined;
    let rows = (
      await store.list(this.db, {
        ...(query.project === undefined ? {} : { project: query.project }),
        ...(query.createdBy === undefined ? {} : { createdBy: query.createdBy }),
        ...(query.requestedApproverId === undefined ? {} : { reviewer: query.requestedApproverId }),
        ...(states ? { states } : {}),
        ...(query.awaitingMyReview ? { states: ["In review"] } : {}),
      })
    ).filter((row) => canSee(actor, row.project));
    if (query.awaitingMyReview) {
      const user = person(actor);
      const ids = rows.map((row) => row.id);
      const reviewed = new Set(
        [
          ...(await store.reviews(this.db, "approvals", ids)),
          ...(await store.reviews(this.db, "rejections", ids)),
        ]
          .filter((review) => review.user_id === user.userId)
          .map((review) => review.change_request_id),
      );
      rows = rows.filter(
        (row) =>
          !reviewed.has(row.id) &&
          (row.created_by !== user.userId || isAdmin(user)) &&
          can(user, "APPROVE_CHANGE_REQUEST", subject(row)),
      );
    }
    const offset = query.offset ?? 0;
    const page = rows.slice(offset, offset + (query.limit ?? 50));
    return { changeRequests: await this.summaries(this.db, page), total: rows.length };
  }

  private async views(db: Db, rows: RequestRow[]): Promise<ChangeRequestView[]> {
    const ids = rows.map((row) => row.id);
    const [changes, approvals, rejections, comments, reviewers, schedules] = await Promise.all([
      store.changes(db, ids),
      store.reviews(db, "approvals", ids),
      store.reviews(db, "rejections", ids),
      store.comments(db, ids),
      store.reviewers(db, ids),
      store.schedules(db, ids),
    ]);
    const people = new Map(
      (
        await this.others.users.byIds(
          db,
          [
            ...rows.map((row) => row.created_by),
            ...changes.map((row) => row.created_by),
            ...[...approvals, ...rejections, ...reviewers].map((row) => row.user_id),
            ...comments.map((row) => row.created_by),
          ].filter((id): id is number => id !== null),
        )
      ).map((user) => [user.id, user]),
    );
    const { targets } = this.others;
    const views: ChangeRequestView[] = [];
    for (const row of rows) {
      const own = changes.filter((change) => change.change_request_id === row.id);
      const open = (OPEN_STATES as readonly string[]).includes(row.state);
      views.push(
        await requestView(db, targets, {
          request: row,
          changes: own,
          approvals: approvals.filter((review) => review.change_request_id === row.id),
          rejections: rejections.filter((review) => review.change_request_id === row.id),
          comments: comments.filter((comment) => comment.change_request_id === row.id),
          reviewers: reviewers.filter((reviewer) => reviewer.change_request_id === row.id),
          schedule: schedules.find((schedule) => schedule.change_request_id === row.id),
          people,
          conflicts: open ? await conflictsOf(targets, db, row, own) : new Conflicts(),
        }),
      );
    }
    return views;
  }

  private async summaries(db: Db, rows: RequestRow[]) {
    const ids = rows.map((row) => row.id);
    const [changes, approvals, schedules] = await Promise.all([
      store.changes(db, ids),
      store.reviews(db, "approvals", ids),
      store.schedules(db, ids),
    ]);
    const people = new Map(
      (
        await this.others.users.byIds(
          db,
          rows.flatMap((row) => (row.created_by === null ? [] : [row.created_by])),
        )
      ).map((user) => [user.id, user]),
    );
    return Promise.all(
      rows.map((row) =>
        summaryView(db, this.others.targets.segments, {
          request: row,
          changes: changes.filter((change) => change.change_request_id === row.id),
          approvals: approvals.filter((review) => review.change_request_id === row.id).length,
          schedule: schedules.find((schedule) => schedule.change_request_id === row.id),
          people,
        }),
      ),
    );
  }
}
