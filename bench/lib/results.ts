// Every benchmark can leave its figures in bench/results/ so that the trend across commits
// stays visible (bench/README.md's history table is built from these files).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

export interface BenchResult {
  /** The benchmark's name, as in `npm run bench:<name>`. */
  bench: string;
  /** What was measured, one entry per row the benchmark prints. */
  figures: object[];
  /** Signalbox's figure over the reference's, keyed by what was compared. */
  ratios: Record<string, number>;
}

function commit(): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      encoding: "utf8",
    }).trim();
    return dirty ? `${sha}+changes` : sha;
  } catch {
    return "unknown";
  }
}

/**
 * Writes the result as JSON when `BENCH_RESULTS` is set (to `1` for bench/results/, or to a
 * folder), so that runs made while trying things do not litter the history.
 */
export function saveResult(result: BenchResult): string | undefined {
  const target = process.env.BENCH_RESULTS;
  if (!target) return undefined;
  const folder = target === "1" ? new URL("../results/", import.meta.url).pathname : target;
  mkdirSync(folder, { recursive: true });
  const date = new Date().toISOString();
  const record = {
    bench: result.bench,
    commit: commit(),
    date,
    machine: {
      cpu: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
    figures: result.figures,
    ratios: result.ratios,
  };
  const file = `${folder.replace(/\/$/, "")}/${date.slice(0, 19).replaceAll(":", "")}-${result.bench}.json`;
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`result written to ${file}`);
  return file;
}
