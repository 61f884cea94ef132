import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { renderWithProviders } from "../../test/render";
import type { Evaluation, PlaygroundAnswer } from "./playground-query";
import { Results } from "./results";

const evaluation = (name: string, environment: string, isEnabled: boolean, userId = "alice"): Evaluation => ({
  name,
  projectId: "shop",
  environment,
  context: { appName: "playground", userId },
  isEnabled,
  isEnabledInCurrentEnvironment: isEnabled,
  hasUnsatisfiedDependency: false,
  strategies: { result: isEnabled, data: [] },
  variant: isEnabled
    ? { name: "blue", enabled: true, feature_enabled: true, featureEnabled: true }
    : { name: "disabled", enabled: false, feature_enabled: false, featureEnabled: false },
  variants: [],
});

const answer: PlaygroundAnswer = {
  input: { environments: ["development", "production"], projects: "*", context: { appName: "playground" } },
  features: [
    {
      name: "gift-cards",
      projectId: "shop",
      environments: {
        development: [evaluation("gift-cards", "development", true)],
        production: [evaluation("gift-cards", "production", false)],
      },
    },
    {
      name: "dark-mode",
      projectId: "shop",
      environments: {
        development: [
          evaluation("dark-mode", "development", false, "alice"),
          evaluation("dark-mode", "development", false, "bob"),
        ],
        production: [evaluation("dark-mode", "production", false)],
      },
    },
  ],
};

describe("Results", () => {
  it("shows each flag on or off in words per environment, filters, and explains on demand", async () => {
    renderWithProviders(
      <MemoryRouter>
        <Results answer={answer} />
      </MemoryRouter>,
    );
    const table = screen.getByRole("table", { name: "Playground results" });
    const rows = within(table).getAllByRole("row");
    expect(within(rows[1]!).getByText("On")).toBeInTheDocument();
    expect(within(rows[1]!).getByText("blue")).toBeInTheDocument();
    expect(within(rows[1]!).getByText("Off")).toBeInTheDocument();
    expect(within(rows[2]!).getByText("On for 0 of 2 contexts")).toBeInTheDocument();

    await userEvent.click(screen.getByRole("radio", { name: "On" }));
    expect(within(table).queryByRole("link", { name: "dark-mode" })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole("radio", { name: "All flags" }));
    await userEvent.type(screen.getByLabelText("Filter by flag name"), "dark");
    expect(within(table).queryByRole("link", { name: "gift-cards" })).not.toBeInTheDocument();

    const why = screen.getByRole("button", { name: "Why dark-mode" });
    expect(why).toHaveAttribute("aria-expanded", "false");
    await userEvent.click(why);
    expect(why).toHaveAttribute("aria-expanded", "true");
    const reasons = screen.getByRole("region", { name: "Why dark-mode is on or off" });
    expect(within(reasons).getByText("appName=playground, userId=bob")).toBeInTheDocument();
    expect(within(reasons).getAllByText("Off: disabled in this environment.")).toHaveLength(3);
  });
});
