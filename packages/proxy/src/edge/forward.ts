import type { DropObserver, ReportBudget, ReportKind } from "../budget.js";
import type { Logger } from "../logger.js";
import type { Outbound } from "../outbound.js";

/** An SDK's registration or usage report, to be sent upstream as the SDK sent it, with its own token. */
interface Report {
  path: string;
  kind: ReportKind;
  headers: Record<string, string>;
  body: string;
}

export interface ForwarderOptions {
  /** The flag service's API URL, ending in /api. */
  serviceUrl: string;
  outbound: Outbound;
  budget: ReportBudget;
  interval: number;
  logger: Logger;
  observer: DropObserver;
}

/** Requests in flight at once while forwarding. */
const CONCURRENCY = 8;

/**
 * Sends SDKs' registrations and usage reports upstream under their own tokens, every
 * interval rather than one request per report as it arrives, so a burst of SDKs costs the
 * upstream no burst. A report the upstream cannot take now waits for the next interval;
 * one it refuses (4xx) is dropped, as it would be refused again. What waits shares the
 * proxy's budget for pending reports.
 */
export class Forwarder {
  private pending: Report[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ForwarderOptions) {}

  add(path: string, kind: ReportKind, headers: Record<string, string>, body: unknown): void {
    const text = JSON.stringify(body);
    if (!this.options.budget.take(text.length, kind)) return;
    this.pending.push({ path, kind, headers, body: text });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.options.interval);
      this.timer.unref();
    }
  }

  /** Sends what waits; resolves once every request has an answer. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const sending = this.pending;
    this.pending = [];
    const kept: Report[] = [];
    let next = 0;
    const worker = async () => {
      while (next < sending.length) {
        const report = sending[next++]!;
        const outcome = await this.send(report);
        if (outcome === "retry") kept.push(report);
        else this.options.budget.release(report.body.length);
        if (outcome === "refused") this.options.observer.reportsDropped(report.kind, "refused", 1);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, sending.length) }, worker));
    if (kept.length > 0) {
      this.options.logger.warn(
        `Cannot forward ${kept.length} SDK report(s) to the upstream service; retrying at the next interval`,
      );
      this.pending.unshift(...kept);
      this.timer ??= setTimeout(() => void this.flush(), this.options.interval);
      this.timer.unref();
    }
  }

  private async send(report: Report): Promise<"sent" | "refused" | "retry"> {
    try {
      const response = await this.options.outbound.send(
        `${this.options.serviceUrl}${report.path}`,
        "POST",
        { ...report.headers, "content-type": "application/json" },
        report.body,
      );
      const status = response.statusCode;
      if (status >= 200 && status < 300) return "sent";
      // A token revoked since is as final as a malformed report.
      if (status >= 400 && status < 500 && status !== 408 && status !== 429) return "refused";
      return "retry";
    } catch {
      return "retry";
    }
  }
}
