// The streaming test: two Signalbox instances share one PostgreSQL database. Node SDKs in
// streaming mode connect to the second instance before anything is configured; the
// differential test's configuration and then a seeded sequence of random admin changes are
// made through the first. The Signalbox proxy, following the second instance, serves the
// same tokens' streams to more SDKs, in Unleash Edge's place. Afterwards each streaming SDK
// must answer, for every flag and every generated context, exactly what a polling SDK that
// connects to the first instance now answers.
//
//   npm run test:streaming                 a random seed, printed
//   DIFF_SEED=1234 npm run test:streaming  replays a run
//
// Also: DIFF_FLAGS (200), DIFF_CONTEXTS (2000), STREAM_CHANGES (500).
import { createProxy, type SignalboxProxy } from "@signalbox/proxy";
import { Random, randomSeed } from "@signalbox/server/compare";
import type { Unleash } from "unleash-client";
import { applyTo, request } from "./lib/apply.js";
import { CHANGE_KINDS, type ChangeKind, ChangeState, makeChange } from "./lib/changes.js";
import { generateContexts } from "./lib/contexts.js";
import { connectSdk, evaluateAll } from "./lib/evaluate.js";
import { generate } from "./lib/generate.js";
import {
  createDatabase,
  dropDatabase,
  type RunningService,
  startService,
  type Tokens,
  waitFor,
} from "./lib/servers.js";

const started = Date.now();
const count = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return value;
};
const seed = count("DIFF_SEED", randomSeed());
const flagCount = count("DIFF_FLAGS", 200);
const contextCount = count("DIFF_CONTEXTS", 2000);
const changeCount = count("STREAM_CHANGES", 500);
const log = (message: string) =>
  console.log(`streaming: ${message} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
console.log(`streaming: seed ${seed} (replay with DIFF_SEED=${seed})`);

const tokens: Tokens = {
  admin: "*:*.streaming-admin",
  client: "*:development.streaming-client",
  frontend: "*:development.streaming-frontend",
};
const database = `streaming_${process.pid}`;
const instances: RunningService[] = [];
const sdks: Unleash[] = [];
let proxy: SignalboxProxy | undefined;
let exitCode = 1;

/** An SDK following a service by streaming, and whether it ever fell back to polling. */
interface Follower {
  label: string;
  environment: string;
  token: string;
  sdk: Unleash;
  fellBack: boolean;
}

const definitions = (sdk: Unleash) =>
  JSON.stringify(sdk.getFeatureToggleDefinitions().sort((a, b) => a.name.localeCompare(b.name)));

try {
  const url = await createDatabase(database);
  // One after the other: the first migrates the database, the second finds it ready.
  const [writer, reader] = [
    await startService("signalbox", url, tokens),
    await startService("signalbox", url, tokens),
  ];
  instances.push(writer, reader);
  proxy = await createProxy({
    serviceUrl: `${reader.url}/api`,
    serviceApiToken: tokens.client,
    clientKeys: ["streaming-relay"],
    refreshInterval: 60_000,
    backupDir: false,
    logLevel: "error",
  });
  const proxyUrl = await proxy.listen({ port: 0, host: "127.0.0.1" });
  log(
    `two instances up (changes through ${writer.url}, streams from ${reader.url} and the proxy ${proxyUrl} following it)`,
  );

  const random = new Random(seed);
  const plan = generate(random, flagCount);
  const phases = plan.phases.map((phase) => phase.name);
  // Environments and tokens first, so that each environment's SDK can connect before its flags exist.
  const early = await applyTo(plan, writer, tokens.admin, ["setup", "tokens"]);
  const admin = (method: string, path: string, body?: unknown) =>
    request(writer.url, tokens.admin, method, path, body);
  const projectToken = await admin("POST", "/api/admin/api-tokens", {
    tokenName: "streaming-payments",
    type: "client",
    environment: "development",
    projects: ["payments"],
  });
  const followers: Follower[] = [];
  const follow = async (label: string, environment: string, token: string) => {
    for (const [where, url] of [
      ["", reader.url],
      [" through the proxy", proxyUrl],
    ] as const) {
      await followAt(`${label}${where}`, url, environment, token);
    }
  };
  const followAt = async (label: string, url: string, environment: string, token: string) => {
    const sdk = await connectSdk(url, token, environment, label, "streaming");
    sdks.push(sdk);
    const follower: Follower = { label, environment, token, sdk, fellBack: false };
    sdk.on("mode", () => {
      follower.fellBack = true;
    });
    followers.push(follower);
  };
  for (const environment of plan.environments) {
    const token =
      environment === "development" ? tokens.client : early.ids.tokens.get(`client:${environment}`);
    if (!token) throw new Error(`no client token for ${environment}`);
    await follow(environment, environment, token);
  }
  await follow("payments in development", "development", (projectToken.body as { secret: string }).secret);
  log(`${followers.length} streaming SDKs connected to the second instance`);

  const rest = await applyTo(
    plan,
    writer,
    tokens.admin,
    phases.filter((phase) => phase !== "setup" && phase !== "tokens"),
  );
  log(
    `configuration made: ${early.calls + rest.calls} admin calls (${rest.refused.length} refused, as probes may be)`,
  );

  const state = await ChangeState.read(admin, plan);
  const made = new Map<ChangeKind, { accepted: number; refused: number }>(
    CHANGE_KINDS.map((kind) => [kind, { accepted: 0, refused: 0 }]),
  );
  for (let index = 0; index < changeCount; index++) {
    const change = await makeChange(random, admin, state);
    const tally = made.get(change.kind)!;
    if (change.status < 300) tally.accepted++;
    else tally.refused++;
  }
  log(
    `${changeCount} random changes: ${[...made]
      .map(([kind, { accepted, refused }]) => `${kind} ${accepted}${refused ? ` (+${refused} refused)` : ""}`)
      .join(", ")}`,
  );

  const contexts = generateContexts(random, contextCount, plan.environments);
  let evaluations = 0;
  let differences = 0;
  for (const follower of followers) {
    const polling = await connectSdk(writer.url, follower.token, follower.environment, "polling");
    sdks.push(polling);
    // The last changes are on their way to the stream; a moment at most.
    const settled = Date.now();
    await waitFor(
      async () => definitions(follower.sdk) === definitions(polling),
      `${follower.label}: the streaming SDK to hold what the polling one does`,
      15_000,
    ).catch((error) => {
      console.log(`streaming: ${(error as Error).message}`);
    });
    const settling = Date.now() - settled;
    const run = evaluateAll(
      { reference: polling, signalbox: follower.sdk },
      follower.environment,
      contexts.filter((context) => context.environment === follower.environment),
      new Set(),
      seed,
    );
    evaluations += run.evaluations;
    differences += run.differences.length;
    for (const difference of run.differences.slice(0, 3)) {
      console.log(
        `streaming: ${follower.label}: ${difference.flag} for ${JSON.stringify(difference.context)}: polling ${JSON.stringify(difference.reference)}, streaming ${JSON.stringify(difference.signalbox)}`,
      );
    }
    log(
      `${follower.label}: ${follower.sdk.getFeatureToggleDefinitions().length} flags, settled in ${settling} ms, ${run.differences.length} differences in ${run.evaluations} evaluations${follower.fellBack ? ", FELL BACK TO POLLING" : ""}`,
    );
    if (follower.fellBack) differences++;
  }
  console.log(
    `streaming: ${differences} differences in ${evaluations} evaluations (${followers.length} streaming SDKs, ${changeCount} changes, seed ${seed})`,
  );
  exitCode = differences === 0 && evaluations > 0 ? 0 : 1;
} catch (error) {
  console.error(error);
} finally {
  for (const sdk of sdks) sdk.destroy();
  await proxy?.close();
  for (const instance of instances) await instance.stop();
  await dropDatabase(database).catch(() => undefined);
}
process.exit(exitCode);
