// The frontend API of each service (POST /api/frontend) for the same contexts: here the
// services evaluate, so this compares their evaluators, not only their documents.
import { evaluationRequest } from "./apply.js";
import type { GeneratedContext } from "./contexts.js";
import { jsonDiff } from "./diff.js";
import type { Document } from "./documents.js";
import type { Evaluation, EvaluationDifference } from "./evaluate.js";
import type { Side } from "./servers.js";

interface Toggle {
  name: string;
  enabled: boolean;
  impressionData: boolean;
  variant: Evaluation["variant"] & { featureEnabled?: boolean };
}

type Strategy = {
  name: string;
  parameters?: Record<string, string>;
  constraints?: { contextName: string }[];
  segments?: number[];
  variants?: { stickiness?: string }[];
};

/**
 * Flags whose answer may read the session id when the context has no user id. Both
 * services make up a random session id when a frontend request has none, so for those
 * flags and contexts the answer is a draw, the same draw on neither side.
 */
export function sessionReaders(document: Document): { always: Set<string>; withoutUser: Set<string> } {
  const segments = new Map(
    (document.segments ?? []).map((segment) => [
      segment.id,
      segment as { constraints?: { contextName: string }[] },
    ]),
  );
  const byName = new Map(document.features.map((feature) => [String(feature.name), feature]));
  const always = new Set<string>();
  const withoutUser = new Set<string>();
  const stickinessReads = (stickiness: string | undefined, into: Set<string>[], name: string) => {
    if (stickiness === "sessionId") into[0]!.add(name);
    else if (stickiness === undefined || stickiness === "" || stickiness === "default") into[1]!.add(name);
  };
  const visit = (name: string, seen: Set<string>) => {
    const feature = byName.get(name);
    if (!feature || seen.has(name)) return;
    seen.add(name);
    const sets = [always, withoutUser];
    for (const strategy of (feature.strategies ?? []) as Strategy[]) {
      if (strategy.name === "gradualRolloutSessionId") always.add(name);
      if (strategy.name === "flexibleRollout") stickinessReads(strategy.parameters?.stickiness, sets, name);
      const constraints = [
        ...(strategy.constraints ?? []),
        ...(strategy.segments ?? []).flatMap((id) => segments.get(id)?.constraints ?? []),
      ];
      if (constraints.some((constraint) => constraint.contextName === "sessionId")) always.add(name);
      for (const variant of strategy.variants ?? []) stickinessReads(variant.stickiness, sets, name);
    }
    for (const variant of (feature.variants ?? []) as { stickiness?: string }[])
      stickinessReads(variant.stickiness, sets, name);
    for (const dependency of (feature.dependencies ?? []) as { feature: string }[]) {
      visit(dependency.feature, seen);
      if (always.has(dependency.feature)) always.add(name);
      if (withoutUser.has(dependency.feature)) withoutUser.add(name);
    }
  };
  for (const name of byName.keys()) visit(name, new Set());
  return { always, withoutUser };
}

export interface FrontendRun {
  comparisons: number;
  skippedAsRandom: number;
  differences: EvaluationDifference[];
}

export async function compareFrontend(
  urls: Record<Side, string>,
  tokens: Record<Side, string>,
  environment: string,
  contexts: GeneratedContext[],
  flags: string[],
  skip: Set<string>,
  random: Set<string>,
  readers: { always: Set<string>; withoutUser: Set<string> },
  concurrency = 8,
): Promise<FrontendRun> {
  const run: FrontendRun = { comparisons: 0, skippedAsRandom: 0, differences: [] };
  let next = 0;
  const worker = async () => {
    while (next < contexts.length) {
      const { index, context } = contexts[next++]!;
      const [reference, signalbox] = await Promise.all(
        (["reference", "signalbox"] as const).map((side) =>
          evaluationRequest(urls[side], tokens[side], "POST", "/api/frontend", { context }),
        ),
      );
      const toggles = (answer: { status: number; body: unknown }, side: Side) => {
        if (answer.status !== 200)
          throw new Error(`${side} frontend API answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        return new Map(
          ((answer.body as { toggles: Toggle[] }).toggles ?? []).map((toggle) => [toggle.name, toggle]),
        );
      };
      const left = toggles(reference!, "reference");
      const right = toggles(signalbox!, "signalbox");
      for (const flag of new Set([...flags, ...left.keys(), ...right.keys()])) {
        if (skip.has(flag)) continue;
        const drawn =
          random.has(`${index}:${flag}`) ||
          (context.sessionId === undefined &&
            (readers.always.has(flag) || (context.userId === undefined && readers.withoutUser.has(flag))));
        if (drawn) {
          run.skippedAsRandom++;
          continue;
        }
        run.comparisons++;
        const a = left.get(flag);
        const b = right.get(flag);
        if (a === undefined && b === undefined) continue;
        if (jsonDiff(a, b).length === 0) continue;
        const asEvaluation = (toggle: Toggle | undefined) =>
          toggle === undefined
            ? ("(not returned)" as const)
            : { enabled: toggle.enabled, impressionData: toggle.impressionData, variant: toggle.variant };
        run.differences.push({
          kind: "frontend",
          environment,
          flag,
          context,
          reference: asEvaluation(a),
          signalbox: asEvaluation(b),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return run;
}
