import { conflict, noAccess, validationError } from "@signalbox/protocol";
import type { Actor, UserActor } from "../../access/actor.js";
import type { Change, EventService } from "../events/service.js";
import type { Targets } from "./actions.js";
import { applyRequest } from "./application.js";
import { conflictsOf } from "./conflicts.js";
import type {} from "./events.js";
import type { ChangeRequestQueries } from "./queries.js";
import {
  lockedRequest,
  type Projects,
  person,
  requireApplier,
  requireAuthorOrAdmin,
  requireReviewer,
  requireState,
  subject,
} from "./rules.js";
import { type ChangeRequestView, OPEN_STATES, type StateInput } from "./schemas.js";
import { type RequestRow, changeRequestStore as store } from "./store.js";
import { requestTitle } from "./view.js";

/**
 * A request's way from draft to done: sent to review by its author, approved by others
 * until enough have, then applied (now or at a time), or cancelled or rejected on the way.
 */
export class ChangeRequestTransitions {
  constructor(
    private readonly events: EventService,
    private readonly queries: Pick<ChangeRequestQueries, "get">,
    private readonly others: { projects: Projects; targets: Targets },
  ) {}

  async setState(actor: Actor, project: string, id: number, input: StateInput): Promise<ChangeRequestView> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      const request = await lockedRequest(this.others.projects, change.db, actor, project, id);
      if (input.comment) await store.comment(change.db, id, input.comment, user.userId);
      switch (input.state) {
        case "Draft":
          throw noAccess("A request cannot go back to draft: edit it while it is in review instead.");
        case "In review":
          return submit(change, user, request);
        case "Approved":
          return approve(change, user, request);
        case "Applied":
          return this.applyNow(change, user, request);
        case "Scheduled":
          return schedule(change, user, request, input.scheduledAt);
        case "Cancelled":
          return cancel(change, user, request);
        case "Rejected":
          return reject(change, user, request);
      }
    });
    return this.queries.get(actor, project, id);
  }

  private async applyNow(change: Change, user: UserActor, request: RequestRow): Promise<void> {
    requireApplier(user, request);
    requireState(request, ["Approved", "Scheduled"], "applied");
    const { targets } = this.others;
    const conflicts = await conflictsOf(
      targets,
      change.db,
      request,
      await store.changes(change.db, [request.id]),
    );
    if (conflicts.count > 0) {
      throw conflict(
        `Change request ${request.id} has conflicts: ${conflicts.summary()}. Edit or discard the conflicting changes; the request then needs a fresh review.`,
      );
    }
    await applyRequest(this.events, targets, change, request);
  }
}

async function submit(change: Change, user: UserActor, request: RequestRow): Promise<void> {
  if (request.created_by !== user.userId) throw noAccess("Only its author can send a request to review.");
  requireState(request, ["Draft"], "sent to review");
  const changes = await store.changes(change.db, [request.id]);
  if (changes.length === 0) throw noAccess("A change request without changes cannot be sent to review.");
  await store.update(change.db, request.id, { state: "In review" });
  change.record({
    type: "change-request-sent-to-review",
    ...subject(request),
    data: { changeRequestId: request.id, title: requestTitle(request) },
  });
}

async function approve(change: Change, user: UserActor, request: RequestRow): Promise<void> {
  requireReviewer(user, request, "approve");
  requireState(request, ["In review"], "approved");
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

async function schedule(
  change: Change,
  user: UserActor,
  request: RequestRow,
  at: string | undefined,
): Promise<void> {
  requireApplier(user, request);
  requireState(request, ["Approved", "Scheduled"], "scheduled");
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

async function cancel(change: Change, user: UserActor, request: RequestRow): Promise<void> {
  requireAuthorOrAdmin(user, request, "cancel it");
  requireState(request, OPEN_STATES, "cancelled");
  await store.update(change.db, request.id, { state: "Cancelled" });
  await store.unschedule(change.db, request.id);
  change.record({
    type: "change-request-cancelled",
    ...subject(request),
    data: { changeRequestId: request.id },
  });
}

async function reject(change: Change, user: UserActor, request: RequestRow): Promise<void> {
  requireReviewer(user, request, "reject");
  requireState(request, ["In review", "Approved", "Scheduled"], "rejected");
  await store.review(change.db, "rejections", request.id, user.userId);
  await store.update(change.db, request.id, { state: "Rejected" });
  await store.unschedule(change.db, request.id);
  change.record({
    type: "change-request-rejected",
    ...subject(request),
    data: { changeRequestId: request.id },
  });
}
