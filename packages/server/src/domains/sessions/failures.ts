/**
 * Failed logins per key (a login name from an address) within a sliding window. Only
 * failures count: someone who logs in right every time is never slowed, while guessing
 * stops after `limit` tries. In memory, per instance: behind several instances a guesser
 * gets `limit` tries on each.
 */
export class FailureWindow {
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** How long the key must wait before trying again, in ms; 0 when it may try now. */
  wait(key: string): number {
    const recent = this.recent(key, Date.now());
    return recent.length < this.limit ? 0 : recent[recent.length - this.limit]! + this.windowMs - Date.now();
  }

  /**
   * Counts an attempt before its password is checked, so that attempts made at the same
   * time cannot all slip under the limit; `forgive` takes it back when it succeeds.
   */
  attempt(key: string): void {
    const now = Date.now();
    this.attempts.set(key, [...this.recent(key, now), now]);
    // Keys whose failures have all aged out are dropped, so the map stays bounded.
    if (this.attempts.size > 10_000) {
      for (const other of this.attempts.keys()) {
        if (this.recent(other, now).length === 0) this.attempts.delete(other);
      }
    }
  }

  forgive(key: string): void {
    const recent = this.attempts.get(key);
    recent?.pop();
    if (recent?.length === 0) this.attempts.delete(key);
  }

  private recent(key: string, now: number): number[] {
    const recent = (this.attempts.get(key) ?? []).filter((at) => at > now - this.windowMs && at <= now);
    if (recent.length === 0) this.attempts.delete(key);
    else this.attempts.set(key, recent);
    return recent;
  }
}
