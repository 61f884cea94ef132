import { DueTimer } from "../../shared/due-timer.js";
import type { EventType } from "../events/catalogue.js";
import type { Outbox, OutboxLog } from "../events/outbox.js";
import type { ChangeRequestSchedules } from "./schedules.js";

/** What can make a scheduled request no longer fit what it changes. */
const UNSETTLING: ReadonlySet<EventType> = new Set<EventType>([
  "feature-archived",
  "feature-deleted",
  "feature-project-change",
  "feature-strategy-update",
  "feature-strategy-remove",
  "feature-environment-variants-updated",
  "feature-variants-updated",
  "segment-updated",
  "segment-deleted",
  "user-deleted",
  "user-updated",
]);

/**
 * Applies scheduled change requests when they fall due, and suspends those that no longer
 * fit. The row lock each application takes (see ChangeRequestSchedules.applyDue) decides
 * which instance applies it; an instance that starts after one fell due applies it at once.
 * Suspensions follow the event log through the outbox, so an archived flag suspends its
 * schedules on one instance, once.
 */
export class ChangeRequestScheduler {
  private readonly timer: DueTimer;

  constructor(
    private readonly schedules: Pick<ChangeRequestSchedules, "nextDue" | "applyDue" | "suspendStale">,
    private readonly outbox: Pick<Outbox, "register">,
    commits: { onRevision(listener: () => void): void },
  ) {
    this.timer = new DueTimer(
      "change requests: applying a schedule",
      { applyDue: () => schedules.applyDue(), nextDue: () => schedules.nextDue() },
      commits,
    );
  }

  async start(log: OutboxLog): Promise<void> {
    await this.outbox.register({
      name: "change-request-schedules",
      handle: async (events) => {
        if (events.some((event) => UNSETTLING.has(event.type as EventType)))
          await this.schedules.suspendStale();
      },
    });
    this.timer.start(log);
  }

  stop(): Promise<void> {
    return this.timer.stop();
  }
}
