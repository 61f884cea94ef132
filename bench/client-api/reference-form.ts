import type { ClientFeatures, ConstraintDefinition, StrategyDefinition } from "@signalbox/engine";

// unleash-server 8.2 knows neither the IN_CIDR operator nor the userWithId and legacy
// gradual-rollout strategies (a fresh install has none of them): both services get the
// document rewritten into what 8.2 accepts.
export function forReference(document: ClientFeatures): ClientFeatures {
  const classic = (constraints: ConstraintDefinition[] = []) =>
    constraints.filter((constraint) => constraint.operator !== "IN_CIDR");
  const modern = (strategy: StrategyDefinition): StrategyDefinition => {
    const parameters = strategy.parameters ?? {};
    const constraints = classic(strategy.constraints);
    const list = (text: unknown) => String(text ?? "").split(/\s*,\s*/);
    switch (strategy.name) {
      case "userWithId":
        return {
          name: "default",
          constraints: [
            ...constraints,
            { contextName: "userId", operator: "IN", values: list(parameters.userIds) },
          ],
        };
      case "gradualRolloutUserId":
        return {
          name: "flexibleRollout",
          parameters: {
            rollout: String(parameters.percentage),
            stickiness: "userId",
            groupId: String(parameters.groupId),
          },
          constraints,
        };
      default:
        return { ...strategy, constraints };
    }
  };
  return {
    ...document,
    segments: document.segments?.map((segment) => ({
      ...segment,
      constraints: classic(segment.constraints),
    })),
    features: document.features.map((feature) => ({
      ...feature,
      strategies: feature.strategies?.map(modern),
    })),
  };
}
