import { ApiError, conflict, noAccess, notFound, validationError } from "@signalbox/protocol";
import { type Actor, system, type UserActor } from "../../access/actor.js";
import { can, canSee, requirePermission } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { EnvironmentService } from "../environments/service.js";
import type { Change, EventService } from "../events/service.js";
import type { ProjectService } from "../projects/service.js";
import type { UserService } from "../users/service.js";
import { ACTION_SPECS, changedRefs, checkedPayload, type Place, type Refs, type Targets } from "./actions.js";
import {
  type Action,
  type AvailableReviewersView,
  type ChangeInput,
  type ChangeRequestView,
  CLOSED_STATES,
  type ConfigInput,
  type EnvironmentConfigView,
  OPEN_STATES,
  type SearchInput,
  type SearchResultView,
  type State,
  type StateInput,
} from "./schemas.js";
import { type ChangeRow, type RequestRow, type ScheduleRow, changeRequestStore as store } from "./store.js";
import { type Conflicts, requestTitle, requestView, summaryView } from "./view.js";

const isAdmin = (actor: UserActor) => actor.grants.root.has("ADMIN");

/** Change requests are written and reviewed by people; API tokens have no one to name. */
function person(actor: Actor): UserActor {
  if (actor.kind === "user") return actor;
  throw noAccess(
    "Change requests are made and reviewed by people: log in, or use a personal access token. API tokens have no user.",
  );
}

const subject = (request: RequestRow) => ({ project: request.project, environment: request.environment });

/** A change of the request that cannot be applied: why, for the schedule or the caller. */
class Suspension extends Error {}

interface Others {
  projects: Pick<ProjectService, "requireActive" | "environmentsOf">;
  environments: Pick<EnvironmentService, "list">;
  users: Pick<UserService, "byIds" | "actor" | "missing" | "peopleWho">;
  /** The services changes go through; they are built after this one. */
  targets: () => Targets;
}

/**
 * Four-eyes review of changes to the environments of a project that require it: drafts,
 * review, approval, application (now or scheduled), and the conflicts in between.
 */
export class ChangeRequestService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly others: Others,
  ) {}

  // Configuration.

  async config(actor: Actor, project: string): Promise<EnvironmentConfigView[]> {
    await this.requireProject(this.db, actor, project);
    const types = new Map((await this.others.environments.list(actor)).map((env) => [env.name, env.type]));
    const settings = new Map(
      (await store.settings(this.db, project)).map((row) => [row.environment, row.required_approvals]),
    );
    return (await this.others.projects.environmentsOf(this.db, project)).map((environment) => ({
      environment,
      type: types.get(environment) ?? "development",
      changeRequestEnabled: settings.has(environment),
      requiredApprovals: settings.get(environment) ?? null,
    }));
  }

  async configure(actor: Actor, project: string, environment: string, input: ConfigInput): Promise<void> {
    await this.events.change(actor, async (change) => {
      await this.requireEnvironment(change.db, actor, project, environment);
      const current = await store.setting(change.db, project, environment);
      const approvals = input.changeRequestsEnabled ? (input.requiredApprovals ?? current ?? 1) : undefined;
      await store.configure(change.db, project, environment, approvals);
      change.record({
        type: "change-request-configuration-updated",
        project,
        environment,
        data: { changeRequestsEnabled: input.changeRequestsEnabled, requiredApprovals: approvals ?? null },
      });
    });
  }

  /** The environments of the project that require change requests. */
  gatedEnvironments(db: Db, project: string): Promise<string[]> {
    return store.gated(db, project);
  }

  // Reading.

  async get(actor: Actor, project: string, id: number): Promise<ChangeRequestView> {
    await this.requireProject(this.db, actor, project);
    const row = (await store.list(this.db, { ids: [id], project }))[0];
    if (!row) throw missing(id, project);
    return (await this.views(this.db, [row]))[0]!;
  }

  /** Every request of the project, newest first. */
  async list(actor: Actor, project: string): Promise<ChangeRequestView[]> {
    await this.requireProject(this.db, actor, project);
    return this.views(this.db, await store.list(this.db, { project }));
  }

  /** Endpoint 6: the caller's open requests in the environments of the project that require them. */
  async pending(actor: Actor, project: string): Promise<ChangeRequestView[]> {
    await this.requireProject(this.db, actor, project);
    if (actor.kind !== "user") return [];
    const environments = await store.gated(this.db, project);
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
    await this.requireEnvironment(this.db, actor, project, environment);
    const people = await this.others.users.peopleWho("APPROVE_CHANGE_REQUEST", { project, environment });
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
      const reviewed = new Set(
        [
          ...(await store.reviews(
            this.db,
            "approvals",
            rows.map((row) => row.id),
          )),
          ...(await store.reviews(
            this.db,
            "rejections",
            rows.map((row) => row.id),
          )),
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

  // Drafting.

  /** Adds changes to the caller's draft for the environment, starting one when they have none. */
  async add(
    actor: Actor,
    project: string,
    environment: string,
    inputs: ChangeInput[],
  ): Promise<ChangeRequestView> {
    const id = await this.events.change(actor, (change) =>
      this.addWithin(change, project, environment, inputs),
    );
    return this.get(actor, project, id);
  }

  /**
   * Adds changes to the draft of the change's actor, inside that change's transaction: how
   * an import into an environment that requires review drafts what it would have written.
   * Answers the draft's id.
   */
  async addWithin(
    change: Change,
    project: string,
    environment: string,
    inputs: ChangeInput[],
  ): Promise<number> {
    const user = person(change.actor);
    await this.requireEnvironment(change.db, user, project, environment);
    const minApprovals = await store.setting(change.db, project, environment);
    if (minApprovals === undefined) {
      throw noAccess(`Environment ${environment} of project ${project} does not use change requests.`);
    }
    const prepared = [];
    for (const input of inputs)
      prepared.push(await this.prepare(change.db, user, project, environment, input));
    let draft = await store.draftOf(change.db, project, environment, user.userId);
    if (!draft) {
      draft = await store.insert(change.db, { project, environment, minApprovals, createdBy: user.userId });
      change.record({
        type: "change-request-created",
        ...subject(draft),
        data: { changeRequestId: draft.id },
      });
    }
    const existing = new Map(
      (await store.changes(change.db, [draft.id])).flatMap((row) => {
        const key = keyOf(row);
        return key === undefined ? [] : [[key, row.id] as const];
      }),
    );
    for (const next of prepared) {
      const same = next.key === undefined ? undefined : existing.get(next.key);
      const event = { project, environment, featureName: next.feature };
      if (same !== undefined) {
        await store.replaceChange(change.db, same, next);
        change.record({ type: "change-edited", ...event, data: changeData(draft.id, same, next) });
      } else {
        const changeId = await store.addChange(change.db, {
          requestId: draft.id,
          ...next,
          createdBy: user.userId,
        });
        if (next.key !== undefined) existing.set(next.key, changeId);
        change.record({ type: "change-added", ...event, data: changeData(draft.id, changeId, next) });
      }
    }
    return draft.id;
  }

  /** Replaces one change of the caller's open request; a request in review loses its approvals. */
  async editChange(
    actor: Actor,
    project: string,
    id: number,
    changeId: number,
    input: ChangeInput,
  ): Promise<void> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      const request = await this.editable(change.db, user, project, id);
      const current = (await store.changes(change.db, [id])).find((row) => row.id === changeId);
      if (!current) throw notFound(`Change request ${id} has no change ${changeId}`);
      // A change keeps what it was drafted as: a new action or flag is a new change.
      if (input.action !== current.action || (input.feature ?? current.feature) !== current.feature) {
        throw validationError(
          `Change ${changeId} is ${current.action}${current.feature ? ` on ${current.feature}` : ""}: an edit may change its payload only. Discard it and add a new change instead.`,
        );
      }
      const next = await this.prepare(change.db, user, project, request.environment, {
        feature: current.feature ?? undefined,
        action: current.action as Action,
        payload: input.payload,
      });
      await store.replaceChange(change.db, changeId, next);
      await this.backToReview(change, request);
      change.record({
        type: "change-edited",
        ...subject(request),
        featureName: next.feature,
        data: changeData(id, changeId, next),
      });
    });
  }

  async discardChange(actor: Actor, project: string, id: number, changeId: number): Promise<void> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      const request = await this.editable(change.db, user, project, id);
      const current = (await store.changes(change.db, [id])).find((row) => row.id === changeId);
      if (!current) throw notFound(`Change request ${id} has no change ${changeId}`);
      await store.removeChange(change.db, changeId);
      await this.backToReview(change, request);
      change.record({
        type: "change-discarded",
        ...subject(request),
        featureName: current.feature,
        data: { changeRequestId: id, changeId, action: current.action },
      });
    });
  }

  /** Deletes a draft, as if it was never started. */
  async discard(actor: Actor, project: string, id: number): Promise<void> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      const request = await this.locked(change.db, actor, project, id);
      if (request.created_by !== user.userId) throw noAccess("Only its author can discard a draft.");
      if (request.state !== "Draft") {
        throw conflict(
          `Only a draft can be discarded; change request ${id} is ${request.state}: cancel it instead.`,
        );
      }
      await store.remove(change.db, id);
      change.record({ type: "change-request-discarded", ...subject(request), data: { changeRequestId: id } });
    });
  }

  async setTitle(actor: Actor, project: string, id: number, title: string): Promise<void> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      const request = await this.locked(change.db, actor, project, id);
      this.requireAuthorOrAdmin(user, request, "change its title");
      this.requireOpen(request);
      await store.update(change.db, id, { title });
    });
  }

  async setReviewers(actor: Actor, project: string, id: number, reviewers: number[]): Promise<void> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      const request = await this.locked(change.db, actor, project, id);
      this.requireAuthorOrAdmin(user, request, "choose its reviewers");
      this.requireOpen(request);
      const unknown = await this.others.users.missing(change.db, reviewers);
      if (unknown.length > 0) throw validationError(`No user has the id ${unknown.join(", ")}`);
      await store.setReviewers(change.db, id, reviewers);
    });
  }

  async comment(actor: Actor, project: string, id: number, text: string): Promise<void> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      await this.locked(change.db, actor, project, id);
      await store.comment(change.db, id, text, user.userId);
    });
  }

  // Transitions.

  async setState(actor: Actor, project: string, id: number, input: StateInput): Promise<ChangeRequestView> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      const request = await this.locked(change.db, actor, project, id);
      if (input.comment) await store.comment(change.db, id, input.comment, user.userId);
      switch (input.state) {
        case "Draft":
          throw noAccess("A request cannot go back to draft: edit it while it is in review instead.");
        case "In review":
          return this.submit(change, user, request);
        case "Approved":
          return this.approve(change, user, request);
        case "Applied":
          return this.applyNow(change, user, request);
        case "Scheduled":
          return this.schedule(change, user, request, input.scheduledAt);
        case "Cancelled":
          return this.cancel(change, user, request);
        case "Rejected":
          return this.reject(change, user, request);
      }
    });
    return this.get(actor, project, id);
  }

  private async submit(change: Change, user: UserActor, request: RequestRow): Promise<void> {
    if (request.created_by !== user.userId) throw noAccess("Only its author can send a request to review.");
    this.requireState(request, ["Draft"], "sent to review");
    const changes = await store.changes(change.db, [request.id]);
    if (changes.length === 0) throw noAccess("A change request without changes cannot be sent to review.");
    await store.update(change.db, request.id, { state: "In review" });
    change.record({
      type: "change-request-sent-to-review",
      ...subject(request),
      data: { changeRequestId: request.id, title: requestTitle(request) },
    });
  }

  private async approve(change: Change, user: UserActor, request: RequestRow): Promise<void> {
    this.requireReviewer(user, request, "approve");
    this.requireState(request, ["In review"], "approved");
    if (!(await store.review(change.db, "approvals", request.id, user.userId))) {
      throw conflict(`You have already approved change request ${request.id}.`);
    }
    const approvals = (await store.reviews(change.db, "approvals", [request.id])).length;
    change.record({
      type: "change-request-approval-added",
      ...subject(request),
      data: { changeRequestId: request.id, approvals, minApprovals: request.min_approvals },
    });
    if (approvals < request.min_approvals) return;
    await store.update(change.db, request.id, { state: "Approved" });
    change.record({
      type: "change-request-approved",
      ...subject(request),
      data: { changeRequestId: request.id },
    });
  }

  private async applyNow(change: Change, user: UserActor, request: RequestRow): Promise<void> {
    this.requireApplier(user, request);
    this.requireState(request, ["Approved", "Scheduled"], "applied");
    const conflicts = await this.conflicts(change.db, request, await store.changes(change.db, [request.id]));
    if (conflicts.count > 0) {
      throw conflict(
        `Change request ${request.id} has conflicts: ${conflicts.summary()}. Edit or discard the conflicting changes; the request then needs a fresh review.`,
      );
    }
    await this.apply(change, request);
  }

  /** Applies every change, in order, through the services a direct change uses; one failing undoes all. */
  private async apply(change: Change, request: RequestRow): Promise<void> {
    const changes = await store.changes(change.db, [request.id]);
    const targets = this.others.targets();
    await this.events.change(
      change.actor,
      async () => {
        for (const [index, row] of changes.entries()) {
          const place: Place = {
            project: request.project,
            environment: request.environment,
            feature: row.feature,
          };
          try {
            await ACTION_SPECS[row.action as Action].apply(
              targets,
              change.actor,
              place,
              row.payload as never,
            );
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            const what = row.feature ? `${row.action} on ${row.feature}` : row.action;
            throw new ApiError(
              error.name,
              `Change ${index + 1} of ${changes.length} (${what}) could not be applied, so none was: ${error.message}`,
              error.details,
            );
          }
        }
      },
      { reviewed: request.project },
    );
    await store.update(change.db, request.id, { state: "Applied" });
    await store.unschedule(change.db, request.id);
    change.record({
      type: "change-request-applied",
      ...subject(request),
      data: { changeRequestId: request.id },
    });
  }

  private async schedule(
    change: Change,
    user: UserActor,
    request: RequestRow,
    at: string | undefined,
  ): Promise<void> {
    this.requireApplier(user, request);
    this.requireState(request, ["Approved", "Scheduled"], "scheduled");
    if (!at) throw validationError("Scheduling needs scheduledAt: when to apply the request.");
    const when = new Date(at);
    await store.schedule(change.db, request.id, when, user.userId);
    await store.update(change.db, request.id, { state: "Scheduled" });
    change.record({
      type: "change-request-scheduled",
      ...subject(request),
      data: { changeRequestId: request.id, scheduledAt: when.toISOString() },
    });
  }

  private async cancel(change: Change, user: UserActor, request: RequestRow): Promise<void> {
    this.requireAuthorOrAdmin(user, request, "cancel it");
    this.requireState(request, OPEN_STATES, "cancelled");
    await store.update(change.db, request.id, { state: "Cancelled" });
    await store.unschedule(change.db, request.id);
    change.record({
      type: "change-request-cancelled",
      ...subject(request),
      data: { changeRequestId: request.id },
    });
  }

  private async reject(change: Change, user: UserActor, request: RequestRow): Promise<void> {
    this.requireReviewer(user, request, "reject");
    this.requireState(request, ["In review", "Approved", "Scheduled"], "rejected");
    await store.review(change.db, "rejections", request.id, user.userId);
    await store.update(change.db, request.id, { state: "Rejected" });
    await store.unschedule(change.db, request.id);
    change.record({
      type: "change-request-rejected",
      ...subject(request),
      data: { changeRequestId: request.id },
    });
  }

  // The scheduler's work (see scheduler.ts).

  /** When the next pending schedule is due, if any is. */
  async nextDue(): Promise<Date | undefined> {
    return (await store.pending(this.db))[0]?.scheduled_at;
  }

  /**
   * Applies one schedule that is due, as the person who scheduled it; answers whether it
   * settled one (applied, failed or suspended). It is claimed with a row lock another
   * instance skips, so each is applied once.
   */
  async applyDue(now = new Date()): Promise<boolean> {
    const due = (await store.pending(this.db)).find((schedule) => schedule.scheduled_at <= now);
    if (!due) return false;
    const scheduler =
      due.created_by === null ? undefined : await this.others.users.actor(due.created_by, "session");
    if (!scheduler) {
      return this.markSchedule(
        due,
        "suspended",
        "The user who scheduled it has been deleted or deactivated.",
      );
    }
    try {
      return await this.events.change(scheduler, async (change) => {
        if (!(await store.claimDue(change.db, due.change_request_id, now))) return false;
        const request = await store.lock(change.db, due.change_request_id);
        if (request?.state !== "Scheduled") return false;
        const conflicts = await this.conflicts(
          change.db,
          request,
          await store.changes(change.db, [request.id]),
        );
        if (conflicts.count > 0) throw new Suspension(conflicts.summary());
        await this.apply(change, request);
        change.record({
          type: "change-request-scheduled-application-success",
          ...subject(request),
          data: { changeRequestId: request.id },
        });
        return true;
      });
    } catch (error) {
      if (error instanceof Suspension) return this.markSchedule(due, "suspended", error.message);
      if (error instanceof ApiError) return this.markSchedule(due, "failed", error.message);
      throw error;
    }
  }

  /** Suspends the pending schedules whose changes no longer fit what they change, or whose scheduler is gone. */
  async suspendStale(): Promise<void> {
    const pending = await store.pending(this.db);
    if (pending.length === 0) return;
    const requests = await store.list(this.db, {
      ids: pending.map((schedule) => schedule.change_request_id),
    });
    const changes = await store.changes(
      this.db,
      requests.map((request) => request.id),
    );
    const gone = new Set(
      await this.others.users.missing(
        this.db,
        pending.flatMap((s) => (s.created_by === null ? [] : [s.created_by])),
      ),
    );
    for (const schedule of pending) {
      const request = requests.find((row) => row.id === schedule.change_request_id);
      if (!request) continue;
      if (schedule.created_by === null || gone.has(schedule.created_by)) {
        await this.markSchedule(schedule, "suspended", "The user who scheduled it has been deleted.");
        continue;
      }
      const conflicts = await this.conflicts(
        this.db,
        request,
        changes.filter((row) => row.change_request_id === request.id),
      );
      if (conflicts.count > 0) await this.markSchedule(schedule, "suspended", conflicts.summary());
    }
  }

  /** Records a schedule's failure or suspension, unless another instance got there first; true when this did. */
  private markSchedule(
    schedule: ScheduleRow,
    status: "failed" | "suspended",
    reason: string,
  ): Promise<boolean> {
    return this.events.change(system("change-request-scheduler"), async (change) => {
      const still = await store.lockPending(change.db, schedule.change_request_id);
      if (!still || still.scheduled_at.getTime() !== schedule.scheduled_at.getTime()) return false;
      const request = await store.lock(change.db, schedule.change_request_id);
      if (!request) return false;
      // A failure is dated when it was attempted; a suspension keeps the time it was due.
      await store.setScheduleStatus(
        change.db,
        request.id,
        status,
        reason,
        status === "failed" ? new Date() : undefined,
      );
      change.record(
        status === "failed"
          ? {
              type: "change-request-scheduled-application-failure",
              ...subject(request),
              data: { changeRequestId: request.id, reason },
            }
          : {
              type: "change-request-schedule-suspended",
              ...subject(request),
              data: { changeRequestId: request.id, reason },
            },
      );
      return true;
    });
  }

  // Rules.

  /** A change as it will be stored: its payload checked, its target found, what it is now kept. */
  private async prepare(db: Db, user: UserActor, project: string, environment: string, input: ChangeInput) {
    const spec = ACTION_SPECS[input.action];
    const feature = input.feature ?? null;
    if (spec.segment && feature !== null)
      throw validationError(`${input.action} changes a segment: leave feature out.`);
    if (!spec.segment && feature === null)
      throw validationError(`${input.action} changes a flag: name it in feature.`);
    requirePermission(user, spec.permission, { project, environment });
    const payload = checkedPayload(input.action, input.payload);
    const place: Place = { project, environment, feature };
    const targets = this.others.targets();
    if (feature !== null)
      await targets.flags.locate(db, { projectId: project, featureName: feature, environment });
    await spec.check?.(targets, db, user, place, payload as never);
    const snapshot = await spec.snapshot?.(targets, db, place, payload as never);
    const refs = await spec.refs?.(targets, db, place, payload as never);
    const key = spec.key ? `${input.action}:${feature ?? ""}:${spec.key(payload as never)}` : undefined;
    return { feature, action: input.action, payload, snapshot, refs, key };
  }

  /** What no longer fits in the request's changes: flags archived or moved, targets changed. */
  private async conflicts(db: Db, request: RequestRow, changes: ChangeRow[]): Promise<Conflicts> {
    const result: Conflicts = new ConflictsFound();
    const targets = this.others.targets();
    for (const feature of new Set(changes.flatMap((row) => (row.feature === null ? [] : [row.feature])))) {
      const flag = await targets.flags.find(db, feature);
      if (!flag) result.features.set(feature, "The flag has been deleted.");
      else if (flag.archived) result.features.set(feature, "The flag has been archived.");
      else if (flag.project !== request.project)
        result.features.set(feature, `The flag has moved to project ${flag.project}.`);
    }
    for (const row of changes) {
      if (row.feature !== null && result.features.has(row.feature)) continue;
      const place: Place = {
        project: request.project,
        environment: request.environment,
        feature: row.feature,
      };
      const spec = ACTION_SPECS[row.action as Action];
      const why =
        (await spec.conflict?.(targets, db, place, row.payload as never, row.snapshot)) ??
        (await this.changedReferences(targets, db, place, row));
      if (why) result.changes.set(row.id, why);
    }
    return result;
  }

  /** Why a change no longer applies what was reviewed: something it refers to has changed since. */
  private async changedReferences(
    targets: Targets,
    db: Db,
    place: Place,
    row: ChangeRow,
  ): Promise<string | undefined> {
    const refs = ACTION_SPECS[row.action as Action].refs;
    // Changes drafted before references were kept have none to compare.
    if (!refs || row.refs === null) return undefined;
    const changed = changedRefs(row.refs as Refs, await refs(targets, db, place, row.payload as never));
    if (changed.length === 0) return undefined;
    return `What it refers to has changed since it was made (${changed.join(", ")}).`;
  }

  /** The request goes back to review when one of its changes is edited after submission. */
  private async backToReview(change: Change, request: RequestRow): Promise<void> {
    if (request.state === "Draft") return;
    await store.revokeApprovals(change.db, request.id);
    await store.update(change.db, request.id, { state: "In review" });
  }

  private async editable(db: Db, user: UserActor, project: string, id: number): Promise<RequestRow> {
    const request = await this.locked(db, user, project, id);
    if (request.created_by !== user.userId)
      throw noAccess("Only its author can change what a request holds.");
    if (request.state === "Scheduled") {
      throw conflict(`Change request ${id} is scheduled and cannot be edited: reject it, or apply it now.`);
    }
    this.requireState(request, ["Draft", "In review", "Approved"], "edited");
    return request;
  }

  private requireState(request: RequestRow, states: readonly State[], what: string): void {
    if (!states.includes(request.state as State)) {
      throw conflict(`Change request ${request.id} is ${request.state} and cannot be ${what}.`);
    }
  }

  private requireOpen(request: RequestRow): void {
    this.requireState(request, OPEN_STATES, "changed");
  }

  private requireAuthorOrAdmin(user: UserActor, request: RequestRow, what: string): void {
    if (request.created_by !== user.userId && !isAdmin(user))
      throw noAccess(`Only its author or an admin can ${what}.`);
  }

  /** Someone other than the author (an admin may review their own) holding the approve permission there. */
  private requireReviewer(user: UserActor, request: RequestRow, what: string): void {
    requirePermission(user, "APPROVE_CHANGE_REQUEST", subject(request));
    if (request.created_by === user.userId && !isAdmin(user)) {
      throw noAccess(`You cannot ${what} your own change request: someone else must review it.`);
    }
  }

  private requireApplier(user: UserActor, request: RequestRow): void {
    requirePermission(user, "APPLY_CHANGE_REQUEST", subject(request));
  }

  private async requireProject(db: Db, actor: Actor, project: string): Promise<void> {
    if (!canSee(actor, project)) throw notFound(`Active project with id ${project} does not exist`);
    await this.others.projects.requireActive(db, project);
  }

  private async requireEnvironment(
    db: Db,
    actor: Actor,
    project: string,
    environment: string,
  ): Promise<void> {
    await this.requireProject(db, actor, project);
    if (!(await this.others.projects.environmentsOf(db, project)).includes(environment)) {
      throw notFound(`Environment ${environment} is not enabled in project ${project}`);
    }
  }

  /** The request, locked for the transaction, when it is in the project and the actor sees it. */
  private async locked(db: Db, actor: Actor, project: string, id: number): Promise<RequestRow> {
    await this.requireProject(db, actor, project);
    const request = await store.lock(db, id);
    if (!request || request.project !== project) throw missing(id, project);
    return request;
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
    const targets = this.others.targets();
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
          conflicts: open ? await this.conflicts(db, row, own) : new ConflictsFound(),
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
    const segments = this.others.targets().segments;
    return Promise.all(
      rows.map((row) =>
        summaryView(db, segments, {
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

class ConflictsFound implements Conflicts {
  readonly features = new Map<string, string>();
  readonly changes = new Map<number, string>();
  get count(): number {
    return this.features.size + this.changes.size;
  }
  summary(): string {
    return [
      ...[...this.features].map(([feature, why]) => `${feature}: ${why}`),
      ...[...this.changes].map(([id, why]) => `change ${id}: ${why}`),
    ].join(" ");
  }
}

const missing = (id: number, project: string) => notFound(`Project ${project} has no change request ${id}`);

/** The key that makes a stored change the same as a new one (see the actions' `key`). */
function keyOf(row: ChangeRow): string | undefined {
  const spec = ACTION_SPECS[row.action as Action];
  return spec.key ? `${row.action}:${row.feature ?? ""}:${spec.key(row.payload as never)}` : undefined;
}

const changeData = (
  changeRequestId: number,
  changeId: number,
  change: { action: string; payload: unknown },
) => ({
  changeRequestId,
  change: { id: changeId, action: change.action, payload: change.payload },
});
