import { system } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { OutboxLog } from "../events/outbox.js";
import type { EventService } from "../events/service.js";
import type {} from "./events.js";
import { overdueCutoffs } from "./lifetimes.js";

/** What the job asks of flags (FlagService.markPotentiallyStale). */
export interface StalenessFlags {
  markPotentiallyStale(
    db: Db,
    cutoffs: { type: string; createdBefore: Date }[],
  ): Promise<{ name: string; project: string }[]>;
}

/**
 * Marks flags that have outlived their type's expected lifetime as potentially stale, each
 * with one `feature-potentially-stale-on` event in the same transaction. Every instance
 * runs it; the row locks of the marking decide which marks a flag, so each is marked and
 * announced once. A flag whose type or staleness changes loses its mark (FlagService) and
 * is judged again on the next run.
 */
export class StalenessJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly events: Pick<EventService, "change">,
    private readonly flags: StalenessFlags,
  ) {}

  /** Marks what is overdue at `now`; returns the names of the flags it marked. */
  run(now = new Date()): Promise<string[]> {
    return this.events.change(system("staleness-job"), async (change) => {
      const marked = await this.flags.markPotentiallyStale(change.db, overdueCutoffs(now));
      for (const flag of marked) {
        change.record({
          type: "feature-potentially-stale-on",
          project: flag.project,
          featureName: flag.name,
        });
      }
      return marked.map((flag) => flag.name);
    });
  }

  /** Runs now, then every `intervalMs`; a run still going when the next is due is not doubled. */
  start(intervalMs: number, log?: OutboxLog): void {
    const tick = () => {
      this.running ??= this.run()
        .catch((error) => log?.error({ err: error }, "staleness: marking potentially stale flags failed"))
        .finally(() => {
          this.running = undefined;
        });
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
