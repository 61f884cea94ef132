/**
 * Failed logins per address within a sliding window. Only failures count: someone who
 * logs in right every time is never slowed, while guessing stops after `limit` tries.
 * In memory, per instance: behind several instances a guesser gets `limit` tries on each.
 */
export class FailureWindow {
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** How long the address must wait before trying again, in ms; 0 when it may try now. */
  wait(address: string): number {
    const recent = this.recent(address, Date.now());
    return recent.length < this.limit ? 0 : recent[recent.length - this.limit]! + this.windowMs - Date.now();
  }

  /**
   * Counts an attempt before its password is checked, so that attempts made at the same
   * time cannot all slip under the limit; `forgive` takes it back when it succeeds.
   */
  attempt(address: string): void {
    const now = Date.now();
    this.attempts.set(address, [...this.recent(address, now), now]);
    // Addresses whose failures have all aged out are dropped, so the map stays bounded.
    if (this.attempts.size > 10_000) {
      for (const key of this.attempts.keys()) {
        if (this.recent(key, now).length === 0) this.attempts.delete(key);
      }
    }
  }

  forgive(address: string): void {
    const recent = this.attempts.get(address);
    recent?.pop();
    if (recent?.length === 0) this.attempts.delete(address);
  }

  private recent(address: string, now: number): number[] {
    const recent = (this.attempts.get(address) ?? []).filter((at) => at > now - this.windowMs && at <= now);
    if (recent.length === 0) this.attempts.delete(address);
    else this.attempts.set(address, recent);
    return recent;
  }
}
