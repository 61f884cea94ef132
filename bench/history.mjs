// Rebuilds the history table in bench/README.md from the JSON files in bench/results/, one row
// per saved run, so the trend of every ratio across commits is visible in one place.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";

const folder = new URL("./results/", import.meta.url);
const readme = new URL("./README.md", import.meta.url);
const start = "<!-- history:start -->";
const end = "<!-- history:end -->";

const runs = (existsSync(folder) ? readdirSync(folder) : [])
  .filter((name) => name.endsWith(".json"))
  .map((name) => JSON.parse(readFileSync(new URL(name, folder), "utf8")))
  .sort((a, b) => a.date.localeCompare(b.date));

const rows = runs.map((run) => {
  const ratios = Object.entries(run.ratios)
    .map(([what, ratio]) => `${what} ${Number(ratio).toFixed(1)}x`)
    .join(", ");
  return `| ${run.date.slice(0, 10)} | \`${run.commit}\` | ${run.bench} | ${run.machine.cores} × ${run.machine.cpu} | ${ratios} |`;
});
const table = [
  "| date | commit | benchmark | machine | ratios (Signalbox / reference; > 1 is Signalbox ahead) |",
  "|---|---|---|---|---|",
  ...rows,
].join("\n");

const text = readFileSync(readme, "utf8");
const from = text.indexOf(start);
const to = text.indexOf(end);
if (from < 0 || to < from) throw new Error(`bench/README.md lacks the ${start} … ${end} markers`);
writeFileSync(readme, `${text.slice(0, from + start.length)}\n${table}\n${text.slice(to)}`);
console.log(`history: ${rows.length} runs`);
