import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () =>
  (await import("../../../test/fake-service")).installFakeService(),
);

import { renderWithProviders } from "../../../test/render";
import type { Flag } from "../../flags/queries";
import type { Milestone, Plan } from "../queries";
import { ReleasePlanSection } from "./plan-section";

const ENVIRONMENT = "/api/admin/projects/web/features/checkout/environments/production";
const DRAFT = "/api/admin/projects/web/environments/production/change-requests";
const flag = { name: "checkout", project: "web", archived: false } as Flag;
const inAMinute = () => new Date(Date.now() + 61_000).toISOString();
const started = "2026-03-01T12:00:00.000Z";

const milestone = (id: string, sortOrder: number, at: Partial<Milestone> = {}): Milestone => ({
  id,
  name: id,
  sortOrder,
  releasePlanDefinitionId: "plan-1",
  startedAt: null,
  pausedAt: null,
  progressionExecutedAt: null,
  progressionDueAt: null,
  targetMilestone: null,
  transitionCondition: null,
  strategies: [
    {
      id: `${id}-s`,
      milestoneId: id,
      sortOrder: 0,
      name: "flexibleRollout",
      strategyName: "flexibleRollout",
      title: null,
      disabled: false,
      parameters: { rollout: String((sortOrder + 1) * 25) },
      constraints: [],
      segments: [],
      variants: [],
    },
  ],
  ...at,
});

const plan = (canary: Partial<Milestone>): Plan => ({
  id: "plan-1",
  discriminator: "plan",
  name: "Gradual",
  description: null,
  featureName: "checkout",
  environment: "production",
  createdAt: started,
  createdByUserId: 1,
  activeMilestoneId: "Canary",
  releasePlanTemplateId: "t",
  milestones: [
    milestone("Half", 1),
    milestone("Canary", 0, {
      startedAt: started,
      transitionCondition: { intervalMinutes: 30 },
      targetMilestone: "Half",
      ...canary,
    }),
  ],
  safeguards: [
    {
      id: "g1",
      impactMetric: {
        id: "m1",
        metricName: "unleash_counter_errors",
        timeRange: "hour",
        aggregationMode: "count",
        labelSelectors: {},
      },
      triggerCondition: { operator: ">", threshold: 0 },
      triggeredAt: canary.pausedAt ?? null,
      action: { type: "pauseReleasePlanProgressions", id: "plan-1" },
    },
  ],
});

function serve(shown: Plan, { permissions, gated }: { permissions: string[]; gated: boolean }) {
  service.serve({
    "GET /api/admin/user": {
      user: { id: 7, username: "ann" },
      permissions: permissions.map((permission) => ({
        permission,
        project: "web",
        environment: "production",
      })),
    },
    "GET /api/admin/projects/web/change-requests/config": [
      { environment: "production", type: "production", changeRequestEnabled: gated, requiredApprovals: 1 },
    ],
    "GET /api/admin/strategies": { version: 1, strategies: [] },
    [`GET ${ENVIRONMENT}/release-plans`]: [shown],
    [`GET ${ENVIRONMENT}/safeguards`]: [],
    "GET /api/admin/impact-metrics/": { series: [], start: "0", end: "0", step: "1m", labels: {} },
    [`POST ${DRAFT}`]: { id: 3, state: "Draft", features: [], segments: [] },
    [`POST ${ENVIRONMENT}/progressions/plan-1/resume`]: null,
  });
}

const show = () =>
  renderWithProviders(
    <MemoryRouter>
      <ReleasePlanSection flag={flag} environment="production" definitions={[]} />
    </MemoryRouter>,
  );
const writes = () => service.sent.filter((request) => request.method !== "GET");

describe("ReleasePlanSection", () => {
  it("shows the milestones in order, the active one counting down to the next", async () => {
    serve(plan({ progressionDueAt: inAMinute() }), {
      permissions: ["UPDATE_FEATURE_STRATEGY"],
      gated: false,
    });
    show();
    const timeline = await screen.findByRole("list", { name: "Milestones of Gradual" });
    const [canary, half] = within(timeline).getAllByRole("listitem");
    expect(canary).toHaveAccessibleName("Milestone Canary");
    expect(canary).toHaveAttribute("aria-current", "step");
    expect(canary).toHaveTextContent("Active");
    expect(canary).toHaveTextContent("Advances to Half after 30 minutes.");
    expect(within(canary!).getByRole("timer")).toHaveTextContent(/^Next milestone in 1 min( \d+ s)?$/);
    expect(half).toHaveTextContent("Waiting");
    expect(half).not.toHaveAttribute("aria-current");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("names the milestone a progression hands over to, and offers it first when the progression is edited", async () => {
    const shown = plan({ targetMilestone: "Everyone", progressionDueAt: inAMinute() });
    shown.milestones.push(milestone("Everyone", 2));
    serve(shown, { permissions: ["UPDATE_FEATURE_STRATEGY"], gated: false });
    show();
    const canary = await screen.findByRole("listitem", { name: "Milestone Canary" });
    expect(canary).toHaveTextContent("Advances to Everyone after 30 minutes.");
    await userEvent.click(within(canary).getByRole("button", { name: "Edit the progression of Canary" }));
    const dialog = await screen.findByRole("dialog", { name: "Progression of Canary" });
    expect(within(dialog).getByRole("combobox", { name: "Advance to" })).toHaveValue("Everyone");
    expect(within(dialog).getByRole("textbox", { name: "After (minutes)" })).toHaveValue("30");
  });

  it("adds starting a milestone to the person's draft where the environment requires change requests", async () => {
    serve(plan({}), { permissions: ["UPDATE_FEATURE_STRATEGY"], gated: true });
    show();
    await userEvent.click(await screen.findByRole("button", { name: "Start Half" }));
    await waitFor(() =>
      expect(writes()).toEqual([
        {
          method: "POST",
          path: DRAFT,
          body: { feature: "checkout", action: "startMilestone", payload: { milestoneId: "Half" } },
        },
      ]),
    );
  });

  it("says a safeguard paused the release, and resumes it", async () => {
    serve(plan({ pausedAt: started }), { permissions: ["UPDATE_FEATURE_STRATEGY"], gated: false });
    show();
    const banner = await screen.findByRole("alert", { name: "Safeguard triggered: the release is paused" });
    expect(banner).toHaveTextContent("Count of unleash_counter_errors above 0");
    expect(banner).toHaveTextContent("Canary goes on serving its strategies");
    expect(screen.getByRole("listitem", { name: "Milestone Canary" })).toHaveTextContent("Paused");
    await userEvent.click(within(banner).getByRole("button", { name: "Resume Gradual" }));
    await waitFor(() =>
      expect(writes().map((request) => request.path)).toEqual([`${ENVIRONMENT}/progressions/plan-1/resume`]),
    );
  });

  it("keeps someone who may not change strategies from starting milestones, and says why", async () => {
    serve(plan({}), { permissions: [], gated: false });
    show();
    const start = await screen.findByRole("button", { name: "Start Half" });
    await waitFor(() => expect(start).toBeDisabled());
    expect(start).toHaveAccessibleDescription(
      "You need the UPDATE_FEATURE_STRATEGY permission in project web, environment production.",
    );
  });
});
