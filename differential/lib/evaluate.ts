// The published Node SDK, pointed at each service, evaluates every flag for every context.
// Both SDK instances run the same code, so any difference comes from the documents the
// services served: what a user of either service would see.
import { pairSeed, withSeededMath } from "@signalbox/server/compare";
import { type Context, InMemStorageProvider, Unleash } from "unleash-client";
import type { GeneratedContext, WireContext } from "./contexts.js";
import { jsonDiff } from "./diff.js";
import type { Side } from "./servers.js";

export interface Evaluation {
  enabled: boolean;
  variant: { name: string; enabled: boolean; feature_enabled?: boolean; payload?: unknown };
}

export interface EvaluationDifference {
  kind: "sdk" | "frontend";
  environment: string;
  flag: string;
  context: WireContext;
  reference: Evaluation | "(not returned)";
  signalbox: Evaluation | "(not returned)";
  /** What the reference's listing shows about the flag that may explain it (documents.ts). */
  notes?: string[];
  /** The `signalbox` side is the Signalbox proxy in front of the reference, not the Signalbox service. */
  relay?: boolean;
}

export async function connectSdk(
  url: string,
  token: string,
  environment: string,
  side: string,
  mode: "polling" | "streaming" = "polling",
): Promise<Unleash> {
  const sdk = new Unleash({
    experimentalMode: mode === "streaming" ? { type: mode } : { type: mode, format: "full" },
    url: `${url}/api`,
    // One name for both: a context without appName takes it, and constraints may read it.
    appName: "differential",
    environment,
    customHeaders: { Authorization: token },
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
    refreshInterval: 60_000,
    skipInstanceCountWarning: true,
  });
  sdk.on("error", () => {});
  sdk.on("warn", () => {});
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${side} SDK for ${environment} never synchronised`)),
      30_000,
    );
    sdk.once("synchronized", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return sdk;
}

export function sdkContext(context: WireContext): Context {
  const { currentTime, ...rest } = context;
  return { ...rest, ...(currentTime ? { currentTime: new Date(currentTime) } : {}) };
}

/**
 * The contexts a frontend API may evaluate instead of the one sent: the caller's address
 * filled in; \`currentTime\` kept or dropped; the environment sent (the SDK's \`default\` when
 * none) or the token's; a missing appName left out or filled with the name of the SDK the
 * service evaluates with. A pair that draws a random number under any of them may be a draw
 * on some service, so its frontend answers are not compared.
 */
function frontendViews(context: WireContext, environment: string): WireContext[] {
  // appName stays a key even when missing, so the SDK's own name does not fill it in.
  const base = { ...context, appName: context.appName, remoteAddress: context.remoteAddress ?? "127.0.0.1" };
  const { currentTime: _dropped, ...timeless } = base;
  const views = (context.currentTime ? [base, timeless] : [base])
    .flatMap((view) => [
      { ...view, environment: context.environment ?? "default" },
      { ...view, environment },
    ])
    .flatMap((view) => (context.appName ? [view] : [view, { ...view, appName: "frontend-api" }]));
  return [...new Map(views.map((view) => [JSON.stringify(view), view])).values()];
}

export interface SdkRun {
  evaluations: number;
  differences: EvaluationDifference[];
  /** `<context index>:<flag>` pairs whose answer may draw on Math.random (see frontendViews). */
  random: Set<string>;
}

/**
 * Evaluates each pair on both SDKs with Math.random replaced by the same seeded sequence
 * before each, so random stickiness draws the same number on both sides: identical
 * documents then give identical answers, and a difference is never luck.
 */
export function evaluateAll(
  sdks: Record<Side, Unleash>,
  environment: string,
  contexts: GeneratedContext[],
  skip: Set<string>,
  seed: number,
): SdkRun {
  const names = new Set<string>();
  for (const sdk of Object.values(sdks))
    for (const definition of sdk.getFeatureToggleDefinitions()) names.add(definition.name);
  const flags = [...names].filter((name) => !skip.has(name)).sort();
  const run: SdkRun = { evaluations: 0, differences: [], random: new Set() };
  withSeededMath((math) => {
    for (const { index, context } of contexts) {
      const sdkView = sdkContext(context);
      const views = frontendViews(context, environment).map(sdkContext);
      flags.forEach((flag, flagIndex) => {
        const pair = pairSeed(seed, index, flagIndex);
        const answers = {} as Record<Side, Evaluation>;
        const drawn = math.draws;
        for (const side of ["reference", "signalbox"] as const) {
          math.restart(pair);
          const enabled = sdks[side].isEnabled(flag, sdkView);
          const variant = sdks[side].getVariant(flag, sdkView);
          answers[side] = { enabled, variant: { ...variant } };
        }
        for (const view of views) {
          sdks.reference.isEnabled(flag, view);
          sdks.reference.getVariant(flag, view);
        }
        if (math.draws > drawn) run.random.add(`${index}:${flag}`);
        run.evaluations++;
        if (jsonDiff(answers.reference, answers.signalbox).length > 0) {
          run.differences.push({
            kind: "sdk",
            environment,
            flag,
            context,
            reference: answers.reference,
            signalbox: answers.signalbox,
          });
        }
      });
    }
  });
  return run;
}
