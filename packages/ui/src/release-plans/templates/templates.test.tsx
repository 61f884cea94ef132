import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () =>
  (await import("../../../test/fake-service")).installFakeService(),
);

import { renderWithProviders } from "../../../test/render";
import type { Template } from "../queries";
import TemplatePage from "./template-page";
import TemplatesPage from "./templates-page";

const TEMPLATES = "/api/admin/release-plan-templates";
const GRADUAL: Template = {
  id: "t1",
  discriminator: "template",
  name: "Gradual",
  description: "Ten percent, then everyone",
  createdAt: "2026-03-01T12:00:00.000Z",
  createdByUserId: 1,
  archivedAt: null,
  milestones: [
    {
      id: "m2",
      name: "Everyone",
      sortOrder: 1,
      releasePlanDefinitionId: "t1",
      startedAt: null,
      pausedAt: null,
      progressionExecutedAt: null,
      progressionDueAt: null,
      targetMilestone: null,
      transitionCondition: null,
      strategies: [],
    },
    {
      id: "m1",
      name: "Canary",
      sortOrder: 0,
      releasePlanDefinitionId: "t1",
      startedAt: null,
      pausedAt: null,
      progressionExecutedAt: null,
      progressionDueAt: null,
      targetMilestone: "m2",
      transitionCondition: { intervalMinutes: 30 },
      strategies: [],
    },
  ],
};

function serve(permissions: string[]) {
  service.serve({
    "GET /api/admin/user": {
      user: { id: 7, username: "ann" },
      permissions: permissions.map((permission) => ({ permission })),
    },
    [`GET ${TEMPLATES}`]: [GRADUAL],
    [`POST ${TEMPLATES}`]: ({ body }: { body: object }) => ({ ...GRADUAL, ...body, id: "t2" }),
    [`POST ${TEMPLATES}/archive/t1`]: null,
    "GET /api/admin/strategies": {
      version: 1,
      strategies: [
        {
          name: "flexibleRollout",
          displayName: "Gradual rollout",
          description: null,
          editable: false,
          deprecated: false,
          parameters: [
            { name: "rollout", type: "percentage", description: "", required: false },
            { name: "stickiness", type: "string", description: "", required: true },
            { name: "groupId", type: "string", description: "", required: true },
          ],
        },
      ],
    },
    "GET /api/admin/segments": { segments: [] },
    "GET /api/admin/context": [],
  });
}

const open = (path: string) =>
  renderWithProviders(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/release-templates" element={<TemplatesPage />} />
        <Route path="/release-templates/:templateId" element={<TemplatePage />} />
      </Routes>
    </MemoryRouter>,
  );

describe("the release templates screen", () => {
  it("lists each template's milestones in order, and archives one", async () => {
    serve(["RELEASE_PLAN_TEMPLATE_UPDATE"]);
    open("/release-templates");
    const milestones = await screen.findByRole("list", { name: "Milestones of Gradual" });
    expect(
      within(milestones)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    ).toEqual(["Canary, then 30 min", "Everyone"]);
    await userEvent.click(screen.getByRole("button", { name: "Archive Gradual" }));
    await userEvent.click(
      within(screen.getByRole("dialog", { name: "Archive release template Gradual?" })).getByRole("button", {
        name: "Archive template",
      }),
    );
    await waitFor(() =>
      expect(
        service.sent.filter((request) => request.method !== "GET").map((request) => request.path),
      ).toEqual([`${TEMPLATES}/archive/t1`]),
    );
  });

  it("is there to read for someone who may not change templates, its buttons disabled with the reason", async () => {
    serve([]);
    open("/release-templates");
    await screen.findByRole("list", { name: "Milestones of Gradual" });
    await waitFor(() => expect(screen.getByRole("button", { name: "New template" })).toBeDisabled());
    expect(screen.getByRole("button", { name: "New template" })).toHaveAccessibleDescription(
      "You need the RELEASE_PLAN_TEMPLATE_CREATE permission.",
    );
    expect(screen.getByRole("button", { name: "Delete Gradual" })).toHaveAccessibleDescription(
      "You need the RELEASE_PLAN_TEMPLATE_DELETE permission.",
    );
  });
});

describe("the release template form", () => {
  it("refuses a milestone without a strategy, then creates the template with its milestones in order", async () => {
    serve(["RELEASE_PLAN_TEMPLATE_CREATE"]);
    open("/release-templates/new");
    const template = await screen.findByRole("group", { name: "Template" });
    await userEvent.type(within(template).getByRole("textbox", { name: "Name" }), "Gradual");
    const first = screen.getByRole("group", { name: "Milestone 1" });
    await userEvent.type(within(first).getByRole("textbox", { name: "Name" }), "Canary");
    await userEvent.click(screen.getByRole("button", { name: "Create template" }));
    expect(await within(first).findByRole("alert")).toHaveTextContent(/^Add a strategy/);

    await userEvent.click(within(first).getByRole("button", { name: "Add a strategy to Milestone 1" }));
    const dialog = await screen.findByRole("dialog", { name: "Add a strategy to milestone Canary" });
    const rollout = within(dialog).getByRole("textbox", { name: "Rollout" });
    await userEvent.clear(rollout);
    await userEvent.type(rollout, "10");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add strategy" }));
    await userEvent.click(screen.getByRole("button", { name: "Add milestone" }));
    const second = screen.getByRole("group", { name: "Milestone 2" });
    await userEvent.type(within(second).getByRole("textbox", { name: "Name" }), "Everyone");
    await userEvent.click(within(second).getByRole("button", { name: "Add a strategy to Milestone 2" }));
    await userEvent.click(
      within(await screen.findByRole("dialog", { name: "Add a strategy to milestone Everyone" })).getByRole(
        "button",
        {
          name: "Add strategy",
        },
      ),
    );
    await userEvent.type(within(first).getByRole("textbox", { name: "Advance after (minutes)" }), "15");
    await userEvent.click(screen.getByRole("button", { name: "Create template" }));

    await waitFor(() => expect(service.sent.some((request) => request.method === "POST")).toBe(true));
    const sent = service.sent.find((request) => request.method === "POST")?.body as {
      milestones: {
        name: string;
        sortOrder: number;
        transitionCondition: unknown;
        strategies: { parameters: object }[];
      }[];
    };
    expect(
      sent.milestones.map(({ name, sortOrder, transitionCondition, strategies }) => ({
        name,
        sortOrder,
        transitionCondition,
        rollouts: strategies.map((strategy) => strategy.parameters),
      })),
    ).toEqual([
      {
        name: "Canary",
        sortOrder: 0,
        transitionCondition: { intervalMinutes: 15 },
        rollouts: [{ rollout: "10", stickiness: "default", groupId: "" }],
      },
      {
        name: "Everyone",
        sortOrder: 1,
        transitionCondition: null,
        rollouts: [{ rollout: "100", stickiness: "default", groupId: "" }],
      },
    ]);
    // Typed field by field through two dialogs: slower than the others.
  }, 40_000);
});
