import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () => (await import("../../test/fake-service")).installFakeService());

import { renderWithProviders } from "../../test/render";
import { ChangeRequestView } from "./change-request-page";
import type { ChangeRequest } from "./queries";
import { localOf, scheduledAtOf } from "./schedule-modal";

const AUTHOR = { id: 7, username: "ann", imageUrl: null };
const REVIEWER = { id: 8, username: "raj", imageUrl: null };
const BASE = "/api/admin/projects/web/change-requests/5";

const me = (user: { id: number; username: string }, permissions: string[]) => ({
  user: { ...user, name: null, email: null },
  permissions: permissions.map((permission) => ({ permission, project: "web", environment: "production" })),
  feedback: [],
  splash: {},
});

const REVIEWING = ["APPROVE_CHANGE_REQUEST", "APPLY_CHANGE_REQUEST"];

function request(state: ChangeRequest["state"], conflict?: string): ChangeRequest {
  return {
    id: 5,
    title: "Change request #5",
    environment: "production",
    minApprovals: 1,
    project: "web",
    state,
    createdBy: AUTHOR,
    createdAt: "2026-01-01T00:00:00.000Z",
    features: [
      {
        name: "checkout",
        changes: [
          {
            id: 11,
            action: "updateEnabled",
            payload: { enabled: true },
            createdBy: AUTHOR,
            createdAt: "2026-01-01T00:00:00.000Z",
          },
          {
            id: 12,
            action: "deleteStrategy",
            ...(conflict ? { conflict } : {}),
            payload: { id: "s1", name: "flexibleRollout" },
            createdBy: AUTHOR,
            createdAt: "2026-01-01T00:00:00.000Z",
          },
        ],
      },
    ],
    segments: [],
    approvals: [],
    rejections: [],
    comments: [],
    reviewers: [],
  };
}

const flag = {
  name: "checkout",
  project: "web",
  archived: false,
  dependencies: [],
  children: [],
  environments: [
    {
      name: "production",
      enabled: false,
      variants: [],
      strategies: [
        {
          id: "s1",
          name: "flexibleRollout",
          title: null,
          disabled: false,
          featureName: "checkout",
          sortOrder: 0,
          segments: [],
          constraints: [],
          variants: [],
          parameters: { rollout: "30", stickiness: "default", groupId: "checkout" },
        },
      ],
    },
  ],
};

function serveAs(who: ReturnType<typeof me>, shown: ChangeRequest) {
  service.serve({
    "GET /api/admin/user": who,
    "GET /api/admin/projects/web/features/checkout": flag,
    [`PUT ${BASE}/state`]: ({ body }: { body: { state: ChangeRequest["state"] } }) => ({
      ...shown,
      state: body.state,
    }),
    [`POST ${BASE}/comments`]: new Response(null, { status: 201 }),
  });
}

const show = (shown: ChangeRequest) =>
  renderWithProviders(
    <MemoryRouter>
      <ChangeRequestView request={shown} />
    </MemoryRouter>,
  );

beforeEach(() => serveAs(me(AUTHOR, REVIEWING), request("In review")));

describe("ChangeRequestView", () => {
  it("shows each change against the flag as it is now", async () => {
    show(request("In review"));
    const enable = screen.getByRole("article", { name: "Enable the flag in production" });
    const diff = await within(enable).findByRole("region", {
      name: "Changes: Enable the flag in production",
    });
    await waitFor(() => expect(diff).toHaveTextContent('- "enabled": false'));
    expect(diff).toHaveTextContent('+ "enabled": true');
    // A deleted strategy is shown as it is stored now, all removed.
    const removal = screen.getByRole("region", { name: "Changes: Delete strategy flexibleRollout" });
    await waitFor(() => expect(removal).toHaveTextContent('- "rollout": "30"'));
  });

  it("keeps its author from approving it, and says why", async () => {
    show(request("In review"));
    const approve = await screen.findByRole("button", { name: "Approve" });
    expect(approve).toBeDisabled();
    // Once the service has said who is looking.
    await waitFor(() =>
      expect(approve).toHaveAccessibleDescription("You cannot approve your own change request."),
    );
    expect(screen.getByRole("button", { name: "Cancel request" })).toBeEnabled();
    expect(screen.queryByRole("button", { name: "Apply changes" })).toBeNull();
  });

  it("lets someone else approve it", async () => {
    serveAs(me(REVIEWER, REVIEWING), request("In review"));
    show(request("In review"));
    // Enabled once the service has said who is looking: a new button, found again.
    await waitFor(() => expect(screen.getByRole("button", { name: "Approve" })).toBeEnabled());
    await userEvent.click(screen.getByRole("button", { name: "Approve" }));
    await waitFor(() =>
      expect(service.sent).toContainEqual({
        method: "PUT",
        path: `${BASE}/state`,
        body: { state: "Approved" },
      }),
    );
    // Not its author: the changes are the author's to discard.
    expect(screen.getByRole("button", { name: /^Discard change: Enable/ })).toBeDisabled();
  });

  it("offers its author to submit a draft, and only the author", async () => {
    show(request("Draft"));
    await waitFor(() => expect(screen.getByRole("button", { name: "Submit for review" })).toBeEnabled());
    await userEvent.click(screen.getByRole("button", { name: "Submit for review" }));
    await waitFor(() =>
      expect(service.sent).toContainEqual({
        method: "PUT",
        path: `${BASE}/state`,
        body: { state: "In review" },
      }),
    );
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    expect(screen.getByRole("button", { name: "Discard draft" })).toBeEnabled();
  });

  it("shows a conflict where it is, and keeps the request from being applied", async () => {
    serveAs(me(REVIEWER, REVIEWING), request("Approved"));
    const why = "The strategy has been changed since this change was made.";
    show(request("Approved", why));
    expect(screen.getByRole("alert", { name: /^Conflicts/ })).toBeInTheDocument();
    const conflicting = screen.getByRole("article", { name: "Delete strategy flexibleRollout" });
    expect(within(conflicting).getByRole("alert")).toHaveTextContent(why);
    const apply = screen.getByRole("button", { name: "Apply changes" });
    expect(apply).toBeDisabled();
    await waitFor(() => expect(apply).toHaveAccessibleDescription(/edit or discard them first/));
    expect(screen.getByRole("button", { name: "Schedule" })).toBeEnabled();
  });

  it("shows a closed request's changes as they were asked, with nothing left to do", () => {
    show(request("Applied"));
    expect(screen.queryByRole("button", { name: /Approve|Apply|Cancel request/ })).toBeNull();
    expect(screen.getByLabelText("What was asked: Enable the flag in production")).toHaveTextContent(
      '"enabled": true',
    );
  });

  it("shows the rollout switching a flag on adds where it has no active strategy", () => {
    const shown = request("In review");
    const [feature] = shown.features;
    show({
      ...shown,
      features: [
        {
          ...feature!,
          defaultChange: {
            action: "addStrategy",
            payload: { name: "flexibleRollout", constraints: [], parameters: { rollout: "100" } },
          },
        },
      ],
    });
    expect(screen.getByText("Also, when applied: Add strategy flexibleRollout")).toBeInTheDocument();
    expect(screen.getByRole("region", { name: "Default change to checkout" })).toHaveTextContent(
      /\+\s+"rollout": "100"/,
    );
  });

  it("names a release change's milestone as the flag's plan has it, and shows what starting it serves", async () => {
    const shown = request("In review");
    const environment = "/api/admin/projects/web/features/checkout/environments/production";
    const strategy = (percent: string) => ({
      id: `s${percent}`,
      milestoneId: "m2",
      sortOrder: 0,
      name: "flexibleRollout",
      strategyName: "flexibleRollout",
      title: null,
      disabled: false,
      parameters: { rollout: percent },
      constraints: [],
      segments: [],
      variants: [],
    });
    const milestone = (id: string, name: string, sortOrder: number, percent: string) => ({
      id,
      name,
      sortOrder,
      releasePlanDefinitionId: "p1",
      startedAt: null,
      pausedAt: null,
      progressionExecutedAt: null,
      progressionDueAt: null,
      transitionCondition: null,
      strategies: [strategy(percent)],
    });
    service.serve({
      "GET /api/admin/user": me(AUTHOR, REVIEWING),
      "GET /api/admin/projects/web/features/checkout": flag,
      "GET /api/admin/release-plan-templates": [],
      [`GET ${environment}/safeguards`]: [],
      [`GET ${environment}/release-plans`]: [
        {
          id: "p1",
          name: "Gradual",
          activeMilestoneId: "m1",
          milestones: [milestone("m1", "Canary", 0, "10"), milestone("m2", "Everyone", 1, "100")],
          safeguards: [],
        },
      ],
    });
    show({
      ...shown,
      features: [
        {
          name: "checkout",
          changes: [
            {
              id: 13,
              action: "startMilestone",
              payload: { milestoneId: "m2" },
              createdBy: AUTHOR,
              createdAt: "2026-01-01T00:00:00.000Z",
            },
          ],
        },
      ],
    });
    const change = await screen.findByRole("article", { name: "Start milestone Everyone" });
    const diff = within(change).getByRole("region", { name: "Changes: Start milestone Everyone" });
    await waitFor(() => expect(diff).toHaveTextContent('- "activeMilestone": "Canary"'));
    expect(diff).toHaveTextContent('+ "activeMilestone": "Everyone"');
    expect(diff).toHaveTextContent('+ "flexibleRollout 100%"');
  });

  it("adds a comment", async () => {
    show(request("In review"));
    await userEvent.type(screen.getByRole("textbox", { name: "Comment" }), "Looks right");
    await userEvent.click(screen.getByRole("button", { name: "Add comment" }));
    await waitFor(() =>
      expect(service.sent).toContainEqual({
        method: "POST",
        path: `${BASE}/comments`,
        body: { text: "Looks right" },
      }),
    );
  });
});

describe("scheduling", () => {
  it("sends the time picked in the person's time zone as UTC", () => {
    const local = "2030-03-04 05:06:00";
    expect(scheduledAtOf(local)).toBe(new Date(2030, 2, 4, 5, 6).toISOString());
    expect(localOf(scheduledAtOf(local))).toBe(local);
  });
});
