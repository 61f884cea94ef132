import { ApiError } from "@signalbox/protocol";
import { system } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { GrantsService } from "../access/grants/service.js";
import type { EventService } from "../events/service.js";
import type { UserService } from "../users/service.js";
import type { Targets } from "./actions.js";
import { applyRequest } from "./application.js";
import { conflictsOf } from "./conflicts.js";
import type {} from "./events.js";
import { subject } from "./rules.js";
import { type ScheduleRow, changeRequestStore as store } from "./store.js";

/** A change of the request that cannot be applied: why, for the schedule. */
class Suspension extends Error {}

/**
 * The scheduler's work (see scheduler.ts): applying the schedules that fall due, as the
 * person who scheduled each, and suspending those that no longer fit what they change.
 */
export class ChangeRequestSchedules {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly others: {
      users: Pick<UserService, "missing">;
      grants: Pick<GrantsService, "actor">;
      targets: Targets;
    },
  ) {}

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
      due.created_by === null ? undefined : await this.others.grants.actor(due.created_by, "session");
    if (!scheduler) {
      return this.markSchedule(
        due,
        "suspended",
        "The user who scheduled it has been deleted or deactivated.",
      );
    }
    const { targets } = this.others;
    try {
      return await this.events.change(scheduler, async (change) => {
        if (!(await store.claimDue(change.db, due.change_request_id, now))) return false;
        const request = await store.lock(change.db, due.change_request_id);
        if (request?.state !== "Scheduled") return false;
        const conflicts = await conflictsOf(
          targets,
          change.db,
          request,
          await store.changes(change.db, [request.id]),
        );
        if (conflicts.count > 0) throw new Suspension(conflicts.summary());
        await applyRequest(this.events, targets, change, request);
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
      const conflicts = await conflictsOf(
        this.others.targets,
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
}
