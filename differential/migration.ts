// The migration test: a team moves from the Unleash reference to Signalbox as
// docs/migrating-from-unleash.md says. The reference (unleash-server) gets the differential
// test's generated configuration; Signalbox gets only what an import cannot bring
// (environments, projects, strategy types, SDK tokens, and the segments, copied from the
// reference by name); then each project is exported from the reference, environment by
// environment, and imported into Signalbox with the `signalbox` command; the published Node
// SDK, pointed at each service, must answer alike for every flag and context, and
// `signalbox compare` must find no flag that disagrees in any environment.
//
//   npm run test:migration                 a random seed, printed
//   MIGRATION_SEED=1234 npm run test:migration   replays a run
//
// Also: MIGRATION_FLAGS (300), MIGRATION_CONTEXTS (3000), MIGRATION_REPORT=<file> writes the
// exported files, both services' SDK documents and every disagreement as JSON. Needs PostgreSQL (DATABASE_URL)
// and the reference installed (`npm ci --prefix reference`).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Random, randomSeed } from "@signalbox/server/compare";
import type { Unleash } from "unleash-client";
import { applyTo, request } from "./lib/apply.js";
import { generateContexts } from "./lib/contexts.js";
import { type Document, dependencyNotes } from "./lib/documents.js";
import { connectSdk, type EvaluationDifference, evaluateAll } from "./lib/evaluate.js";
import { generate } from "./lib/generate.js";
import { explain } from "./lib/known.js";
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
const CLI = fileURLToPath(new URL("../packages/server/src/signalbox-cli.ts", import.meta.url));
function count(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return value;
}
const seed = count("MIGRATION_SEED", randomSeed());
const flagCount = count("MIGRATION_FLAGS", 300);
const contextCount = count("MIGRATION_CONTEXTS", 3000);
const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
const log = (message: string) => console.log(`migration: ${message} (${seconds()} s)`);
console.log(`migration: seed ${seed} (replay with MIGRATION_SEED=${seed})`);

const tokens: Tokens = {
  admin: "*:*.migration-admin",
  client: "*:development.migration-client",
  frontend: "*:development.migration-frontend",
};
const databases: Record<Side, string> = {
  reference: `migration_reference_${process.pid}`,
  signalbox: `migration_signalbox_${process.pid}`,
};
const services = {} as Record<Side, RunningService>;
const sdks: Unleash[] = [];
let exitCode = 1;

/** A call that must succeed; its answer's body. */
async function must(
  service: RunningService,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const answer = await request(service.url, token, method, path, body);
  if (answer.status >= 300) {
    throw new Error(
      `${service.side} answered ${answer.status} to ${method} ${path}: ${JSON.stringify(answer.body).slice(0, 2000)}`,
    );
  }
  return answer.body;
}

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
  const { reference, signalbox } = services;
  log("both services up");

  // The reference: everything the differential test configures but its probes, calls at the
  // edge of what is valid that are about the admin API, not about what is migrated.
  const random = new Random(seed);
  const plan = generate(random, flagCount);
  const configured = await applyTo(
    plan,
    reference,
    tokens.admin,
    plan.phases.map((phase) => phase.name).filter((name) => name !== "probes"),
  );
  log(`reference configured: ${configured.calls} admin calls, ${configured.refused.length} refused by it`);

  // Signalbox: what an import does not bring. Context fields and tag types come with the files.
  const prepared = await applyTo(
    plan,
    signalbox,
    tokens.admin,
    ["setup", "tokens"],
    (step) => !step.path(configured.ids).startsWith("/api/admin/context"),
  );
  // A strategy type Signalbox has built in (userWithId) is there already: 409.
  const refusedSetup = prepared.refused.filter((step) => step.answer.status !== 409);
  if (refusedSetup.length > 0) {
    throw new Error(`signalbox refused its set-up: ${JSON.stringify(refusedSetup).slice(0, 2000)}`);
  }
  const segments = (
    (await must(reference, tokens.admin, "GET", "/api/admin/segments")) as {
      segments: { id: number; name: string; description?: string | null; constraints: unknown[] }[];
    }
  ).segments.sort((a, b) => a.id - b.id);
  for (const segment of segments) {
    await must(signalbox, tokens.admin, "POST", "/api/admin/segments", {
      name: segment.name,
      description: segment.description ?? null,
      constraints: segment.constraints,
    });
  }
  // Imports refuse admin tokens: a service account imports.
  const account = (await must(signalbox, tokens.admin, "POST", "/api/admin/service-account", {
    username: "migration",
    name: "Migration",
    rootRole: "Admin",
  })) as { id: number };
  const importer = (
    (await must(signalbox, tokens.admin, "POST", `/api/admin/service-account/${account.id}/token`, {
      description: "migration",
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    })) as { secret: string }
  ).secret;
  log(`signalbox prepared: ${prepared.calls} admin calls, ${segments.length} segments copied`);

  const exported: unknown[] = [];
  const folder = mkdtempSync(join(tmpdir(), "signalbox-migration-"));
  let files = 0;
  let bytes = 0;
  let imported = 0;
  for (const project of plan.projects) {
    for (const environment of project.environments) {
      // As a person moving over would, with the signalbox command: export from the reference
      // (which puts back the strategies' positions its export leaves out), then validate and
      // import, in requests within the service's default body limit (an export of a large
      // project is not).
      const file = join(folder, `${project.id}-${environment}.json`);
      const where = ["--project", project.id, "--environment", environment];
      await signalboxCommand(["export", ...where, "--output", file], {
        SIGNALBOX_URL: reference.url,
        SIGNALBOX_TOKEN: tokens.admin,
      });
      const text = readFileSync(file, "utf8");
      const data = JSON.parse(text) as { features: unknown[] };
      exported.push({ project: project.id, environment, data });
      files++;
      bytes += text.length;
      if (environment === project.environments[0]) imported += data.features.length;
      await signalboxCommand(["import", "--file", file, ...where], {
        SIGNALBOX_URL: signalbox.url,
        SIGNALBOX_TOKEN: importer,
      });
    }
  }
  log(
    `${files} files exported from the reference and imported into signalbox (${imported} flags, ${bytes} bytes)`,
  );

  const tokenFor = (side: Side, environment: string) => {
    if (environment === "development") return tokens.client;
    const secret = (side === "reference" ? configured : prepared).ids.tokens.get(`client:${environment}`);
    if (!secret) throw new Error(`${side} made no client token for ${environment}`);
    return secret;
  };
  for (const [environment, sentinel] of plan.sentinels) {
    await waitFor(async () => {
      const answer = await request(
        signalbox.url,
        tokenFor("signalbox", environment),
        "GET",
        "/api/client/features",
      );
      return (
        (answer.body as { features?: { name: string }[] }).features?.some((f) => f.name === sentinel) === true
      );
    }, `signalbox to serve ${sentinel}`);
  }

  const documents: Record<string, Record<Side, unknown>> = {};
  for (const environment of plan.environments) {
    const pair = {} as Record<Side, unknown>;
    for (const side of SIDES) {
      pair[side] = (
        await request(services[side].url, tokenFor(side, environment), "GET", "/api/client/features")
      ).body;
    }
    documents[environment] = pair;
  }

  const contexts = generateContexts(random, contextCount, plan.environments);
  const differences: EvaluationDifference[] = [];
  let evaluations = 0;
  let flagsServed = 0;
  for (const environment of plan.environments) {
    const pair = {} as Record<Side, Unleash>;
    for (const side of SIDES) {
      pair[side] = await connectSdk(services[side].url, tokenFor(side, environment), environment, side);
      sdks.push(pair[side]);
    }
    const names = (side: Side) =>
      pair[side]
        .getFeatureToggleDefinitions()
        .map((definition) => definition.name)
        .sort();
    const missing = names("reference").filter((name) => !names("signalbox").includes(name));
    const extra = names("signalbox").filter((name) => !names("reference").includes(name));
    if (missing.length > 0 || extra.length > 0) {
      throw new Error(
        `${environment}: the SDKs see other flags: missing on signalbox ${missing.join(", ") || "none"}, only on signalbox ${extra.join(", ") || "none"}`,
      );
    }
    flagsServed += names("reference").length;
    const run = evaluateAll(
      pair,
      environment,
      contexts.filter((context) => context.environment === environment),
      new Set(),
      seed,
    );
    evaluations += run.evaluations;
    const notes = dependencyNotes(documents[environment]!.reference as Document);
    for (const difference of run.differences) {
      const found = notes.get(difference.flag);
      if (found) difference.notes = found;
    }
    differences.push(...run.differences);
  }
  // The differential test's accepted differences between what the two services serve for
  // the same configuration (the reference repeating a dependency in its SDK document, say)
  // are no fault of the migration; anything else is.
  const explained = new Map<string, number>();
  const unexplained = differences.filter((difference) => {
    const known = explain(difference);
    if (known) explained.set(known.id, (explained.get(known.id) ?? 0) + 1);
    return !known;
  });
  for (const [id, count] of explained) {
    console.log(`migration: ${count} answers differ as the differential test accepts (lib/known.ts, ${id})`);
  }

  const byFlag = new Map<string, EvaluationDifference[]>();
  for (const difference of unexplained) {
    const key = `${difference.environment} ${difference.flag}`;
    byFlag.set(key, [...(byFlag.get(key) ?? []), difference]);
  }
  for (const [key, list] of [...byFlag].slice(0, 10)) {
    const first = list[0]!;
    console.log(`migration: ${key}: ${list.length} contexts answered differently, e.g.`);
    console.log(`  context:   ${JSON.stringify(first.context)}`);
    console.log(`  reference: ${JSON.stringify(first.reference)}`);
    console.log(`  signalbox: ${JSON.stringify(first.signalbox)}`);
  }
  // What the migration guide has a person run to verify a migration: `signalbox compare`,
  // for each environment, with each service's client token.
  const disagreeing: string[] = [];
  for (const environment of plan.environments) {
    const args = [
      "compare",
      ...["--from", reference.url, "--from-token", tokenFor("reference", environment)],
      ...["--to", signalbox.url, "--to-token", tokenFor("signalbox", environment)],
      ...["--contexts", "1000", "--seed", String(seed)],
    ];
    try {
      const output = await signalboxCommand(args);
      console.log(`migration: ${environment}: ${output.trim().split("\n").at(-1)}`);
    } catch (error) {
      disagreeing.push(environment);
      console.log(`migration: ${environment}: ${(error as Error).message}`);
    }
  }
  console.log(
    `migration: seed ${seed}, ${plan.flagCount} generated flags, ${files} files, ${flagsServed} flag × environment pairs served, ${contextCount} contexts, ${evaluations} evaluations, ${unexplained.length} disagreements, signalbox compare disagreeing in ${disagreeing.length} environments (${seconds()} s)`,
  );
  if (process.env.MIGRATION_REPORT) {
    writeFileSync(
      process.env.MIGRATION_REPORT,
      JSON.stringify({ seed, differences, documents, exported }, null, 2),
    );
    console.log(
      `migration: files, SDK documents and disagreements written to ${process.env.MIGRATION_REPORT}`,
    );
  }
  exitCode = unexplained.length === 0 && disagreeing.length === 0 ? 0 : 1;
} catch (error) {
  console.error(`migration: seed ${seed}: the run could not finish:`, error);
} finally {
  for (const sdk of sdks) sdk.destroy();
  await Promise.all(SIDES.map((side) => services[side]?.stop()));
  await Promise.all(SIDES.map((side) => dropDatabase(databases[side]).catch(() => {})));
  log("done");
}
process.exit(exitCode);

/** Runs the `signalbox` command from its source, as the import-export tests do; its stdout, or it throws. */
function signalboxCommand(args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--conditions=signalbox-source", "--import", "tsx", CLI, ...args],
      { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        reject(
          new Error(
            `signalbox ${args.join(" ")} (exit ${error.code}):\n${stdout.slice(-3000)}${stderr.slice(-3000)}`,
          ),
        );
      },
    );
  });
}
