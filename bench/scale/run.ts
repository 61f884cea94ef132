// Scale benchmark (issue 25): the same generated data at 100, 1 000, 10 000 and 50 000 flags
// in Signalbox (PostgreSQL and embedded) and unleash-server 8.2.0, each service fresh at each
// size; see bench/README.md for what each figure measures. Usage:
//
//   npm run bench:scale                          every size, every service
//   SCALE_SIZES=100,1000 BENCH_SECONDS=3 npm run bench:scale
//   npm run bench:scale -- --report             the tables and charts of the runs so far, again
//
// Also SCALE_SERVICES (signalbox-pg,signalbox-embedded,reference), SCALE_CONNECTIONS (10),
// SCALE_WRITES (200), SCALE_IMPORT_BUDGET (seconds a service may take to import, 1800; a
// service whose last size's rate says it would take longer is skipped at the next),
// SCALE_IMPORT_CONCURRENCY (projects imported at a time, 4), SCALE_PHASES (what to measure
// after the import: reads,document,sdk reads,metrics,writes,export; import for none),
// SCALE_PROFILE_DIR (Signalbox writes a CPU profile there as it stops, one per size),
// BENCH_RESULTS=1 to keep the result in bench/results/.
import { cpuSeconds, peakMiB, residentMiB } from "../lib/process.js";
import { saveResult } from "../lib/results.js";
import { ENVIRONMENTS, type FlagSpec, flags as generate } from "./data.js";
import { type FigureKey, ratio } from "./figures.js";
import { document, eventCount, exports, metrics, type Phase, reads, sdkReads, writes } from "./measures.js";
import { OverBudget, populate } from "./populate.js";
import {
  growth,
  merged,
  mergedFile,
  type Outcome,
  outDir,
  plots,
  type Results,
  saveMerged,
  table,
} from "./report.js";
import { LABELS, SERVICES, type ServiceName, signalboxBuild, startService } from "./servers.js";

const list = (raw: string | undefined, fallback: string) =>
  (raw || fallback).split(",").map((item) => item.trim());
const sizes = list(process.env.SCALE_SIZES, "100,1000,10000,50000").map(Number);
const services = list(process.env.SCALE_SERVICES, SERVICES.join(",")) as ServiceName[];
for (const name of services) if (!SERVICES.includes(name)) throw new Error(`unknown service ${name}`);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.SCALE_CONNECTIONS ?? 10);
const writeOperations = Number(process.env.SCALE_WRITES ?? 200);
const budget = Number(process.env.SCALE_IMPORT_BUDGET ?? 1800);
const importConcurrency = Number(process.env.SCALE_IMPORT_CONCURRENCY ?? 4);
const PROPAGATION_WRITES = 6;
const PHASES = ["reads", "document", "sdk reads", "metrics", "writes", "export"] as const;
const phases = list(process.env.SCALE_PHASES, PHASES.join(","));
// The import always runs: SCALE_PHASES=import measures it alone.
for (const name of phases) {
  if (name !== "import" && !(PHASES as readonly string[]).includes(name))
    throw new Error(`unknown phase ${name}`);
}

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

async function measure(name: ServiceName, flags: FlagSpec[]): Promise<Outcome> {
  const label = LABELS[name];
  const outcome: Outcome = { figures: {}, notes: [], phases: {}, date: new Date().toISOString() };
  const timed = async <T>(phase: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await run();
    } finally {
      outcome.phases[phase] = (performance.now() - started) / 1000;
      log(`${label} @ ${flags.length}: ${phase} took ${outcome.phases[phase]!.toFixed(1)} s`);
    }
  };
  // Other work may rebuild the service between sizes: each outcome says which build it measured.
  if (name !== "reference") outcome.notes.push(`build of ${signalboxBuild().builtAt.toISOString()}`);
  const startedAt = performance.now();
  const service = await timed("start", () => startService(name));
  outcome.figures.startSeconds = (performance.now() - startedAt) / 1000;
  try {
    const personalToken = await service.personalToken();
    const importCpu = cpuSeconds(service.pid);
    const populated = await timed("import", () =>
      populate(service, personalToken, flags, importConcurrency, Date.now() + budget * 1000),
    );
    outcome.figures.importSeconds = populated.seconds;
    outcome.figures.importCpuSeconds = cpuSeconds(service.pid) - importCpu;
    outcome.figures.importFlagsPerSecond = (flags.length * ENVIRONMENTS.length) / populated.seconds;
    outcome.notes.push(`import: ${populated.requests} requests`);
    outcome.figures.events = await eventCount({ service } as Phase);
    outcome.figures.rssAfterImport = residentMiB(service.pid);
    const phase: Phase = {
      service,
      flags,
      personalToken,
      seconds,
      connections,
      note: (line) => {
        outcome.notes.push(line);
        log(`${label} @ ${flags.length}: ${line}`);
      },
    };
    // A phase that fails is noted and the others still run: one missing figure is better
    // than a lost hour.
    for (const [phaseName, run] of [
      ["reads", () => reads(phase)],
      ["document", () => document(phase, PROPAGATION_WRITES)],
      ["sdk reads", () => sdkReads(phase)],
      ["metrics", () => metrics(phase)],
      ["writes", () => writes(phase, writeOperations)],
      ["export", () => exports(phase)],
    ] as const) {
      if (!phases.includes(phaseName)) continue;
      try {
        Object.assign(outcome.figures, await timed(phaseName, run));
      } catch (error) {
        const ended = service.ended();
        phase.note(
          `${phaseName} failed: ${(error as Error).message}${ended ? ` (the service ${ended})` : ""}`,
        );
      }
    }
    // A service that crashed on the way has no memory left to read.
    if (!service.ended()) {
      outcome.figures.rssEnd = residentMiB(service.pid);
      outcome.figures.hwmEnd = peakMiB(service.pid);
    }
  } catch (error) {
    const ended = service.ended();
    if (ended) throw new Error(`${(error as Error).message} (the service ${ended})`);
    if (!(error instanceof OverBudget)) throw error;
    outcome.skipped = `import took more than ${budget} s (SCALE_IMPORT_BUDGET)`;
    log(`${label} @ ${flags.length}: ${outcome.skipped}`);
  } finally {
    await service.stop();
  }
  return outcome;
}

if (process.argv.includes("--report")) {
  // Measures nothing: the tables, growth and charts again from the runs so far.
  const all = merged({});
  for (const [size, row] of Object.entries(all).sort(([a], [b]) => Number(a) - Number(b))) {
    console.log(`\n${table(Number(size), row)}`);
  }
  console.log(`\n${growth(all)}\n`);
  plots(all);
  process.exit(0);
}

const build = signalboxBuild();
if (build.stale)
  console.warn("warning: packages/*/src changed after the last build; run `node scripts/build.mjs`");
log(
  `sizes ${sizes.join(", ")}; services ${services.join(", ")}; BENCH_SECONDS ${seconds}; ${connections} connections; ${writeOperations} writes`,
);
const results: Results = {};
/** Flag-environments imported per second at the last size, to tell whether the next fits the budget. */
const rates = new Map<ServiceName, number>();
const runStarted = performance.now();
for (const size of sizes) {
  const flags = generate(size);
  const row: Partial<Record<ServiceName, Outcome>> = {};
  results[size] = row;
  const sizeStarted = performance.now();
  for (const name of services) {
    const rate = rates.get(name);
    const estimate = rate === undefined ? undefined : (size * ENVIRONMENTS.length) / rate;
    if (estimate !== undefined && estimate > budget) {
      row[name] = {
        figures: {},
        notes: [],
        phases: {},
        date: new Date().toISOString(),
        skipped: `its import rate at the last size (${rate!.toFixed(0)} flag-environments/s) puts ${size} flags at about ${Math.round(estimate)} s, over SCALE_IMPORT_BUDGET (${budget} s)`,
      };
      log(`${LABELS[name]} @ ${size}: skipped, ${row[name]!.skipped}`);
      continue;
    }
    try {
      row[name] = await measure(name, flags);
    } catch (error) {
      const skipped = `failed: ${(error as Error).message.slice(0, 300)}`;
      row[name] = { figures: {}, notes: [], phases: {}, date: new Date().toISOString(), skipped };
      log(`${LABELS[name]} @ ${size}: ${skipped}`);
    }
    // Kept at once, so that a run stopped later loses only the service it was measuring.
    saveMerged({ [size]: { [name]: row[name] } });
    const imported = row[name]!.figures.importFlagsPerSecond;
    if (imported !== undefined) rates.set(name, imported);
  }
  log(`${size} flags took ${((performance.now() - sizeStarted) / 1000).toFixed(0)} s`);
  console.log(`\n${table(size, row)}\n`);
  for (const name of services) {
    const notes = row[name]?.notes ?? [];
    if (notes.length > 0) console.log(`${LABELS[name]}:\n${notes.map((note) => `  - ${note}`).join("\n")}\n`);
  }
}
log(`all sizes took ${((performance.now() - runStarted) / 1000).toFixed(0)} s`);
console.log("Ratios are oriented so that above 1 means Signalbox did better (faster, more, smaller).");

const all = merged({});
plots(all);
console.log(`\n${growth(all)}\n`);
console.log(
  `figures of every size run so far in ${mergedFile}; charts in ${outDir}scale.svg and ${outDir}charts/`,
);

// The history table puts every ratio of a run in one cell: a few headline figures of
// Signalbox on PostgreSQL, by size; every figure of every service is in `figures`.
const HEADLINES: Partial<Record<FigureKey, string>> = {
  clientGzipRps: "client gzip",
  client304Rps: "client 304",
  frontendRps: "frontend",
  searchP50: "search p50",
  metricsTogglesPerSecond: "metrics",
  writeOpsPerSecond: "writes",
};
const ratios: Record<string, number> = {};
for (const [size, row] of Object.entries(results)) {
  for (const [key, short] of Object.entries(HEADLINES) as [FigureKey, string][]) {
    const r = ratio(key, row["signalbox-pg"]?.figures[key], row.reference?.figures[key]);
    if (r !== undefined) ratios[`${size} ${short}`] = r;
  }
}
saveResult({
  bench: "scale",
  figures: Object.entries(results).flatMap(([size, row]) =>
    Object.entries(row).map(([name, outcome]) => ({ flags: Number(size), service: name, ...outcome })),
  ),
  ratios,
});
