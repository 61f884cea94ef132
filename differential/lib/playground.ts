// The playground of each service (POST /api/admin/playground) for the same contexts: each
// service explains its own evaluation, flag by flag and strategy by strategy.
import { evaluationRequest } from "./apply.js";
import type { GeneratedContext, WireContext } from "./contexts.js";
import { jsonDiff } from "./diff.js";
import { CASE_INSENSITIVE_IN_NOTE } from "./notes.js";
import type { Side } from "./servers.js";

interface PlaygroundConstraint {
  contextName: string;
  operator: string;
  values?: string[];
  caseInsensitive?: boolean;
  result?: boolean;
}

interface PlaygroundStrategy {
  name: string;
  parameters?: Record<string, string>;
  constraints: PlaygroundConstraint[];
  segments: { constraints: PlaygroundConstraint[]; result?: boolean }[];
  result: {
    enabled: boolean | "unknown";
    evaluationStatus: string;
    variant?: { name: string };
    variants?: { stickiness?: string }[];
  };
}

interface PlaygroundFeature {
  name: string;
  isEnabled: boolean;
  isEnabledInCurrentEnvironment: boolean;
  hasUnsatisfiedDependency?: boolean;
  variant: { name: string } | null;
  strategies: { result: boolean | "unknown"; data: PlaygroundStrategy[] };
}

const DRAW = "(a draw)";

/** What a user of either playground reads about one strategy; `(a draw)` where it is random. */
export interface StrategyAnswer {
  name: string;
  enabled: boolean | "unknown" | typeof DRAW;
  evaluationStatus: string;
  variant?: string;
}

/** What a user of either playground reads about one flag. */
export interface PlaygroundAnswer {
  isEnabled: boolean;
  hasUnsatisfiedDependency: boolean;
  variant: string | undefined;
  result: boolean | "unknown" | typeof DRAW;
  strategies: StrategyAnswer[];
}

export interface PlaygroundDifference {
  kind: "playground";
  environment: string;
  flag: string;
  context: WireContext;
  paths: string[];
  reference: PlaygroundAnswer | "(not returned)";
  signalbox: PlaygroundAnswer | "(not returned)";
  /** What the reference's listing shows about the flag that may explain it (documents.ts). */
  notes?: string[];
}

export interface PlaygroundRun {
  comparisons: number;
  skippedAsRandom: number;
  differences: PlaygroundDifference[];
}

/**
 * The context as the playground needs it: with an `appName` (it requires one) and the
 * address and environment a frontend request would carry, so that it is one of the views
 * whose random draws the SDK run already counted (evaluate.ts).
 */
export function playgroundContext(context: WireContext): WireContext {
  return {
    ...context,
    appName: context.appName ?? "frontend-api",
    remoteAddress: context.remoteAddress ?? "127.0.0.1",
    environment: context.environment ?? "default",
  };
}

const field = (context: WireContext, name: string) =>
  (context as unknown as Record<string, unknown>)[name] ?? context.properties[name];

/** Whether a strategy's own test draws a random number for this context, on either service. */
function draws(strategy: PlaygroundStrategy, context: WireContext): boolean {
  if (strategy.name === "gradualRolloutRandom") return true;
  if (strategy.name !== "flexibleRollout") return false;
  const stickiness = strategy.parameters?.stickiness;
  if (stickiness === "random") return true;
  const byDefault = stickiness === undefined || stickiness === "" || stickiness === "default";
  return byDefault && context.userId === undefined && context.sessionId === undefined;
}

/** Whether the variant a strategy's variants give is drawn: random stickiness, or a sticky field the context lacks. */
function variantDraws(strategy: PlaygroundStrategy, context: WireContext): boolean {
  const stickiness = strategy.result.variants?.[0]?.stickiness ?? "default";
  if (stickiness === "random") return true;
  if (stickiness === "default")
    return ["userId", "sessionId", "remoteAddress"].every((name) => !field(context, name));
  return !field(context, stickiness);
}

/**
 * Whether the flag has an `IN` or `NOT_IN` constraint marked case-insensitive that the
 * context's value meets only when case is ignored: SDKs compare those exactly, the
 * reference's playground does not.
 */
function caseDecides(feature: PlaygroundFeature, context: WireContext): boolean {
  return feature.strategies.data.some((strategy) =>
    [...strategy.constraints, ...strategy.segments.flatMap((segment) => segment.constraints)].some(
      (constraint) => {
        if (!/^(NOT_)?IN$/.test(constraint.operator) || constraint.caseInsensitive !== true) return false;
        const value = field(context, constraint.contextName);
        if (typeof value !== "string") return false;
        const values = constraint.values ?? [];
        return !values.includes(value) && values.some((entry) => entry.toLowerCase() === value.toLowerCase());
      },
    ),
  );
}

function answer(feature: PlaygroundFeature, context: WireContext): PlaygroundAnswer {
  const strategies = feature.strategies.data.map((strategy): StrategyAnswer => {
    const { enabled, evaluationStatus, variant } = strategy.result;
    return {
      name: strategy.name,
      enabled: draws(strategy, context) ? DRAW : enabled,
      evaluationStatus,
      ...(variant ? { variant: variantDraws(strategy, context) ? DRAW : variant.name } : {}),
    };
  });
  return {
    isEnabled: feature.isEnabled,
    hasUnsatisfiedDependency: feature.hasUnsatisfiedDependency ?? false,
    variant: feature.variant?.name,
    // One drawn strategy may decide what they say together.
    result: strategies.some((strategy) => strategy.enabled === DRAW) ? DRAW : feature.strategies.result,
    strategies,
  };
}

/**
 * Whether the flag's answer is a draw: it is switched on, its dependencies hold, and a
 * strategy that draws for this context comes before any that certainly lets it in. The
 * SDK run may not have drawn for it (a strategy such as applicationHostname decides there,
 * which a playground cannot know), so its random set does not cover this.
 */
function drawDecides(feature: PlaygroundFeature, answer: PlaygroundAnswer): boolean {
  if (!feature.isEnabledInCurrentEnvironment || answer.hasUnsatisfiedDependency) return false;
  // A strategy whose constraints or segments fail lets no one in, drawn or not.
  const drawn = answer.strategies.findIndex((strategy, index) => {
    const { constraints, segments } = feature.strategies.data[index]!;
    return (
      strategy.enabled === DRAW &&
      constraints.every((constraint) => constraint.result !== false) &&
      segments.every((segment) => segment.result !== false)
    );
  });
  return drawn !== -1 && !answer.strategies.slice(0, drawn).some((strategy) => strategy.enabled === true);
}

export async function comparePlayground(
  urls: Record<Side, string>,
  token: string,
  environment: string,
  contexts: GeneratedContext[],
  skip: Set<string>,
  random: Set<string>,
  concurrency = 4,
): Promise<PlaygroundRun> {
  const run: PlaygroundRun = { comparisons: 0, skippedAsRandom: 0, differences: [] };
  let next = 0;
  const worker = async () => {
    while (next < contexts.length) {
      const { index, context } = contexts[next++]!;
      const sent = playgroundContext(context);
      const body = { projects: "*", environment, context: sent };
      const [reference, signalbox] = await Promise.all(
        (["reference", "signalbox"] as const).map((side) =>
          evaluationRequest(urls[side], token, "POST", "/api/admin/playground", body),
        ),
      );
      const features = (reply: { status: number; body: unknown }, side: Side) => {
        if (reply.status !== 200)
          throw new Error(`${side} playground answered ${reply.status}: ${JSON.stringify(reply.body)}`);
        const list = (reply.body as { features: PlaygroundFeature[] }).features;
        return new Map(list.map((feature) => [feature.name, feature]));
      };
      const left = features(reference!, "reference");
      const right = features(signalbox!, "signalbox");
      for (const flag of new Set([...left.keys(), ...right.keys()])) {
        if (skip.has(flag)) continue;
        // Evaluating the flag for this context drew a random number in the SDK run.
        if (random.has(`${index}:${flag}`)) {
          run.skippedAsRandom++;
          continue;
        }
        const fromReference = left.get(flag);
        const fromSignalbox = right.get(flag);
        const a = fromReference ? answer(fromReference, sent) : "(not returned)";
        const b = fromSignalbox ? answer(fromSignalbox, sent) : "(not returned)";
        if (
          fromReference &&
          fromSignalbox &&
          drawDecides(fromReference, a as PlaygroundAnswer) &&
          drawDecides(fromSignalbox, b as PlaygroundAnswer)
        ) {
          run.skippedAsRandom++;
          continue;
        }
        run.comparisons++;
        const paths = jsonDiff(a, b);
        if (paths.length === 0) continue;
        run.differences.push({
          kind: "playground",
          environment,
          flag,
          context: sent,
          paths,
          reference: a,
          signalbox: b,
          ...(fromReference && caseDecides(fromReference, sent) ? { notes: [CASE_INSENSITIVE_IN_NOTE] } : {}),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return run;
}
