// The scale benchmark's report: a table per size, how each cost grows between sizes, and the
// charts, from this run's outcomes merged into those of earlier runs (out/scale-figures.json).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { FIGURES, type FigureKey, type FigureSpec, type Figures, ratio } from "./figures.js";
import { chart, grid, type Series } from "./plot.js";
import { LABELS, SERVICES, type ServiceName } from "./servers.js";

export interface Outcome {
  figures: Figures;
  notes: string[];
  /** Seconds each phase took, the benchmark's own work included. */
  phases: Record<string, number>;
  skipped?: string;
  date: string;
}
export type Results = Record<string, Partial<Record<ServiceName, Outcome>>>;

export const outDir = new URL("./out/", import.meta.url).pathname;
export const mergedFile = `${outDir}scale-figures.json`;
function formatted(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return "–";
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function table(size: number, row: Partial<Record<ServiceName, Outcome>>): string {
  const shown = SERVICES.filter((name) => row[name]);
  const signalboxes = shown.filter((name) => name !== "reference");
  const compared = row.reference && !row.reference.skipped ? signalboxes : [];
  const lines = [
    `### ${size.toLocaleString("en-US")} flags`,
    "",
    `| figure | ${shown.map((name) => LABELS[name]).join(" | ")} | ${compared.map((name) => `${LABELS[name]} vs reference`).join(" | ")} |`,
    `|---|${shown.map(() => "---:").join("|")}|${compared.map(() => "---:").join("|")}|`,
  ];
  for (const [key, spec] of Object.entries(FIGURES) as [FigureKey, FigureSpec][]) {
    const values = shown.map((name) => row[name]!.figures[key]);
    if (values.every((value) => value === undefined)) continue;
    const ratios = compared.map((name) => {
      const r = ratio(key, row[name]!.figures[key], row.reference!.figures[key]);
      return r === undefined ? "" : `${r.toFixed(2)}x`;
    });
    lines.push(
      `| ${spec.label}${spec.unit ? ` (${spec.unit})` : ""} | ${values.map(formatted).join(" | ")} | ${ratios.join(" | ")} |`,
    );
  }
  for (const name of shown) {
    if (row[name]!.skipped) lines.push("", `${LABELS[name]}: skipped, ${row[name]!.skipped}.`);
  }
  return lines.join("\n");
}

export function merged(results: Results): Results {
  let previous: Results = {};
  try {
    previous = JSON.parse(readFileSync(mergedFile, "utf8")) as Results;
  } catch {
    // No earlier run: this one alone.
  }
  // Figure by figure, so that a run of some phases keeps what earlier runs measured of the others.
  for (const [size, row] of Object.entries(results)) {
    const kept = previous[size] ?? {};
    for (const [name, outcome] of Object.entries(row) as [ServiceName, Outcome][]) {
      kept[name] = { ...outcome, figures: { ...kept[name]?.figures, ...outcome.figures } };
    }
    previous[size] = kept;
  }
  return previous;
}

/** Merges `results` into the file of every run's figures. */
export function saveMerged(results: Results): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(mergedFile, `${JSON.stringify(merged(results), null, 2)}\n`);
}

/**
 * How each cost grows with the flags between the sizes run so far: k in cost ∝ flags^k, the
 * cost being the figure, or its inverse for a rate (time per request, per flag entry), so 0
 * is flat, 1 linear and above 1 faster than the flags.
 */
export function growth(all: Results): string {
  const sizesRun = Object.keys(all)
    .map(Number)
    .sort((a, b) => a - b);
  const steps = sizesRun.slice(1).map((size, i) => [sizesRun[i]!, size] as const);
  if (steps.length === 0) return "";
  const short = (flags: number) => (flags >= 1000 ? `${flags / 1000}k` : String(flags));
  const columns = SERVICES.flatMap((name) => steps.map((step) => [name, ...step] as const));
  const lines = [
    "### Growth: k in cost ∝ flags^k (0 flat, 1 linear, bold above 1.1; a rate's cost is its inverse)",
    "",
    `| figure | ${columns.map(([name, a, b]) => `${LABELS[name]} ${short(a)}→${short(b)}`).join(" | ")} |`,
    `|---|${columns.map(() => "---:").join("|")}|`,
  ];
  for (const [key, spec] of Object.entries(FIGURES) as [FigureKey, FigureSpec][]) {
    if (spec.better === "info") continue;
    const exponents = columns.map(([name, a, b]) => {
      const from = all[a]?.[name]?.figures[key];
      const to = all[b]?.[name]?.figures[key];
      if (!from || !to) return "";
      const k = Math.log(spec.better === "higher" ? from / to : to / from) / Math.log(b / a);
      return k > 1.1 ? `**${k.toFixed(2)}**` : k.toFixed(2);
    });
    if (exponents.some(Boolean)) lines.push(`| ${spec.label} | ${exponents.join(" | ")} |`);
  }
  return lines.join("\n");
}

export function plots(all: Results) {
  const keys = (Object.keys(FIGURES) as FigureKey[]).filter((key) => FIGURES[key].better !== "info");
  const charts: [FigureKey, Series][] = keys.map((key) => {
    const series = Object.fromEntries(SERVICES.map((name) => [name, []])) as unknown as Series;
    for (const [size, row] of Object.entries(all).sort(([a], [b]) => Number(a) - Number(b))) {
      for (const name of SERVICES) {
        const value = row[name]?.figures[key];
        if (value !== undefined && Number.isFinite(value)) series[name].push([Number(size), value]);
      }
    }
    return [key, series];
  });
  mkdirSync(`${outDir}charts`, { recursive: true });
  for (const [key, series] of charts) writeFileSync(`${outDir}charts/${key}.svg`, chart(key, series));
  writeFileSync(`${outDir}scale.svg`, grid(charts));
}
