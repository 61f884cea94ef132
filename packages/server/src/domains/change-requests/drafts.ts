import { conflict, noAccess, notFound, validationError } from "@signalbox/protocol";
import type { Actor, UserActor } from "../../access/actor.js";
import { requirePermission } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import { approvalsIn } from "../change-gate/settings.js";
import type { Change, EventService } from "../events/service.js";
import { ACTION_SPECS, checkedPayload, type Place, type Targets } from "./actions.js";
import type {} from "./events.js";
import type { ChangeRequestQueries } from "./queries.js";
import { lockedRequest, type Projects, person, requireEnvironment, requireState, subject } from "./rules.js";
import type { Action, ChangeInput, ChangeRequestView } from "./schemas.js";
import { type ChangeRow, type RequestRow, changeRequestStore as store } from "./store.js";

/**
 * The changes a request holds: drafted by its author, one draft per person and environment,
 * each checked and kept with what it changes as it is now; edited or discarded until applied.
 */
export class ChangeRequestDrafts {
  constructor(
    private readonly events: EventService,
    private readonly queries: Pick<ChangeRequestQueries, "get">,
    private readonly others: { projects: Projects; targets: Targets },
  ) {}

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
    return this.queries.get(actor, project, id);
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
    await requireEnvironment(this.others.projects, change.db, user, project, environment);
    const minApprovals = await approvalsIn(change.db, project, environment);
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
      await backToReview(change, request);
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
      await backToReview(change, request);
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
      const request = await lockedRequest(this.others.projects, change.db, actor, project, id);
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
    const { targets } = this.others;
    if (feature !== null)
      await targets.flags.locate(db, { projectId: project, featureName: feature, environment });
    await spec.check?.(targets, db, user, place, payload as never);
    const snapshot = await spec.snapshot?.(targets, db, place, payload as never);
    const refs = await spec.refs?.(targets, db, place, payload as never);
    const key = spec.key ? `${input.action}:${feature ?? ""}:${spec.key(payload as never)}` : undefined;
    return { feature, action: input.action, payload, snapshot, refs, key };
  }

  /** The caller's request, locked, in a state where what it holds may still change. */
  private async editable(db: Db, user: UserActor, project: string, id: number): Promise<RequestRow> {
    const request = await lockedRequest(this.others.projects, db, user, project, id);
    if (request.created_by !== user.userId)
      throw noAccess("Only its author can change what a request holds.");
    if (request.state === "Scheduled") {
      throw conflict(`Change request ${id} is scheduled and cannot be edited: reject it, or apply it now.`);
    }
    requireState(request, ["Draft", "In review", "Approved"], "edited");
    return request;
  }
}

/** The request goes back to review when one of its changes is edited after submission. */
async function backToReview(change: Change, request: RequestRow): Promise<void> {
  if (request.state === "Draft") return;
  await store.revokeApprovals(change.db, request.id);
  await store.update(change.db, request.id, { state: "In review" });
}

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
