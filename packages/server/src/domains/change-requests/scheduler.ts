import type { EventType } from "../events/catalogue.js";
import type { Outbox, OutboxLog } from "../events/outbox.js";
import type { ChangeRequestSchedules } from "./schedules.js";

/** How often the schedules are looked at besides on commits and when one falls due. */
const POLL_MS = 5_000;
const RETRY_MS = 200;

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
 * fit. Every instance keeps a timer for the soonest schedule; the row lock each application
 * takes (see ChangeRequestSchedules.applyDue) decides which instance applies it. Nothing is
 * kept in memory that a restart would lose: the schedules are rows, and an instance that
 * starts after one fell due applies it at once. Suspensions follow the event log through
 * the outbox, so an archived flag suspends its schedules on one instance, once.
 */
export class ChangeRequestScheduler {
  private timer: NodeJS.Timeout | undefined;
  private log: OutboxLog | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly schedules: Pick<ChangeRequestSchedules, "nextDue" | "applyDue" | "suspendStale">,
    private readonly outbox: Pick<Outbox, "register">,
    commits: { onRevision(listener: () => void): void },
  ) {
    // A schedule made or changed on any instance is a commit: look again.
    commits.onRevision(() => this.wake());
  }

  async start(log: OutboxLog): Promise<void> {
    this.log = log;
    await this.outbox.register({
      name: "change-request-schedules",
      handle: async (events) => {
        if (events.some((event) => UNSETTLING.has(event.type as EventType)))
          await this.schedules.suspendStale();
      },
    });
    this.wake();
  }

  async stop(): Promise<void> {
    this.log = undefined;
    clearTimeout(this.timer);
    await this.running;
  }

  private wake(): void {
    if (!this.log) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Applies what is due, then sleeps until the next schedule falls due (or the next poll). */
  private async run(): Promise<void> {
    clearTimeout(this.timer);
    let next: Date | undefined;
    try {
      while (this.log && (await this.schedules.applyDue())) {}
      next = await this.schedules.nextDue();
    } catch (error) {
      this.log?.error({ err: error }, "change requests: applying a schedule failed");
    }
    if (!this.log) return;
    // A schedule already due that was not settled is another instance's to apply: look
    // again shortly rather than at once.
    const wait = next ? Math.min(Math.max(next.getTime() - Date.now(), RETRY_MS), POLL_MS) : POLL_MS;
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }
}
