import { screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () => (await import("../../test/fake-service")).installFakeService());

import { renderWithProviders } from "../../test/render";
import { type Insights, insightFigures, trend } from "./insights";
import { InsightsTab } from "./insights-tab";

const INSIGHTS: Insights = {
  stats: {
    avgTimeToProdCurrentWindow: 3.5,
    createdCurrentWindow: 5,
    createdPastWindow: 2,
    archivedCurrentWindow: 1,
    archivedPastWindow: 3,
    projectActivityCurrentWindow: 40,
    projectActivityPastWindow: 40,
    projectMembersAddedCurrentWindow: 2,
  },
  health: { rating: 80, activeCount: 8, potentiallyStaleCount: 1, staleCount: 2 },
  technicalDebt: { rating: 20, activeCount: 8, potentiallyStaleCount: 1, staleCount: 2 },
  leadTime: {
    projectAverage: 3.5,
    features: [
      { name: "checkout", timeToProduction: 2 },
      { name: "search", timeToProduction: 5 },
    ],
  },
  featureTypeCounts: [
    { type: "release", count: 7 },
    { type: "experiment", count: 3 },
  ],
  members: { currentMembers: 4, change: 2 },
};

beforeEach(() =>
  service.serve({
    "GET /api/admin/projects/web/insights": INSIGHTS,
    "GET /api/admin/projects/web/health-report": {
      features: [
        { name: "old-banner", type: "release", stale: true },
        { name: "fresh", type: "release", stale: false },
      ],
    },
  }),
);

const figure = (name: string) => screen.getByRole("group", { name });

describe("InsightsTab", () => {
  it("shows the project's figures as the service counted them", async () => {
    renderWithProviders(
      <MemoryRouter>
        <InsightsTab projectId="web" />
      </MemoryRouter>,
    );
    await screen.findByRole("group", { name: "Health" });
    expect(figure("Health")).toHaveTextContent("80%");
    expect(figure("Health")).toHaveTextContent("8 active flags, 1 potentially stale, 2 stale");
    expect(figure("Technical debt")).toHaveTextContent("20%");
    expect(figure("Time to production")).toHaveTextContent("3.5 days");
    expect(figure("Time to production")).toHaveTextContent("Average over 2 flags enabled in production");
    expect(figure("Flags created")).toHaveTextContent("5");
    expect(figure("Flags created")).toHaveTextContent("+3 on the 30 days before");
    expect(figure("Flags archived")).toHaveTextContent("−2 on the 30 days before");
    expect(figure("Activity")).toHaveTextContent("40 changes");
    expect(figure("Activity")).toHaveTextContent("as many as the 30 days before");
    expect(figure("Members")).toHaveTextContent("4");
    expect(figure("Members")).toHaveTextContent("+2 added in the last 30 days");

    // Each chart says in words what it draws.
    expect(screen.getByRole("region", { name: "Flags by state" })).toHaveTextContent(
      "7 healthy, 1 potentially stale, 2 stale",
    );
    expect(screen.getByRole("region", { name: "Flag types" })).toHaveTextContent("7 release, 3 experiment");
    expect(screen.getByRole("region", { name: "Time to production" })).toHaveTextContent(
      "search 5, checkout 2",
    );

    const stale = await screen.findByRole("region", { name: "Stale flags" });
    expect(within(stale).getByRole("link", { name: "old-banner" })).toHaveAttribute(
      "href",
      "/projects/web/features/old-banner",
    );
    expect(within(stale).queryByText("fresh")).not.toBeInTheDocument();
  });

  it("says when no flag has reached production", () => {
    const none = { ...INSIGHTS, leadTime: { projectAverage: 0, features: [] } };
    const shown = insightFigures(none).find((entry) => entry.label === "Time to production");
    expect(shown).toEqual({
      label: "Time to production",
      value: "None yet",
      detail: "No flag has been enabled in production",
    });
    expect(trend(1, 4)).toBe("−3 on the 30 days before");
  });
});
