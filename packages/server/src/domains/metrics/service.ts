import { type ClientMetrics, type ClientRegistration, invalidField, notFound } from "@signalbox/protocol";
import { type Actor, system, type TokenActor } from "../../access/actor.js";
import { canSee } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { EnvironmentService } from "../environments/service.js";
import type { Change, EventService } from "../events/service.js";
import type { FlagService } from "../features/flags/service.js";
import type { LifecycleService } from "../features/lifecycle/service.js";
import type { StrategyDefinitionService } from "../strategy-definitions/service.js";
import { Batches } from "./batches.js";
import type {} from "./events.js";
import { firstHour, HOUR, hourlyExposure, startOfHour, usageByEnvironment } from "./exposure.js";
import { applicationOverview } from "./overview.js";
import type {
  Application,
  ApplicationDetail,
  ApplicationOverview,
  ApplicationQuery,
  ApplicationSettings,
  ApplicationSummary,
  EnvironmentUsage,
  HourlyExposure,
  Instance,
  RecentInstances,
} from "./schemas.js";
import {
  type ApplicationInput,
  type InstanceInput,
  type MetricRow,
  metricsStore,
  type SdkType,
} from "./store.js";

/** How long hourly counts and silent SDK instances are kept, as in the reference. */
export const METRICS_RETENTION_MS = 48 * HOUR;
/** What "recently" means on the admin pages, as in the reference: seen applications, flags and instances. */
const RECENT_MS = 24 * HOUR;

type ApplicationRow = NonNullable<Awaited<ReturnType<typeof metricsStore.application>>>;
type UsageRow = Awaited<ReturnType<typeof metricsStore.usageOf>>[number];
type InstanceRow = Awaited<ReturnType<typeof metricsStore.instancesOf>>[number];

/** Browser SDKs report through the frontend API with frontend tokens; every other SDK is a server SDK. */
const sdkTypeOf = (token: TokenActor): SdkType => (token.type === "frontend" ? "frontend" : "backend");

/** What an admin sees of an application: its usage in the projects hidden from them is left out. */
function applicationView(actor: Actor, row: ApplicationRow, usage: readonly UsageRow[]): Application {
  const byProject = new Map<string, string[]>();
  for (const entry of usage) {
    if (entry.project !== "*" && !canSee(actor, entry.project)) continue;
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
}

const instanceView = (row: InstanceRow): Instance => ({
  instanceId: row.instance_id,
  environment: row.environment,
  sdkVersion: row.sdk_version,
  sdkType: row.sdk_type,
  clientIp: row.client_ip,
  lastSeen: row.last_seen.toISOString(),
});

/**
 * The admin pages render an application's url as a link: one that is not http(s) (`javascript:`,
 * `data:`) would run in the page of whoever clicks it. Empty takes the link away.
 */
function requireLink(url: string | undefined): void {
  if (!url) return;
  const protocol = URL.parse(url)?.protocol;
  if (protocol !== "http:" && protocol !== "https:") {
    throw invalidField("url", "url must be an http:// or https:// URL, or empty.");
  }
}

const startedAt = (started: string | number | undefined) => {
  if (started === undefined) return undefined;
  const date = typeof started === "number" ? new Date(started * 1000) : new Date(started);
  return Number.isNaN(date.getTime()) ? undefined : date;
};

/**
 * What metrics ask of other domains: use marks flags seen and moves them through their
 * lifecycle; the admin pages ask which project holds a flag (a private one is hidden) and
 * which strategies are defined.
 */
export interface MetricsLookups {
  flags: Pick<FlagService, "markSeen" | "find" | "enabledIn">;
  lifecycle: Pick<LifecycleService, "reachedThroughUse">;
  environments: Pick<EnvironmentService, "list">;
  strategyDefinitions: Pick<StrategyDefinitionService, "list">;
}

/** What one SDK call writes: its application and instance, and a report's counts. */
interface Usage {
  token: TokenActor;
  clientIp: string;
  app: ApplicationInput;
  instance: InstanceInput;
  counts: MetricRow[];
  /** When the counts were taken: when their flags were last seen. */
  at: Date;
}

/** The most SDK calls written in one transaction. */
const BATCH_LIMIT = 100;

/** Counts of the same flag, application, environment and hour added up: each is written once. */
function summed(rows: MetricRow[]): MetricRow[] {
  const sums = new Map<string, MetricRow>();
  for (const row of rows) {
    const key = JSON.stringify([row.featureName, row.appName, row.environment, row.hour.getTime()]);
    const sum = sums.get(key);
    if (!sum) {
      sums.set(key, { ...row, variants: { ...row.variants } });
      continue;
    }
    sum.yes += row.yes;
    sum.no += row.no;
    for (const [name, count] of Object.entries(row.variants))
      sum.variants[name] = (sum.variants[name] ?? 0) + count;
  }
  return [...sums.values()];
}

/** The flags each environment's reports name, each with the latest time it was seen. */
function seenByEnvironment(usages: Usage[]): Map<string, Map<string, Date>> {
  const seen = new Map<string, Map<string, Date>>();
  for (const { counts, at } of usages) {
    for (const row of counts) {
      const flags = seen.get(row.environment) ?? new Map<string, Date>();
      seen.set(row.environment, flags);
      const before = flags.get(row.featureName);
      if (!before || before < at) flags.set(row.featureName, at);
    }
  }
  return seen;
}

/**
 * Applications, their instances and their usage counts, as SDKs register and report them.
 * Every instance of every application reports every minute, each naming all the flags it
 * evaluated: what arrives while a write is in progress is written together next, in one
 * transaction, its counts added up first (see Batches). Each call still answers once what
 * it sent is committed.
 */
export class MetricsService {
  private pruner: NodeJS.Timeout | undefined;
  private readonly usages = new Batches<Usage>((usages) => this.write(usages), BATCH_LIMIT);

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

  register(token: TokenActor, registration: ClientRegistration, clientIp: string): Promise<void> {
    return this.usages.add({
      token,
      clientIp,
      app: registration,
      instance: {
        appName: registration.appName,
        instanceId: registration.instanceId ?? "default",
        environment: token.environment,
        sdkType: sdkTypeOf(token),
        sdkVersion: registration.sdkVersion,
        clientIp,
        started: startedAt(registration.started),
        interval: registration.interval,
      },
      counts: [],
      at: new Date(),
    });
  }

  report(token: TokenActor, report: ClientMetrics, clientIp: string): Promise<void> {
    const environment = token.environment;
    const stop = report.bucket?.stop ? new Date(report.bucket.stop) : new Date();
    const at = Number.isNaN(stop.getTime()) ? new Date() : stop;
    const hour = startOfHour(at);
    return this.usages.add({
      token,
      clientIp,
      app: report,
      instance: {
        appName: report.appName,
        instanceId: report.instanceId ?? "default",
        environment,
        sdkType: sdkTypeOf(token),
        sdkVersion: report.sdkVersion,
        clientIp,
      },
      counts: Object.entries(report.bucket?.toggles ?? {})
        .filter(([, counts]) => (counts.yes ?? 0) + (counts.no ?? 0) > 0)
        .map(([featureName, counts]) => ({
          featureName,
          appName: report.appName,
          environment,
          hour,
          yes: Math.max(0, Math.trunc(counts.yes ?? 0)),
          no: Math.max(0, Math.trunc(counts.no ?? 0)),
          variants: counts.variants ?? {},
        })),
      at,
    });
  }

  async applications(
    actor: Actor,
    query: ApplicationQuery,
  ): Promise<{ total: number; applications: ApplicationSummary[] }> {
    const { rows, total, usage, instances } = await metricsStore.listApplications(this.db, query);
    return {
      total,
      applications: rows.map((row) => {
        const own = instances.filter((entry) => entry.app_name === row.app_name);
        const lastSeen = own.reduce<Date | null>((latest, { last_seen }) => {
          const seen = new Date(last_seen);
          return latest === null || seen > latest ? seen : latest;
        }, null);
        return {
          ...applicationView(
            actor,
            row,
            usage.filter((entry) => entry.app_name === row.app_name),
          ),
          instanceCount: own.reduce((sum, entry) => sum + Number(entry.count), 0),
          sdkVersions: own.flatMap((entry) => (entry.sdk_version ? [entry.sdk_version] : [])).sort(),
          lastSeen: lastSeen?.toISOString() ?? null,
        };
      }),
    };
  }

  /** An application with its instances and the flags it used in the last day. */
  async application(actor: Actor, appName: string, now = new Date()): Promise<ApplicationDetail> {
    const row = await this.requireApplication(appName);
    const [usage, instances, used] = await Promise.all([
      metricsStore.usageOf(this.db, appName),
      metricsStore.instancesOf(this.db, appName),
      metricsStore.flagsUsedBy(this.db, appName, new Date(now.getTime() - RECENT_MS)),
    ]);
    const projects = await this.projectsOf(
      actor,
      used.map((use) => use.feature_name),
    );
    return {
      ...applicationView(actor, row, usage),
      instances: instances.map(instanceView),
      seenToggles: [...projects].map(([name, project]) =>
        project === undefined ? { name, notFound: true } : { name, project },
      ),
    };
  }

  /**
   * An application at a glance, from the counts kept (48 hours) and the instances heard from
   * in the last day: see overview.ts.
   */
  async applicationOverview(actor: Actor, appName: string, now = new Date()): Promise<ApplicationOverview> {
    const row = await this.requireApplication(appName);
    const [used, instances, definitions] = await Promise.all([
      metricsStore.flagsUsedBy(this.db, appName, new Date(now.getTime() - METRICS_RETENTION_MS)),
      metricsStore.instancesOf(this.db, appName, { since: new Date(now.getTime() - RECENT_MS) }),
      this.lookups.strategyDefinitions.list(actor),
    ]);
    const projects = await this.projectsOf(
      actor,
      used.map((use) => use.feature_name),
    );
    return applicationOverview(
      used
        .filter((use) => projects.has(use.feature_name))
        .map((use) => ({
          featureName: use.feature_name,
          environment: use.environment,
          project: projects.get(use.feature_name),
        })),
      instances.map((instance) => ({
        instanceId: instance.instance_id,
        environment: instance.environment,
        sdkVersion: instance.sdk_version,
        sdkType: instance.sdk_type,
        lastSeen: instance.last_seen,
      })),
      { announced: row.strategies, defined: new Set(definitions.map((definition) => definition.name)) },
    );
  }

  /** The instances of an application heard from in one environment in the last day. */
  async recentInstances(
    _actor: Actor,
    appName: string,
    environment: string,
    now = new Date(),
  ): Promise<RecentInstances> {
    await this.requireApplication(appName);
    const rows = await metricsStore.instancesOf(this.db, appName, {
      environment,
      since: new Date(now.getTime() - RECENT_MS),
    });
    return {
      instances: rows.map((row) => ({
        instanceId: row.instance_id,
        sdkVersion: row.sdk_version,
        clientIp: row.client_ip,
        lastSeen: row.last_seen.toISOString(),
      })),
    };
  }

  /**
   * Creates an application ahead of its SDK, or changes how it is shown. Only a new one is
   * an event: the reference records no change to these settings, nor a deletion.
   */
  async saveApplication(
    actor: Actor,
    appName: string,
    settings: ApplicationSettings,
    clientIp: string,
  ): Promise<void> {
    requireLink(settings.url);
    await this.events.change(actor, async (change) => {
      if (await metricsStore.saveApplication(change.db, appName, settings)) {
        change.record({ type: "application-created", data: { appName, sdkVersion: null, clientIp } });
      }
    });
  }

  /** Forgets an application and its instances; one that does not exist is no error, as in the reference. */
  async deleteApplication(actor: Actor, appName: string): Promise<void> {
    await this.events.change(actor, (change) => metricsStore.deleteApplication(change.db, appName));
  }

  /** A flag's evaluations per hour, application and environment over the last `hours` hours. */
  async flagExposure(
    actor: Actor,
    featureName: string,
    hours: number,
    now = new Date(),
  ): Promise<HourlyExposure[]> {
    await this.requireFlag(actor, featureName);
    const rows = await metricsStore.metricsOfFlag(this.db, featureName, firstHour(hours, now));
    return hourlyExposure(featureName, rows, hours, now);
  }

  /**
   * A flag's evaluations per environment in the hours begun within the last 60 minutes (as
   * the reference counts "the last hour": by half past ten, the hour from ten), and the
   * applications that used it in the last day.
   */
  async flagUsage(
    actor: Actor,
    featureName: string,
    now = new Date(),
  ): Promise<{ lastHourUsage: EnvironmentUsage[]; seenApplications: string[] }> {
    await this.requireFlag(actor, featureName);
    const [lastHour, seenApplications] = await Promise.all([
      metricsStore.metricsOfFlag(this.db, featureName, new Date(now.getTime() - HOUR)),
      metricsStore.appsUsingFlag(this.db, featureName, new Date(now.getTime() - RECENT_MS)),
    ]);
    return { lastHourUsage: usageByEnvironment(lastHour), seenApplications };
  }

  /**
   * Writes SDK calls in one transaction. Each application and instance is written as its
   * call says, in order, any new application recorded as its SDK's doing; the counts are
   * added up, and each flag is stamped seen once per environment, at the latest time. Any
   * use means pre-live; use in a production environment of a flag switched on there, live,
   * as the reference records it.
   */
  private async write(usages: Usage[]): Promise<void> {
    const seen = seenByEnvironment(usages);
    // Asked on the service's own behalf: the SDK's token is no admin reader.
    const production = new Set(
      seen.size === 0
        ? []
        : (await this.lookups.environments.list(system("metrics")))
            .filter((entry) => entry.type === "production")
            .map((entry) => entry.name),
    );
    await this.events.change(system("metrics"), async (change) => {
      for (const usage of usages) {
        await this.events.change(usage.token, async (own) => {
          await this.recordApplication(own, usage.token, usage.app, usage.clientIp);
          await metricsStore.upsertInstance(own.db, usage.instance);
        });
      }
      if (seen.size === 0) return;
      await metricsStore.addMetrics(change.db, summed(usages.flatMap((usage) => usage.counts)));
      for (const [environment, flags] of seen) {
        const active = await this.lookups.flags.markSeen(
          change.db,
          environment,
          [...flags].map(([name, at]) => ({ name, at })),
        );
        await this.lookups.lifecycle.reachedThroughUse(change.db, active, ["pre-live"]);
        if (production.has(environment)) {
          const enabled = await this.lookups.flags.enabledIn(change.db, environment, active);
          await this.lookups.lifecycle.reachedThroughUse(change.db, enabled, ["live"]);
        }
      }
    });
  }

  private async requireApplication(appName: string): Promise<ApplicationRow> {
    const row = await metricsStore.application(this.db, appName);
    if (!row) throw notFound(`Could not find application ${appName}`);
    return row;
  }

  /** A flag of a project the actor sees, archived or not: any other is as unknown as a name no flag has. */
  private async requireFlag(actor: Actor, featureName: string): Promise<void> {
    const flag = await this.lookups.flags.find(this.db, featureName);
    if (!flag || !canSee(actor, flag.project)) throw notFound(`Could not find feature flag ${featureName}`);
  }

  /**
   * The project of each named flag, by name, undefined for a name no flag has; flags of
   * projects hidden from the actor are left out, as if never used.
   */
  private async projectsOf(actor: Actor, names: readonly string[]): Promise<Map<string, string | undefined>> {
    const unique = [...new Set(names)];
    const flags = await Promise.all(unique.map((name) => this.lookups.flags.find(this.db, name)));
    const projects = new Map<string, string | undefined>();
    unique.forEach((name, index) => {
      const flag = flags[index];
      if (!flag || canSee(actor, flag.project)) projects.set(name, flag?.project);
    });
    return projects;
  }

  private async recordApplication(
    change: Change,
    token: TokenActor,
    app: ApplicationInput,
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
