/**
 * Writes that wait while one is in progress, then go together in one call of `write`: when
 * idle each item is written at once, alone; under load the items that arrived meanwhile
 * share the next call (one transaction, one statement per table). Each caller hears of its
 * own item only: a batch that fails is written again item by item, so a bad item fails
 * alone and the others are written once.
 */
export class Batches<T> {
  private readonly waiting: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    /** The most items written together. */
    private readonly limit: number,
  ) {}

  /** Resolves once the item is written (committed), or rejects with what failed it. */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.start();
    });
  }

  private start(): void {
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      // Added after the last look but before this: not left waiting.
      if (this.waiting.length > 0) this.start();
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      // Lets what arrived meanwhile join: the embedded database's transactions run without
      // yielding to I/O, so requests that came during the last write are read only now.
      await new Promise((resolve) => setImmediate(resolve));
      const batch = this.waiting.splice(0, this.limit);
      try {
        await this.write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]!.reject(error);
          continue;
        }
        for (const entry of batch) {
          try {
            await this.write([entry.item]);
            entry.resolve();
          } catch (alone) {
            entry.reject(alone);
          }
        }
      }
    }
  }
}
