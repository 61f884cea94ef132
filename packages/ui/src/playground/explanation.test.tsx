import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderWithProviders } from "../../test/render";
import { Explanation } from "./explanation";
import type { Evaluation } from "./playground-query";

// As the service answers POST /api/admin/playground/advanced, for one flag, environment and context.
const evaluation = (changes: Partial<Evaluation>): Evaluation => ({
  name: "gift-cards",
  projectId: "shop",
  environment: "production",
  context: { appName: "playground", userId: "carol" },
  isEnabled: false,
  isEnabledInCurrentEnvironment: true,
  hasUnsatisfiedDependency: false,
  strategies: {
    result: false,
    data: [
      {
        name: "flexibleRollout",
        title: "Friends first",
        id: "3aeccf7e-ff82-4174-8287-8ebe06079a50",
        result: { evaluationStatus: "complete", enabled: false },
        disabled: false,
        segments: [],
        constraints: [
          {
            contextName: "userId",
            operator: "IN",
            values: ["alice", "bob"],
            inverted: false,
            caseInsensitive: false,
            result: false,
            contextValue: "carol",
          },
        ],
        parameters: { rollout: "50", stickiness: "default", groupId: "gift-cards" },
        links: { edit: "/projects/shop/features/gift-cards/strategies/edit" },
      },
    ],
  },
  variant: { name: "disabled", enabled: false, feature_enabled: false, featureEnabled: false },
  variants: [],
  ...changes,
});

describe("Explanation", () => {
  it("shows a failed constraint with the context's value, the operator, the values and the result", () => {
    renderWithProviders(<Explanation evaluation={evaluation({})} />);
    expect(screen.getByText("Off: no strategy matched.")).toBeInTheDocument();
    const strategies = screen.getByRole("list", { name: "Strategies, in order" });
    expect(within(strategies).getByText("Friends first (flexibleRollout)")).toBeInTheDocument();
    expect(within(strategies).getByText("✗ Did not match")).toBeInTheDocument();
    expect(
      within(strategies).getByText("rollout: 50 · stickiness: default · groupId: gift-cards"),
    ).toBeInTheDocument();

    const constraints = within(strategies).getByRole("table", { name: "Constraints" });
    const [, row] = within(constraints).getAllByRole("row");
    expect(
      within(row!)
        .getAllByRole("cell")
        .map((cell) => cell.textContent),
    ).toEqual(["userId", "carol", "IN", "alice, bob", "✗ Failed"]);
  });

  it("says a flag switched off in the environment is off for everyone there, with what its strategies would do", () => {
    renderWithProviders(
      <Explanation
        evaluation={evaluation({
          isEnabledInCurrentEnvironment: false,
          strategies: {
            result: true,
            data: [
              {
                ...evaluation({}).strategies.data[0]!,
                result: { evaluationStatus: "complete", enabled: true },
                constraints: [],
              },
            ],
          },
        })}
      />,
    );
    expect(screen.getByText("Off: disabled in this environment.")).toBeInTheDocument();
    const alert = screen.getByText("Disabled in this environment").closest("[role=alert]") as HTMLElement;
    expect(alert).toHaveTextContent(
      "The flag is switched off in production, so it is off for everyone there.",
    );
    expect(alert).toHaveTextContent("Were it switched on, its strategies would answer as below.");
    expect(screen.getByText("✓ Matched")).toBeInTheDocument();
  });

  it("names an unsatisfied dependency and a segment's result", () => {
    const [strategy] = evaluation({}).strategies.data;
    renderWithProviders(
      <Explanation
        evaluation={evaluation({
          hasUnsatisfiedDependency: true,
          strategies: {
            result: false,
            data: [
              {
                ...strategy!,
                constraints: [],
                segments: [
                  {
                    id: 1,
                    name: "beta-users",
                    result: false,
                    constraints: [
                      {
                        contextName: "tier",
                        operator: "IN",
                        values: ["pro"],
                        inverted: false,
                        caseInsensitive: false,
                        result: false,
                      },
                    ],
                  },
                ],
              },
            ],
          },
        })}
      />,
    );
    expect(screen.getByText("Off: a dependency is not satisfied.")).toBeInTheDocument();
    expect(screen.getByText("Unsatisfied dependency")).toBeInTheDocument();
    const segment = screen.getByRole("table", { name: "Constraints of segment beta-users" });
    expect(within(segment).getByText("not set")).toBeInTheDocument();
    expect(within(segment).getByText("✗ Failed")).toBeInTheDocument();
  });
});
