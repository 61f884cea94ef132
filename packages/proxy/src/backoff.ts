/**
 * The delay before the next call to an upstream that may be failing: the interval times
 * (1 + failures), failures capped at 10 and counted down one per success, as the Unleash
 * SDKs do, so a struggling upstream is not hammered and a recovered one is not flooded.
 */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly interval: number,
    private readonly maxFailures = 10,
  ) {}

  succeeded(): void {
    this.failures = Math.max(0, this.failures - 1);
  }

  failed(): void {
    this.failures = Math.min(this.maxFailures, this.failures + 1);
  }

  /** For failures that retrying soon will not fix, such as a refused token. */
  exhausted(): void {
    this.failures = this.maxFailures;
  }

  get delay(): number {
    return this.interval * (1 + this.failures);
  }
}
