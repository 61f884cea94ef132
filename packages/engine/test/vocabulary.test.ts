import { describe, expect, it } from "vitest";
import {
  BUILT_IN_STRATEGIES,
  CONSTRAINT_OPERATORS,
  type ConstraintOperator,
  compile,
  constraintProblem,
  type StrategyDefinition,
} from "../src/index.js";

// The exported lists are what other packages validate against: each entry must be one the
// engine really evaluates.

const readableValue: Record<string, string> = {
  NUM: "1",
  DATE: "2024-01-01T00:00:00Z",
  SEMVER: "1.2.3",
  IN_CIDR: "10.0.0.0/8",
  REGEX: "^a",
};

const valueFor = (operator: ConstraintOperator) =>
  readableValue[operator] ?? readableValue[operator.split("_")[0]!] ?? "a";

describe("CONSTRAINT_OPERATORS", () => {
  it.each(CONSTRAINT_OPERATORS)("%s is evaluated", (operator) => {
    const value = valueFor(operator);
    expect(constraintProblem({ contextName: "x", operator, value, values: [value] })).toBeUndefined();
  });

  it("leaves out what the engine does not know", () => {
    expect(constraintProblem({ contextName: "x", operator: "SOUNDS_LIKE", values: ["1"] })).toMatch(
      /unknown operator/,
    );
  });
});

describe("BUILT_IN_STRATEGIES", () => {
  const everyone: Record<(typeof BUILT_IN_STRATEGIES)[number], StrategyDefinition["parameters"]> = {
    default: {},
    userWithId: { userIds: "u1" },
    flexibleRollout: { rollout: "100", stickiness: "default", groupId: "g" },
    gradualRolloutUserId: { percentage: "100", groupId: "g" },
    gradualRolloutSessionId: { percentage: "100", groupId: "g" },
    gradualRolloutRandom: { percentage: "100" },
    remoteAddress: { IPs: "10.0.0.1" },
    applicationHostname: { hostNames: "web-1" },
  };

  it.each(BUILT_IN_STRATEGIES)("%s can switch a flag on", (name) => {
    const snapshot = compile(
      { features: [{ name: "f", enabled: true, strategies: [{ name, parameters: everyone[name] }] }] },
      { hostname: "web-1" },
    );
    const context = { userId: "u1", sessionId: "s1", remoteAddress: "10.0.0.1" };
    expect(snapshot.evaluate("f", context).enabled).toBe(true);
  });
});
