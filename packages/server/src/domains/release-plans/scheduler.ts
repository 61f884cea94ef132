import { DueTimer } from "../../shared/due-timer.js";
import type { ReleasePlanService } from "./plans.js";
import type { SafeguardService, SafeguardTiming } from "./safeguards.js";

interface Log {
  error(details: object, message: string): void;
}

/**
 * What moves releases without a person: milestones hand over when their time is up (on
 * time, once across instances, see ReleasePlanService.advanceDue), and safeguards are
 * looked at every evaluation period.
 */
export class ReleaseScheduler {
  private readonly progressions: DueTimer;
  private watch: NodeJS.Timeout | undefined;
  private evaluating: Promise<unknown> | undefined;

  constructor(
    plans: Pick<ReleasePlanService, "advanceDue" | "nextDue">,
    private readonly safeguards: Pick<SafeguardService, "evaluate">,
    private readonly timing: Pick<SafeguardTiming, "evaluationMs">,
    commits: { onRevision(listener: () => void): void },
  ) {
    this.progressions = new DueTimer(
      "release plans: a milestone's progression",
      { applyDue: () => plans.advanceDue(), nextDue: () => plans.nextDue() },
      commits,
    );
  }

  start(log: Log): void {
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
