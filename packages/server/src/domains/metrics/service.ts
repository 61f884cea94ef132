import type { Db } from "../../db/connection.js";
import type { EventService, Tx } from "../events/service.js";
import type { Principal } from "../tokens/service.js";
import { type ApplicationQuery, type MetricRow, metricsStore } from "./store.js";

export interface Registration {
  appName: string;
  instanceId?: string;
  sdkVersion?: string;
  strategies?: string[];
  started?: string | number;
  interval?: number;
}

export interface MetricsReport {
  appName: string;
  instanceId?: string;
  sdkVersion?: string;
  bucket?: {
    start?: string;
    stop?: string;
    toggles?: Record<string, { yes?: number; no?: number; variants?: Record<string, number> }>;
  } | null;
}

const HOUR = 3_600_000;
/** How long hourly counts and silent SDK instances are kept, as in the reference. */
export const METRICS_RETENTION_MS = 48 * HOUR;

const startedAt = (started: string | number | undefined) => {
  if (started === undefined) return undefined;
  const date = typeof started === "number" ? new Date(started * 1000) : new Date(started);
  return Number.isNaN(date.getTime()) ? undefined : date;
};

export class MetricsService {
  private pruner: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
  ) {}

  /**
   * Prunes old counts and instances now and then every `intervalMs`: SDKs report every
   * minute from every instance, and without a bound those tables grow without end.
   */
  start(intervalMs: number): void {
    const prune = () => void this.prune().catch(() => {});
    prune();
    this.pruner = setInterval(prune, intervalMs);
    this.pruner.unref();
  }

  stop(): void {
    clearInterval(this.pruner);
  }

  prune(now = new Date()) {
    return metricsStore.prune(this.db, new Date(now.getTime() - METRICS_RETENTION_MS));
  }

  async register(principal: Principal, registration: Registration, clientIp: string): Promise<void> {
    await this.events.transaction(async (tx) => {
      await this.recordApplication(tx, principal, registration, clientIp);
      await metricsStore.upsertInstance(tx.db, {
        appName: registration.appName,
        instanceId: registration.instanceId ?? "default",
        environment: principal.environment,
        sdkVersion: registration.sdkVersion,
        clientIp,
        started: startedAt(registration.started),
        interval: registration.interval,
      });
    });
  }

  async report(principal: Principal, report: MetricsReport, clientIp: string): Promise<void> {
    const environment = principal.environment;
    const toggles = Object.entries(report.bucket?.toggles ?? {}).filter(
      ([, counts]) => (counts.yes ?? 0) + (counts.no ?? 0) > 0,
    );
    const stop = report.bucket?.stop ? new Date(report.bucket.stop) : new Date();
    const at = Number.isNaN(stop.getTime()) ? new Date() : stop;
    const hour = new Date(Math.floor(at.getTime() / HOUR) * HOUR);
    await this.events.transaction(async (tx) => {
      await this.recordApplication(tx, principal, report, clientIp);
      await metricsStore.upsertInstance(tx.db, {
        appName: report.appName,
        instanceId: report.instanceId ?? "default",
        environment,
        sdkVersion: report.sdkVersion,
        clientIp,
      });
      if (toggles.length === 0) return;
      const rows: MetricRow[] = toggles.map(([featureName, counts]) => ({
        featureName,
        appName: report.appName,
        environment,
        hour,
        yes: Math.max(0, Math.trunc(counts.yes ?? 0)),
        no: Math.max(0, Math.trunc(counts.no ?? 0)),
        variants: counts.variants ?? {},
      }));
      await metricsStore.addMetrics(tx.db, rows);
      const seen = await metricsStore.markSeen(
        tx.db,
        environment,
        rows.map((row) => row.featureName),
        at,
      );
      // Use in production means live; use anywhere else means pre-live.
      const production = (await metricsStore.environmentType(tx.db, environment)) === "production";
      await metricsStore.enterStages(tx.db, seen, production ? ["pre-live", "live"] : ["pre-live"]);
    });
  }

  async applications(query: ApplicationQuery) {
    const { rows, total, usage } = await metricsStore.listApplications(this.db, query);
    return {
      total,
      applications: rows.map((row) => {
        const byProject = new Map<string, string[]>();
        for (const entry of usage.filter((entry) => entry.app_name === row.app_name)) {
          byProject.set(entry.project, [...(byProject.get(entry.project) ?? []), entry.environment]);
        }
        return {
          appName: row.app_name,
          ...(row.sdk_version ? { sdkVersion: row.sdk_version } : {}),
          strategies: row.strategies,
          description: row.description ?? "",
          url: row.url ?? "",
          color: row.color ?? "",
          icon: row.icon ?? "",
          createdAt: row.created_at.toISOString(),
          usage: [...byProject].map(([project, environments]) => ({ project, environments })),
        };
      }),
    };
  }

  private async recordApplication(
    tx: Tx,
    principal: Principal,
    app: { appName: string; sdkVersion?: string; strategies?: string[] },
    clientIp: string,
  ): Promise<void> {
    const created = await metricsStore.upsertApplication(tx.db, app);
    // The token decides where an SDK's usage lands: its environment and its projects.
    await metricsStore.addUsage(tx.db, app.appName, principal.projects, principal.environment);
    if (created) {
      tx.record({
        type: "application-created",
        createdBy: principal.name,
        environment: principal.environment,
        data: { appName: app.appName, sdkVersion: app.sdkVersion ?? null, clientIp },
      });
    }
  }
}
