import type { ClientMetrics, ClientRegistration } from "@signalbox/protocol";
import { type Actor, system, type TokenActor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { EnvironmentService } from "../environments/service.js";
import type { Change, EventService } from "../events/service.js";
import type { FlagService } from "../features/flags/service.js";
import type { LifecycleService } from "../features/lifecycle/service.js";
import type { Application, ApplicationQuery } from "./schemas.js";
import { type MetricRow, metricsStore } from "./store.js";

const HOUR = 3_600_000;
/** How long hourly counts and silent SDK instances are kept, as in the reference. */
export const METRICS_RETENTION_MS = 48 * HOUR;

const startedAt = (started: string | number | undefined) => {
  if (started === undefined) return undefined;
  const date = typeof started === "number" ? new Date(started * 1000) : new Date(started);
  return Number.isNaN(date.getTime()) ? undefined : date;
};

/** What metrics ask of other domains: use marks flags seen and moves them through their lifecycle. */
export interface MetricsLookups {
  flags: Pick<FlagService, "markSeen">;
  lifecycle: Pick<LifecycleService, "reachedThroughUse">;
  environments: Pick<EnvironmentService, "list">;
}

/** Applications, their instances and their usage counts, as SDKs register and report them. */
export class MetricsService {
  private pruner: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly lookups: MetricsLookups,
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

  async register(token: TokenActor, registration: ClientRegistration, clientIp: string): Promise<void> {
    await this.events.change(token, async (change) => {
      await this.recordApplication(change, token, registration, clientIp);
      await metricsStore.upsertInstance(change.db, {
        appName: registration.appName,
        instanceId: registration.instanceId ?? "default",
        environment: token.environment,
        sdkVersion: registration.sdkVersion,
        clientIp,
        started: startedAt(registration.started),
        interval: registration.interval,
      });
    });
  }

  async report(token: TokenActor, report: ClientMetrics, clientIp: string): Promise<void> {
    const environment = token.environment;
    const toggles = Object.entries(report.bucket?.toggles ?? {}).filter(
      ([, counts]) => (counts.yes ?? 0) + (counts.no ?? 0) > 0,
    );
    const stop = report.bucket?.stop ? new Date(report.bucket.stop) : new Date();
    const at = Number.isNaN(stop.getTime()) ? new Date() : stop;
    const hour = new Date(Math.floor(at.getTime() / HOUR) * HOUR);
    // Use in production means live; use anywhere else means pre-live.
    const live = toggles.length > 0 && (await this.isProduction(environment));
    await this.events.change(token, async (change) => {
      await this.recordApplication(change, token, report, clientIp);
      await metricsStore.upsertInstance(change.db, {
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
      await metricsStore.addMetrics(change.db, rows);
      const names = rows.map((row) => row.featureName);
      const seen = await this.lookups.flags.markSeen(change.db, environment, names, at);
      await this.lookups.lifecycle.reachedThroughUse(
        change.db,
        seen,
        live ? ["pre-live", "live"] : ["pre-live"],
      );
    });
  }

  async applications(
    _actor: Actor,
    query: ApplicationQuery,
  ): Promise<{ total: number; applications: Application[] }> {
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

  /** Asked on the service's own behalf: the SDK's token is no admin reader. */
  private async isProduction(environment: string): Promise<boolean> {
    const environments = await this.lookups.environments.list(system("metrics"));
    return environments.find((entry) => entry.name === environment)?.type === "production";
  }

  private async recordApplication(
    change: Change,
    token: TokenActor,
    app: { appName: string; sdkVersion?: string; strategies?: string[] },
    clientIp: string,
  ): Promise<void> {
    const created = await metricsStore.upsertApplication(change.db, app);
    // The token decides where an SDK's usage lands: its environment and its projects.
    await metricsStore.addUsage(change.db, app.appName, token.projects, token.environment);
    if (created) {
      change.record({
        type: "application-created",
        environment: token.environment,
        data: { appName: app.appName, sdkVersion: app.sdkVersion ?? null, clientIp },
      });
    }
  }
}
