/**
 * When credentials were last used (`seen_at`): remembered in memory and written in batches,
 * never on the request path. One batch is one statement, whatever the number of ids; a
 * batch that fails to be written is dropped, as the next use marks the id again.
 */
export class LastSeen {
  private readonly seen = new Set<number>();
  private flusher: NodeJS.Timeout | undefined;

  constructor(private readonly write: (ids: number[], at: Date) => Promise<unknown>) {}

  mark(id: number): void {
    this.seen.add(id);
  }

  /** Writes every `flushMs`. */
  start(flushMs: number): void {
    this.flusher = setInterval(() => void this.flush().catch(() => {}), flushMs);
    this.flusher.unref();
  }

  /** Stops the timer, writing what is left. */
  async stop(): Promise<void> {
    clearInterval(this.flusher);
    await this.flush().catch(() => {});
  }

  async flush(): Promise<void> {
    if (this.seen.size === 0) return;
    const ids = [...this.seen];
    this.seen.clear();
    await this.write(ids, new Date());
  }
}
