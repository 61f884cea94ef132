import type { EnvironmentUsage, HourlyExposure } from "./schemas.js";
import type { MetricRow } from "./store.js";

export const HOUR = 3_600_000;

export const startOfHour = (at: Date): Date => new Date(Math.floor(at.getTime() / HOUR) * HOUR);

// Each application is a series of its own on a chart: past a hundred none can be told
// apart, and the answer stays bounded (the reference stops at a hundred too).
const MAX_APPLICATIONS = 100;

/** The first hour of the last `hours` hours, the current one included. */
export const firstHour = (hours: number, now: Date): Date =>
  new Date(startOfHour(now).getTime() - (hours - 1) * HOUR);

/**
 * The last `hours` hours, oldest first, of every application and environment that used the
 * flag in them: an entry for each hour, with zero counts (and no variants) where nothing
 * was reported, so that a chart needs no gap filling. Counts dated in a future hour (an SDK
 * whose clock runs ahead) wait until that hour comes.
 */
export function hourlyExposure(
  featureName: string,
  rows: readonly MetricRow[],
  hours: number,
  now: Date,
): HourlyExposure[] {
  const start = firstHour(hours, now).getTime();
  const applications = new Set(
    [...new Set(rows.map((row) => row.appName))]
      .sort((a, b) => a.localeCompare(b))
      .slice(0, MAX_APPLICATIONS),
  );
  const places = new Map<string, { environment: string; appName: string; hours: Map<number, MetricRow> }>();
  for (const row of rows) {
    if (!applications.has(row.appName)) continue;
    const key = `${row.environment}\u0000${row.appName}`;
    const place = places.get(key) ?? { environment: row.environment, appName: row.appName, hours: new Map() };
    place.hours.set(row.hour.getTime(), row);
    places.set(key, place);
  }
  const ordered = [...places.values()].sort(
    (a, b) => a.environment.localeCompare(b.environment) || a.appName.localeCompare(b.appName),
  );
  const entries: HourlyExposure[] = [];
  for (let hour = 0; hour < hours; hour++) {
    const at = start + hour * HOUR;
    const timestamp = new Date(at).toISOString();
    for (const { environment, appName, hours: reported } of ordered) {
      const row = reported.get(at);
      entries.push(
        row
          ? { featureName, appName, environment, timestamp, yes: row.yes, no: row.no, variants: row.variants }
          : { featureName, appName, environment, timestamp, yes: 0, no: 0 },
      );
    }
  }
  return entries;
}

/** Counts added up per environment, dated by the earliest hour among them. */
export function usageByEnvironment(rows: readonly MetricRow[]): EnvironmentUsage[] {
  const totals = new Map<string, { hour: Date; yes: number; no: number }>();
  for (const row of rows) {
    const total = totals.get(row.environment);
    if (!total) totals.set(row.environment, { hour: row.hour, yes: row.yes, no: row.no });
    else {
      total.yes += row.yes;
      total.no += row.no;
      if (row.hour < total.hour) total.hour = row.hour;
    }
  }
  return [...totals]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([environment, { hour, yes, no }]) => ({ environment, timestamp: hour.toISOString(), yes, no }));
}
