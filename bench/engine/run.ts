// Engine benchmark: all 1 000 flags of a configuration evaluated for each of 10 000
// contexts (in turn, for BENCH_SECONDS each), by this engine and by the published Unleash
// Node SDK, in one process.
import { compile } from "@signalbox/engine";
import { InMemStorageProvider, Unleash } from "unleash-client";
import { saveResult } from "../lib/results.js";
import { type BenchContext, buildContexts, buildDocument } from "./config.js";

const document = buildDocument();
const contexts = buildContexts();
const flagNames = document.features.map((feature) => feature.name);

async function startSdk(): Promise<Unleash> {
  const sdk = new Unleash({
    appName: "bench",
    // Nothing listens here: the SDK runs on its bootstrap and never reaches a server.
    url: "http://127.0.0.1:9/api",
    disableMetrics: true,
    refreshInterval: 0,
    storageProvider: new InMemStorageProvider(),
    bootstrap: { data: document.features as never, segments: document.segments as never },
  });
  sdk.on("error", () => {});
  sdk.on("warn", () => {});
  await new Promise<void>((resolve) => sdk.once("ready", () => resolve()));
  return sdk;
}

// On a shared machine the load moves during a run: the two sides take turns in short
// slices, so that each sees the same conditions, and each is timed over its own slices.
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const SLICE_NS = 200_000_000n;

interface Side {
  label: string;
  /** Evaluates every flag for one context; returns how many evaluations that was. */
  evaluate: (context: BenchContext) => number;
  next: number;
  evaluations: number;
  contexts: number;
  nanos: bigint;
}

function side(label: string, evaluate: (context: BenchContext) => number): Side {
  return { label, evaluate, next: 0, evaluations: 0, contexts: 0, nanos: 0n };
}

/** Runs one side for about `budget` nanoseconds, going on through the contexts where it stopped. */
function runSlice(side: Side, budget: bigint): void {
  const started = process.hrtime.bigint();
  let elapsed = 0n;
  while (elapsed < budget) {
    side.evaluations += side.evaluate(contexts[side.next]!);
    side.contexts++;
    side.next = (side.next + 1) % contexts.length;
    elapsed = process.hrtime.bigint() - started;
  }
  side.nanos += elapsed;
}

function race(sides: Side[]): void {
  // Warm-up: let the JIT settle on both before anything counts.
  for (const each of sides) runSlice(each, 2_000_000_000n);
  for (const each of sides) Object.assign(each, { evaluations: 0, contexts: 0, nanos: 0n });
  const budget = BigInt(Math.round(seconds * 1e9));
  while (sides.some((each) => each.nanos < budget)) {
    for (const each of sides) if (each.nanos < budget) runSlice(each, SLICE_NS);
  }
}

function figures(each: Side) {
  const elapsed = Number(each.nanos) / 1e9;
  return {
    implementation: each.label,
    evaluationsPerSecond: Math.round(each.evaluations / elapsed),
    contextsPerSecond: Math.round(each.contexts / elapsed),
    contexts: each.contexts,
    seconds: Number(elapsed.toFixed(2)),
  };
}

const snapshot = compile(document);
const sdk = await startSdk();

// Sanity first: both sides must agree on what they are racing on.
let agree = 0;
let compared = 0;
for (const context of contexts.slice(0, 200)) {
  for (const result of snapshot.evaluateAll(context)) {
    const variant = sdk.getVariant(result.name, context);
    compared++;
    if (variant.feature_enabled === result.enabled && variant.name === result.variant.name) agree++;
  }
}
console.log(
  `flags: ${flagNames.length}, contexts: ${contexts.length}, agreement on 200 contexts: ${agree}/${compared}`,
);

const ours = side("signalbox engine", (context) => snapshot.evaluateAll(context).length);
const theirs = side("unleash-client 6.12.1", (context) => {
  // getVariant decides enablement and variant in one call, the SDK's cheapest way to get both.
  for (const name of flagNames) sdk.getVariant(name, context);
  return flagNames.length;
});
race([ours, theirs]);
const rows = [figures(ours), figures(theirs)];
for (const row of rows) {
  console.log(
    `${row.implementation.padEnd(26)} ${row.evaluationsPerSecond.toLocaleString("en-US").padStart(14)} evaluations/s ` +
      `${row.contextsPerSecond.toLocaleString("en-US").padStart(9)} contexts/s  (${row.contexts} contexts in ${row.seconds} s)`,
  );
}
const ratio = rows[0]!.evaluationsPerSecond / rows[1]!.evaluationsPerSecond;
console.log(`ratio: ${ratio.toFixed(1)}x the Node SDK (all flags for a context)`);
saveResult({
  bench: "engine",
  figures: rows,
  ratios: { "all flags for a context": Number(ratio.toFixed(2)) },
});
sdk.destroy();
