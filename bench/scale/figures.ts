// What the scale benchmark reports for each service at each size, and which way is better,
// so that every ratio can be oriented alike: above 1 means Signalbox did better.

export interface FigureSpec {
  label: string;
  unit: string;
  /** Which way is better; `info` figures describe the run and get no ratio. */
  better: "higher" | "lower" | "info";
}

/** CPU figures are the service's process alone: PostgreSQL's work is not in them, the embedded database's is. */
export const FIGURES = {
  startSeconds: { label: "start on an empty database", unit: "s", better: "lower" },
  importSeconds: { label: "import (populate) time", unit: "s", better: "lower" },
  importCpuSeconds: { label: "server CPU for the import", unit: "s", better: "lower" },
  importFlagsPerSecond: { label: "import rate (flag-environments)", unit: "/s", better: "higher" },
  events: { label: "events stored after import", unit: "", better: "info" },
  listP50: { label: "project flag listing p50", unit: "ms", better: "lower" },
  listP99: { label: "project flag listing p99", unit: "ms", better: "lower" },
  listCpuMs: { label: "server CPU per project listing", unit: "ms", better: "lower" },
  searchP50: { label: "flag search p50", unit: "ms", better: "lower" },
  searchP99: { label: "flag search p99", unit: "ms", better: "lower" },
  searchCpuMs: { label: "server CPU per flag search", unit: "ms", better: "lower" },
  eventSearchP50: { label: "event search p50", unit: "ms", better: "lower" },
  eventSearchP99: { label: "event search p99", unit: "ms", better: "lower" },
  eventSearchCpuMs: { label: "server CPU per event search", unit: "ms", better: "lower" },
  documentBytes: { label: "SDK document size", unit: "KiB", better: "lower" },
  documentGzipBytes: { label: "SDK document size, gzip", unit: "KiB", better: "lower" },
  propagationMs: { label: "write to new ETag served, median", unit: "ms", better: "lower" },
  propagationMaxMs: { label: "write to new ETag served, max", unit: "ms", better: "lower" },
  clientFullRps: { label: "/api/client/features", unit: "req/s", better: "higher" },
  clientFullP99: { label: "/api/client/features p99", unit: "ms", better: "lower" },
  clientFullCpuMs: { label: "server CPU per /api/client/features", unit: "ms", better: "lower" },
  clientGzipRps: { label: "/api/client/features gzip", unit: "req/s", better: "higher" },
  clientGzipP99: { label: "/api/client/features gzip p99", unit: "ms", better: "lower" },
  clientGzipCpuMs: { label: "server CPU per gzip request", unit: "ms", better: "lower" },
  client304Rps: { label: "/api/client/features 304", unit: "req/s", better: "higher" },
  client304CpuMs: { label: "server CPU per 304 request", unit: "ms", better: "lower" },
  frontendRps: { label: "/api/frontend, one context", unit: "req/s", better: "higher" },
  frontendP99: { label: "/api/frontend p99", unit: "ms", better: "lower" },
  frontendCpuMs: { label: "server CPU per /api/frontend request", unit: "ms", better: "lower" },
  registerSeconds: { label: "register 1 000 SDK instances", unit: "s", better: "lower" },
  metricsTogglesPerSecond: { label: "metrics ingested (flag entries)", unit: "/s", better: "higher" },
  metricsRoundSeconds: { label: "one round: 1 000 SDKs x every flag", unit: "s", better: "lower" },
  metricsCpuPerMillion: { label: "server CPU per million metric entries", unit: "s", better: "lower" },
  writeOpsPerSecond: { label: "admin writes (create+strategy+enable)", unit: "op/s", better: "higher" },
  writeP50: { label: "admin write op p50", unit: "ms", better: "lower" },
  writeP99: { label: "admin write op p99", unit: "ms", better: "lower" },
  writeCpuMs: { label: "server CPU per admin write op", unit: "ms", better: "lower" },
  exportSeconds: { label: "export every project (development)", unit: "s", better: "lower" },
  rssAfterImport: { label: "VmRSS after import", unit: "MiB", better: "lower" },
  rssEnd: { label: "VmRSS at the end", unit: "MiB", better: "lower" },
  hwmEnd: { label: "VmHWM (peak) at the end", unit: "MiB", better: "lower" },
} as const satisfies Record<string, FigureSpec>;

export type FigureKey = keyof typeof FIGURES;
export type Figures = Partial<Record<FigureKey, number>>;

/** Signalbox's figure against the reference's, above 1 when Signalbox did better. */
export function ratio(key: FigureKey, signalbox: number | undefined, reference: number | undefined) {
  const { better } = FIGURES[key] as FigureSpec;
  if (better === "info" || signalbox === undefined || reference === undefined) return undefined;
  // A service that answered nothing in time has no rate or cost to compare (0 or Infinity).
  if (!(signalbox > 0 && reference > 0 && Number.isFinite(signalbox) && Number.isFinite(reference)))
    return undefined;
  return better === "higher" ? signalbox / reference : reference / signalbox;
}
