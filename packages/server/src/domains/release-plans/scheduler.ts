import { DueTimer } from "../../shared/due-timer.js";
import type { Outbox, OutboxLog } from "../events/outbox.js";
import type { ReleasePlanService } from "./plans.js";
import type { SafeguardService, SafeguardTiming } from "./safeguards.js";

/**
 * What moves releases without a person: milestones hand over when their time is up (on
 * time, once across instances, see ReleasePlanService.advanceDue), and safeguards are
 * looked at every evaluation period. A flag switched on again where its safeguard had
 * switched it off ends that safeguard's trigger: found in the event log, once.
 */
export class ReleaseScheduler {
  private readonly progressions: DueTimer;
  private watch: NodeJS.Timeout | undefined;
  private evaluating: Promise<unknown> | undefined;

  constructor(
    plans: Pick<ReleasePlanService, "advanceDue" | "nextDue">,
    private readonly safeguards: Pick<SafeguardService, "evaluate" | "rearm">,
    private readonly timing: Pick<SafeguardTiming, "evaluationMs">,
    private readonly outbox: Pick<Outbox, "register">,
    commits: { onRevision(listener: () => void): void },
  ) {
    this.progressions = new DueTimer(
      "release plans: a milestone's progression",
      { applyDue: () => plans.advanceDue(), nextDue: () => plans.nextDue() },
      commits,
    );
  }

  async start(log: OutboxLog): Promise<void> {
    await this.outbox.register({
      name: "safeguards",
      handle: async (events) => {
        for (const event of events) {
          if (event.type === "feature-environment-enabled" && event.featureName && event.environment) {
            await this.safeguards.rearm(event.featureName, event.environment, new Date(event.createdAt));
          }
        }
      },
    });
    this.progressions.start(log);
    this.watch = setInterval(() => {
      // A slow look is not started again on top of itself.
      this.evaluating ??= this.safeguards
        .evaluate()
        .catch((error) => log.error({ err: error }, "safeguards: evaluating failed"))
        .finally(() => {
          this.evaluating = undefined;
        });
    }, this.timing.evaluationMs);
    this.watch.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.watch);
    await Promise.all([this.progressions.stop(), this.evaluating]);
  }
}
