// The differential test: the reference (unleash-server) and Signalbox, side by side on fresh
// PostgreSQL databases, get the same generated configuration through the same admin API
// calls; then their SDK documents, what the Node SDK evaluates against each, and their
// frontend API answers and their playgrounds' explanations are compared. A difference fails
// the run unless lib/known.ts lists it.
//
//   npm run test:differential            a random seed, printed
//   DIFF_SEED=1234 npm run test:differential   replays a run
//
// Also: DIFF_FLAGS (200), DIFF_CONTEXTS (2000), DIFF_FRONTEND_CONTEXTS (all of them),
// DIFF_PLAYGROUND_CONTEXTS (200), DIFF_REPORT=<file> writes every difference as JSON.
import { writeFileSync } from "node:fs";
import { createProxy, type SignalboxProxy } from "@signalbox/proxy";
import { Random, randomSeed } from "@signalbox/server/compare";
import type { Unleash } from "unleash-client";
import { type Applied, apply, request } from "./lib/apply.js";
import { generateContexts } from "./lib/contexts.js";
import { compareDocuments, type Document, dependencyNotes, NORMALISATIONS } from "./lib/documents.js";
import { connectSdk, type EvaluationDifference, evaluateAll } from "./lib/evaluate.js";
import { compareFrontend, sessionReaders } from "./lib/frontend.js";
import { generate } from "./lib/generate.js";
import { type Difference, explain, KNOWN_DIFFERENCES } from "./lib/known.js";
import { INLINING_NOTE, TIED_ORDER_NOTE } from "./lib/notes.js";
import { compareOfrep, type OfrepDifference } from "./lib/ofrep.js";
import { comparePlayground, type PlaygroundDifference } from "./lib/playground.js";
import {
  createDatabase,
  dropDatabase,
  type RunningService,
  SIDES,
  type Side,
  startService,
  type Tokens,
  waitFor,
} from "./lib/servers.js";

const started = Date.now();
function count(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return value;
}
const seed = count("DIFF_SEED", randomSeed());
const flagCount = count("DIFF_FLAGS", 200);
const contextCount = count("DIFF_CONTEXTS", 2000);
const frontendCount = count("DIFF_FRONTEND_CONTEXTS", contextCount);
const playgroundCount = Math.min(count("DIFF_PLAYGROUND_CONTEXTS", 200), contextCount);
// Client specification versions: current; the last two the spec and the reference treat
// differently (segments inlined below 4.2.2, resp. 4.2.0); and one both inline for.
const SPECS = ["5.2.0", "4.2.1", "4.1.0"];

const log = (message: string) =>
  console.log(`differential: ${message} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
console.log(`differential: seed ${seed} (replay with DIFF_SEED=${seed})`);

const tokens: Tokens = {
  admin: "*:*.differential-admin",
  client: "*:development.differential-client",
  frontend: "*:development.differential-frontend",
};
const databases: Record<Side, string> = {
  reference: `differential_reference_${process.pid}`,
  signalbox: `differential_signalbox_${process.pid}`,
};
const services = {} as Record<Side, RunningService>;
const sdks: Unleash[] = [];
let relay: SignalboxProxy | undefined;
let exitCode = 1;

try {
  const urls = await Promise.all(SIDES.map((side) => createDatabase(databases[side])));
  await Promise.all(
    SIDES.map(async (side, i) => {
      services[side] = await startService(side, urls[i]!, tokens);
    }),
  );
  for (const side of SIDES) {
    await waitFor(async () => (await fetch(`${services[side].url}/health`)).ok, `${side} to be healthy`);
  }
  log(`both services up (reference ${services.reference.url}, signalbox ${services.signalbox.url})`);

  const random = new Random(seed);
  const plan = generate(random, flagCount);
  const applied = await apply(plan, services, tokens.admin);
  log(`${applied.calls} admin calls sent to each service`);

  const tokenFor = (side: Side, type: "client" | "frontend", environment: string) =>
    environment === "development"
      ? tokens[type]
      : (applied.ids[side].tokens.get(`${type}:${environment}`) ??
        (() => {
          throw new Error(`${side} made no ${type} token for ${environment}`);
        })());

  // Everything is served once the flags created last are, on both services and both APIs.
  for (const side of SIDES) {
    for (const [environment, sentinel] of plan.sentinels) {
      await waitFor(async () => {
        const client = await request(
          services[side].url,
          tokenFor(side, "client", environment),
          "GET",
          "/api/client/features",
        );
        const listed = (client.body as Document).features?.some((feature) => feature.name === sentinel);
        const frontend = await request(
          services[side].url,
          tokenFor(side, "frontend", environment),
          "GET",
          "/api/frontend",
        );
        const evaluated = (frontend.body as { toggles?: { name: string }[] }).toggles?.some(
          (toggle) => toggle.name === sentinel,
        );
        return Boolean(listed && evaluated);
      }, `${side} to serve ${sentinel}`);
    }
  }

  const skip = applied.diverged;
  const differences: Difference[] = [...applied.differences];
  // What each service serves a current SDK, by environment: for the report and the frontend.
  const served: Record<string, Record<Side, Document>> = {};
  for (const environment of plan.environments) {
    const fetched = {} as Record<string, Record<Side, Document>>;
    for (const spec of SPECS) {
      const pair = {} as Record<Side, Document>;
      for (const side of SIDES) {
        const answer = await request(
          services[side].url,
          tokenFor(side, "client", environment),
          "GET",
          "/api/client/features",
          undefined,
          {
            "unleash-client-spec": spec,
          },
        );
        if (answer.status !== 200) throw new Error(`${side} answered ${answer.status} to the SDK listing`);
        pair[side] = answer.body as Document;
      }
      fetched[spec] = pair;
    }
    served[environment] = fetched["5.2.0"]!;
    for (const spec of SPECS) {
      let reference = fetched[spec]!.reference;
      const signalbox = fetched[spec]!.signalbox;
      const inlined = (document: Document) => document.query?.inlineSegmentConstraints === true;
      if (inlined(signalbox) && !inlined(reference)) {
        differences.push({
          kind: "document",
          environment,
          spec,
          flag: "(listing)",
          paths: [".query.inlineSegmentConstraints"],
          reference: false,
          signalbox: true,
          note: INLINING_NOTE,
        });
        // The rest is compared with what the reference sends a client it inlines for.
        reference = fetched["4.1.0"]!.reference;
      }
      differences.push(...compareDocuments(environment, spec, reference, signalbox, skip));
    }
  }
  log(
    `SDK documents compared (${plan.environments.length} environments, client specifications ${SPECS.join(", ")})`,
  );

  // The Signalbox proxy in Unleash Edge's place in front of the reference, with the
  // reference's own tokens: its SDK and frontend answers must be the reference's.
  relay = await createProxy({
    serviceUrl: `${services.reference.url}/api`,
    serviceApiToken: tokens.client,
    clientKeys: ["differential-relay"],
    edgeTokens: plan.environments.map((environment) => tokenFor("reference", "client", environment)),
    refreshInterval: 60_000,
    backupDir: false,
    logLevel: "error",
  });
  const relayUrl = await relay.listen({ port: 0, host: "127.0.0.1" });
  let relayed = 0;
  let ofrepComparisons = 0;

  const contexts = generateContexts(random, contextCount, plan.environments);
  let evaluations = 0;
  let frontendComparisons = 0;
  let frontendSkipped = 0;
  let playgroundComparisons = 0;
  let playgroundSkipped = 0;
  for (const environment of plan.environments) {
    const pair = {} as Record<Side, Unleash>;
    for (const side of SIDES) {
      pair[side] = await connectSdk(
        services[side].url,
        tokenFor(side, "client", environment),
        environment,
        side,
      );
      sdks.push(pair[side]);
    }
    const mine = contexts.filter((context) => context.environment === environment);
    const sdkRun = evaluateAll(pair, environment, mine, skip, seed);
    evaluations += sdkRun.evaluations;
    differences.push(...sdkRun.differences);
    const flags = pair.reference.getFeatureToggleDefinitions().map((definition) => definition.name);
    const frontendRun = await compareFrontend(
      { reference: services.reference.url, signalbox: services.signalbox.url },
      {
        reference: tokenFor("reference", "frontend", environment),
        signalbox: tokenFor("signalbox", "frontend", environment),
      },
      environment,
      mine.slice(0, Math.ceil(frontendCount / plan.environments.length)),
      flags,
      skip,
      sdkRun.random,
      sessionReaders(served[environment]!.reference),
    );
    frontendComparisons += frontendRun.comparisons;
    frontendSkipped += frontendRun.skippedAsRandom;
    const playgroundRun = await comparePlayground(
      { reference: services.reference.url, signalbox: services.signalbox.url },
      tokens.admin,
      environment,
      mine.slice(0, Math.ceil(playgroundCount / plan.environments.length)),
      skip,
      sdkRun.random,
    );
    playgroundComparisons += playgroundRun.comparisons;
    playgroundSkipped += playgroundRun.skippedAsRandom;
    const notes = dependencyNotes(served[environment]!.reference);
    for (const difference of [
      ...sdkRun.differences,
      ...frontendRun.differences,
      ...playgroundRun.differences,
    ]) {
      const found = notes.get(difference.flag);
      if (found) difference.notes = [...(difference.notes ?? []), ...found];
    }
    await noteTiedOrders(frontendRun.differences, environment, served[environment]!.reference);
    differences.push(...frontendRun.differences, ...playgroundRun.differences);

    const relaySdk = await connectSdk(
      relayUrl,
      tokenFor("reference", "client", environment),
      environment,
      "relay",
    );
    sdks.push(relaySdk);
    const relayRun = evaluateAll(
      { reference: pair.reference, signalbox: relaySdk },
      environment,
      mine,
      skip,
      seed,
    );
    const relayFrontend = await compareFrontend(
      { reference: services.reference.url, signalbox: relayUrl },
      {
        reference: tokenFor("reference", "frontend", environment),
        signalbox: tokenFor("reference", "frontend", environment),
      },
      environment,
      mine.slice(0, Math.ceil(frontendCount / plan.environments.length)),
      flags,
      skip,
      relayRun.random,
      sessionReaders(served[environment]!.reference),
    );
    relayed += relayRun.evaluations + relayFrontend.comparisons;
    for (const difference of [...relayRun.differences, ...relayFrontend.differences]) {
      const found = notes.get(difference.flag);
      if (found) difference.notes = [...(difference.notes ?? []), ...found];
      difference.relay = true;
    }
    await noteTiedOrders(relayFrontend.differences, environment, served[environment]!.reference);
    differences.push(...relayRun.differences, ...relayFrontend.differences);

    // OpenFeature's protocol: the service's with its frontend token, against its own SDK's
    // decisions; the proxy's (its client key reads development) against the reference's SDK.
    const ofrepRuns = [
      await compareOfrep(
        "the Signalbox service",
        services.signalbox.url,
        tokenFor("signalbox", "frontend", environment),
        pair.signalbox,
        environment,
        mine,
        skip,
        sdkRun.random,
      ),
      ...(environment === "development"
        ? [
            await compareOfrep(
              "the Signalbox proxy in front of the reference",
              relayUrl,
              "differential-relay",
              pair.reference,
              environment,
              mine,
              skip,
              sdkRun.random,
            ),
          ]
        : []),
    ];
    for (const ofrepRun of ofrepRuns) {
      ofrepComparisons += ofrepRun.comparisons;
      differences.push(...ofrepRun.differences);
    }
    for (const sdk of [...Object.values(pair), relaySdk]) sdk.destroy();
  }
  log(
    `${evaluations} SDK evaluations, ${frontendComparisons} frontend answers and ${playgroundComparisons} playground explanations compared`,
  );
  log(
    `${relayed} SDK evaluations and frontend answers through the Signalbox proxy in front of the reference, with the reference's tokens, compared with the reference's own`,
  );
  log(`${ofrepComparisons} OpenFeature (OFREP) answers compared with what the Node SDK decides`);

  const unexplained = report(differences, applied, served);
  if (process.env.DIFF_REPORT) {
    writeFileSync(
      process.env.DIFF_REPORT,
      JSON.stringify(
        { seed, differences: differences.map((d) => ({ known: explain(d)?.id, ...d })), documents: served },
        null,
        2,
      ),
    );
    console.log(`differential: every difference written to ${process.env.DIFF_REPORT}`);
  }
  console.log(
    `differential: ${frontendSkipped} frontend comparisons left out because the answer is a random draw on both services (random stickiness, or a session id the service makes up)`,
  );
  console.log(
    `differential: ${playgroundSkipped} playground comparisons left out because the flag's answer is a random draw on both services`,
  );
  console.log(
    `differential: seed ${seed}, ${plan.flagCount} flags, ${contextCount} contexts, ${evaluations} evaluations, ${unexplained} unexplained differences`,
  );
  exitCode = unexplained === 0 ? 0 : 1;
} catch (error) {
  console.error(`differential: seed ${seed}: the run could not finish:`, error);
} finally {
  for (const sdk of sdks) sdk.destroy();
  await relay?.close();
  await Promise.all(SIDES.map((side) => services[side]?.stop()));
  await Promise.all(SIDES.map((side) => dropDatabase(databases[side]).catch(() => {})));
  log("done");
}
process.exit(exitCode);

/**
 * Notes the frontend differences on flags with strategies that share a sortOrder in the
 * environment, as the reference's admin API shows them (its client API leaves sortOrder out).
 */
async function noteTiedOrders(found: EvaluationDifference[], environment: string, served: Document) {
  const projects = new Map(served.features.map((feature) => [String(feature.name), String(feature.project)]));
  const tied = new Map<string, boolean>();
  for (const difference of found) {
    if (difference.kind !== "frontend" || explain(difference)) continue;
    if (!tied.has(difference.flag)) {
      const project = projects.get(difference.flag) ?? "default";
      const answer = await request(
        services.reference.url,
        tokens.admin,
        "GET",
        `/api/admin/projects/${project}/features/${encodeURIComponent(difference.flag)}`,
      );
      const env = (
        answer.body as { environments?: { name: string; strategies: { sortOrder?: number }[] }[] }
      ).environments?.find((candidate) => candidate.name === environment);
      const orders = (env?.strategies ?? []).map((strategy) => strategy.sortOrder ?? 0);
      tied.set(difference.flag, new Set(orders).size < orders.length);
    }
    if (tied.get(difference.flag)) difference.notes = [...(difference.notes ?? []), TIED_ORDER_NOTE];
  }
}

function report(
  differences: Difference[],
  applied: Applied,
  documents: Record<string, Record<Side, Document>>,
): number {
  const explained = new Map<string, number>();
  const open: Difference[] = [];
  for (const difference of differences) {
    const known = explain(difference);
    if (known) explained.set(known.id, (explained.get(known.id) ?? 0) + 1);
    else open.push(difference);
  }
  console.log("\ndifferential: normalisations applied to both SDK documents before comparing:");
  for (const normalisation of NORMALISATIONS) console.log(`  - ${normalisation.name}: ${normalisation.why}`);
  if (explained.size > 0) {
    console.log("differential: known and accepted differences seen (lib/known.ts):");
    for (const known of KNOWN_DIFFERENCES) {
      const count = explained.get(known.id);
      if (count) console.log(`  - ${known.id} ×${count}: ${known.what} (${known.why})`);
    }
  }
  if (applied.diverged.size > 0) {
    console.log(
      `differential: ${applied.diverged.size} flags left out of the document and evaluation comparisons because one service refused a call the other accepted: ${[...applied.diverged].join(", ")}`,
    );
  }
  if (open.length === 0) return 0;

  const show = (value: unknown) => JSON.stringify(value);
  const admin = open.filter((d) => d.kind === "admin");
  const document = open.filter((d) => d.kind === "document");
  const evaluation = open.filter((d): d is EvaluationDifference => d.kind === "sdk" || d.kind === "frontend");
  const playground = open.filter((d): d is PlaygroundDifference => d.kind === "playground");
  const ofrep = open.filter((d): d is OfrepDifference => d.kind === "ofrep");
  console.log(`\ndifferential: UNEXPLAINED DIFFERENCES (seed ${seed})`);
  if (admin.length > 0) {
    console.log(`\n  admin API: ${admin.length} calls answered differently`);
    for (const d of admin.slice(0, 30)) {
      if (d.kind !== "admin") continue;
      console.log(`  - ${d.label}${d.probe ? " [probe]" : ""}: ${d.method} ${d.path}`);
      if (d.body !== undefined) console.log(`      body:      ${show(d.body).slice(0, 400)}`);
      console.log(`      reference: ${d.reference.status} ${show(d.reference.body).slice(0, 300)}`);
      console.log(`      signalbox: ${d.signalbox.status} ${show(d.signalbox.body).slice(0, 300)}`);
    }
  }
  if (document.length > 0) {
    const byFlag = new Map<string, number>();
    for (const d of document) if (d.kind === "document") byFlag.set(d.flag, (byFlag.get(d.flag) ?? 0) + 1);
    console.log(
      `\n  SDK documents: ${document.length} differences (flag × environment × client specification), in ${byFlag.size} flags or listings`,
    );
    for (const d of document.slice(0, 10)) {
      if (d.kind !== "document") continue;
      console.log(
        `  - ${d.flag} in ${d.environment}, spec ${d.spec}${d.note ? ` (${d.note})` : ""}: differs at ${d.paths.join(", ")}`,
      );
      console.log(`      reference: ${show(d.reference).slice(0, 700)}`);
      console.log(`      signalbox: ${show(d.signalbox).slice(0, 700)}`);
    }
    if (document.length > 10) {
      const rest = [
        ...new Set(
          document.slice(10).map((d) => (d.kind === "document" ? `${d.flag}@${d.environment}` : "")),
        ),
      ];
      console.log(`  - and in: ${rest.join(", ")}`);
    }
  }
  if (evaluation.length > 0) {
    const groups = new Map<string, EvaluationDifference[]>();
    for (const d of evaluation) {
      const key = `${d.kind}${d.relay ? " through the proxy" : ""} ${d.environment} ${d.flag}`;
      groups.set(key, [...(groups.get(key) ?? []), d]);
    }
    for (const kind of ["sdk", "frontend"] as const) {
      const mine = [...groups.entries()].filter(([, list]) => list[0]!.kind === kind);
      if (mine.length === 0) continue;
      const total = mine.reduce((sum, [, list]) => sum + list.length, 0);
      console.log(
        `\n  ${kind === "sdk" ? "Node SDK evaluations" : "frontend API answers"}: ${total} differ, in ${mine.length} flag × environment pairs`,
      );
      for (const [key, list] of mine.slice(0, 6)) {
        const first = list[0]!;
        const served = documents[first.environment]?.reference.features.find(
          (feature) => feature.name === first.flag,
        );
        console.log(`  - ${key}: ${list.length} contexts differ`);
        console.log(`      context:   ${show(first.context)}`);
        console.log(`      reference: ${show(first.reference)}`);
        console.log(`      ${first.relay ? "proxy:    " : "signalbox:"} ${show(first.signalbox)}`);
        console.log(`      flag as the reference serves it: ${show(served).slice(0, 600)}`);
      }
      if (mine.length > 6) {
        const rest = mine
          .slice(6)
          .map(([key, list]) => `${key.split(" ").slice(1).join(" ")} (${list.length})`);
        console.log(`  - and in: ${rest.join(", ")}`);
      }
    }
  }
  if (ofrep.length > 0) {
    console.log(`\n  OpenFeature (OFREP) answers: ${ofrep.length} differ from the Node SDK's decisions`);
    for (const d of ofrep.slice(0, 10)) {
      console.log(`  - ${d.where}, ${d.environment} ${d.flag}`);
      console.log(`      context:  ${show(d.context)}`);
      console.log(`      Node SDK: ${show(d.sdk)}`);
      console.log(`      OFREP:    ${show(d.ofrep)}`);
    }
  }
  if (playground.length > 0) {
    const byFlag = new Map<string, PlaygroundDifference[]>();
    for (const d of playground) {
      const key = `${d.environment} ${d.flag}`;
      byFlag.set(key, [...(byFlag.get(key) ?? []), d]);
    }
    console.log(
      `\n  playground explanations: ${playground.length} differ, in ${byFlag.size} flag × environment pairs`,
    );
    for (const [key, list] of [...byFlag].slice(0, 6)) {
      const first = list[0]!;
      console.log(`  - ${key}: ${list.length} contexts differ, at ${first.paths.join(", ")}`);
      console.log(`      context:   ${show(first.context)}`);
      console.log(`      reference: ${show(first.reference)}`);
      console.log(`      signalbox: ${show(first.signalbox)}`);
      const served = documents[first.environment]?.reference.features.find((f) => f.name === first.flag);
      console.log(`      flag as the reference serves it: ${show(served).slice(0, 600)}`);
    }
    if (byFlag.size > 6) console.log(`  - and in: ${[...byFlag.keys()].slice(6).join(", ")}`);
  }
  return open.length;
}
