/** Work that falls due at stored times: rows, so nothing is lost to a restart. */
export interface DueWork {
  /** Settles one thing that is due; answers whether there was one. */
  applyDue(): Promise<boolean>;
  /** When the next thing falls due, if anything will. */
  nextDue(): Promise<Date | undefined>;
}

interface Log {
  error(details: object, message: string): void;
}

/** How often the work is looked at besides on commits and when something falls due. */
const POLL_MS = 5_000;
const RETRY_MS = 200;

/**
 * Runs due work on time: every instance keeps a timer for the soonest due time, and looks
 * again on every commit (a commit may have made or moved one) and on a slow poll. Which
 * instance settles an item is for the work to decide, under a row lock.
 */
export class DueTimer {
  private timer: NodeJS.Timeout | undefined;
  private log: Log | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly what: string,
    private readonly work: DueWork,
    commits: { onRevision(listener: () => void): void },
  ) {
    commits.onRevision(() => this.wake());
  }

  start(log: Log): void {
    this.log = log;
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

  /** Settles what is due, then sleeps until the next thing falls due (or the next poll). */
  private async run(): Promise<void> {
    clearTimeout(this.timer);
    let next: Date | undefined;
    try {
      while (this.log && (await this.work.applyDue())) {}
      next = await this.work.nextDue();
    } catch (error) {
      this.log?.error({ err: error }, `${this.what} failed`);
    }
    if (!this.log) return;
    // Something already due that was not settled is another instance's: look again shortly
    // rather than at once.
    const wait = next ? Math.min(Math.max(next.getTime() - Date.now(), RETRY_MS), POLL_MS) : POLL_MS;
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }
}
