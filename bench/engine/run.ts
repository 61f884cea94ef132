// Engine benchmark: all 1 000 flags of a configuration evaluated for each of 10 000
// contexts, by this engine and by the published Unleash Node SDK, in one process.
import { compile } from "@signalbox/engine";
import { InMemStorageProvider, Unleash } from "unleash-client";
import { buildContexts, buildDocument } from "./config.js";

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

function time(label: string, run: () => number): number {
  run(); // warm-up: let the JIT settle before the measured pass
  const started = process.hrtime.bigint();
  const evaluations = run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const perSecond = evaluations / seconds;
  console.log(
    `${label.padEnd(26)} ${Math.round(perSecond).toLocaleString("en-US").padStart(14)} evaluations/s ` +
      `${Math.round(contexts.length / seconds)
        .toLocaleString("en-US")
        .padStart(9)} contexts/s  (${seconds.toFixed(2)} s)`,
  );
  return perSecond;
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

const ours = time("signalbox engine", () => {
  let count = 0;
  for (const context of contexts) count += snapshot.evaluateAll(context).length;
  return count;
});
const theirs = time("unleash-client 6.12.1", () => {
  let count = 0;
  for (const context of contexts) {
    // getVariant decides enablement and variant in one call, the SDK's cheapest way to get both.
    for (const name of flagNames) {
      sdk.getVariant(name, context);
      count++;
    }
  }
  return count;
});
console.log(`ratio: ${(ours / theirs).toFixed(1)}x the Node SDK (all flags for a context)`);
sdk.destroy();
