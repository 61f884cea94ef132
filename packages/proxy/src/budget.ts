import type { Logger } from "./logger.js";

/**
 * What client registrations and usage counts waiting to go upstream may hold together, in
 * bytes of their JSON (their memory is a small multiple of it). Ten thousand flags with
 * 30-character names and a thousand ordinary registrations take about a quarter of it.
 */
export const PENDING_REPORTS_BYTES = 4 * 1024 * 1024;
const WARNING_INTERVAL_MS = 60_000;

export type ReportKind = "registration" | "usage";
/** `full`: no room left in the budget; `refused`: the upstream answered a 4xx, so sending again cannot help. */
export type DropReason = "full" | "refused";

/** Told of every report dropped; `count` is in registrations, or for usage in flag (or variant) names. */
export interface DropObserver {
  reportsDropped(kind: ReportKind, reason: DropReason, count: number): void;
}

export interface ReportBudgetOptions {
  logger: Logger;
  observer: DropObserver;
  limit?: number;
  now?: () => number;
}

/**
 * The room that reports waiting for the upstream share. Clients choose the names they
 * report, with a key that is public in browser apps, so without a cap anyone could park
 * memory in the proxy. When it is full, new entries are dropped: what is already counted
 * keeps being counted, and a warning is logged at most once a minute.
 */
export class ReportBudget {
  private used = 0;
  private warnedAt = Number.NEGATIVE_INFINITY;
  private readonly limit: number;
  private readonly now: () => number;

  constructor(private readonly options: ReportBudgetOptions) {
    this.limit = options.limit ?? PENDING_REPORTS_BYTES;
    this.now = options.now ?? Date.now;
  }

  /** Takes room for a new entry; false, and the entry is to be dropped, when it does not fit. */
  take(bytes: number, kind: ReportKind): boolean {
    if (this.used + bytes <= this.limit) {
      this.used += bytes;
      return true;
    }
    this.options.observer.reportsDropped(kind, "full", 1);
    const now = this.now();
    if (now - this.warnedAt >= WARNING_INTERVAL_MS) {
      this.warnedAt = now;
      this.options.logger.warn(
        `Reports waiting for the upstream service fill the proxy's ${this.limit} bytes for them; ` +
          "new client registrations and flag counts are dropped until the next send " +
          "(logged at most once a minute; proxy_reports_dropped_total counts them)",
      );
    }
    return false;
  }

  /** Gives back the room of entries that left or were dropped. */
  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  /** Bytes held now. */
  get held(): number {
    return this.used;
  }
}
