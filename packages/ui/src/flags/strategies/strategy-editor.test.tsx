import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () =>
  (await import("../../../test/fake-service")).installFakeService(),
);

import { renderWithProviders } from "../../../test/render";
import type { Strategy } from "../queries";
import { StrategyEditor } from "./strategy-editor";

const place = { projectId: "web", featureName: "checkout" };
const strategies = "/api/admin/projects/web/features/checkout/environments/production/strategies";

const definition = (name: string, parameters: { name: string; type: string; required: boolean }[]) => ({
  name,
  displayName: null,
  description: null,
  editable: false,
  deprecated: false,
  parameters: parameters.map((parameter) => ({ description: "", ...parameter })),
});

const field = (name: string, stickiness: boolean) => ({
  name,
  description: null,
  stickiness,
  sortOrder: 0,
  legalValues: [],
  createdAt: "2026-01-01T00:00:00.000Z",
  usedInFeatures: 0,
  usedInProjects: 0,
});

const routes = () => ({
  "GET /api/admin/strategies": {
    version: 1,
    strategies: [
      definition("flexibleRollout", [
        { name: "rollout", type: "percentage", required: false },
        { name: "stickiness", type: "string", required: true },
        { name: "groupId", type: "string", required: true },
      ]),
      definition("userWithId", [{ name: "userIds", type: "list", required: false }]),
    ],
  },
  "GET /api/admin/segments": { segments: [] },
  "GET /api/admin/projects/web/change-requests/config": [],
  "GET /api/admin/user": { user: { id: 7, username: "ann" }, permissions: [] },
  "GET /api/admin/context": [field("userId", false), field("tenant", true), field("region", false)],
  [`POST ${strategies}`]: ({ body }: { body: object }) => ({ id: "new", ...body }),
  [`PUT ${strategies}/s1`]: ({ body }: { body: object }) => ({ id: "s1", ...body }),
});

beforeEach(() => service.serve(routes()));

const sentBody = () => service.sent.find((request) => request.method !== "GET")?.body;

describe("StrategyEditor", () => {
  it("builds a gradual rollout's parameters from the slider, the number and the stickiness", async () => {
    const onClose = vi.fn();
    renderWithProviders(
      <StrategyEditor place={place} environment="production" defaultStickiness="userId" onClose={onClose} />,
    );
    expect(screen.getByRole("dialog", { name: "Add a strategy in production" })).toBeInTheDocument();

    const slider = screen.getByRole("slider", { name: "Rollout" });
    expect(slider).toHaveAttribute("aria-valuenow", "100");
    const percent = screen.getByRole("textbox", { name: "Rollout" });
    await userEvent.clear(percent);
    await userEvent.type(percent, "35");
    expect(slider).toHaveAttribute("aria-valuenow", "35");
    slider.focus();
    await userEvent.keyboard("{ArrowRight}");
    expect(percent).toHaveValue("36%");

    const stickiness = screen.getByRole("combobox", { name: "Stickiness" });
    expect(stickiness).toHaveValue("userId");
    await userEvent.click(stickiness);
    // Built-in stickiness first, then the context fields marked for it.
    await waitFor(() =>
      expect(screen.getAllByRole("option").map((option) => option.textContent)).toEqual([
        "default",
        "userId",
        "sessionId",
        "random",
        "tenant",
      ]),
    );
    await userEvent.click(screen.getByRole("option", { name: "sessionId" }));

    await userEvent.click(screen.getByRole("button", { name: "Add strategy" }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sentBody()).toEqual({
      name: "flexibleRollout",
      title: null,
      disabled: false,
      parameters: { rollout: "36", stickiness: "sessionId", groupId: "checkout" },
      constraints: [],
      segments: [],
      variants: [],
    });
  });

  it("will not save a rollout outside 0 to 100, and says why", async () => {
    renderWithProviders(
      <StrategyEditor
        place={place}
        environment="production"
        defaultStickiness="default"
        onClose={() => {}}
      />,
    );
    const percent = screen.getByRole("textbox", { name: "Rollout" });
    await userEvent.clear(percent);
    await userEvent.type(percent, "150");
    expect(await screen.findAllByText("rollout must be a number from 0 to 100.")).not.toHaveLength(0);
    expect(screen.getByRole("button", { name: "Add strategy" })).toBeDisabled();
  });

  it("edits another strategy's declared list parameter as a comma-separated string", async () => {
    const strategy: Strategy = {
      id: "s1",
      name: "userWithId",
      title: "Staff",
      disabled: false,
      featureName: "checkout",
      sortOrder: 0,
      segments: [],
      constraints: [{ contextName: "region", operator: "IN", values: ["eu"] }],
      variants: [],
      parameters: { userIds: "ann,bob" },
    };
    const onClose = vi.fn();
    renderWithProviders(
      <StrategyEditor
        place={place}
        environment="production"
        strategy={strategy}
        defaultStickiness="default"
        onClose={onClose}
      />,
    );
    const userIds = await screen.findByRole("combobox", { name: "userIds" });
    await userEvent.type(userIds, "cy{Enter}");
    await userEvent.click(screen.getByRole("button", { name: "Save strategy" }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sentBody()).toEqual({
      name: "userWithId",
      title: "Staff",
      disabled: false,
      parameters: { userIds: "ann,bob,cy" },
      constraints: [{ contextName: "region", operator: "IN", values: ["eu"] }],
      segments: [],
      variants: [],
    });
  });
});

describe("StrategyEditor where production requires change requests", () => {
  const draft = "/api/admin/projects/web/environments/production/change-requests";
  const strategy: Strategy = {
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
  };
  const gated = (permissions: string[]) =>
    service.serve({
      ...routes(),
      "GET /api/admin/projects/web/change-requests/config": [
        { environment: "production", type: "production", changeRequestEnabled: true, requiredApprovals: 1 },
      ],
      "GET /api/admin/user": {
        user: { id: 7, username: "ann" },
        permissions: permissions.map((permission) => ({ permission })),
      },
      [`POST ${draft}`]: { id: 3, state: "Draft", features: [], segments: [] },
    });
  const edit = (onClose: () => void) =>
    renderWithProviders(
      <StrategyEditor
        place={place}
        environment="production"
        strategy={strategy}
        defaultStickiness="default"
        onClose={onClose}
      />,
    );

  it("adds the edit to the person's draft instead of saving it", async () => {
    gated(["UPDATE_FEATURE_STRATEGY"]);
    const onClose = vi.fn();
    edit(onClose);
    await userEvent.click(await screen.findByRole("button", { name: "Add to draft" }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const writes = service.sent.filter((request) => request.method !== "GET");
    expect(writes).toEqual([
      {
        method: "POST",
        path: draft,
        body: {
          feature: "checkout",
          action: "updateStrategy",
          payload: {
            id: "s1",
            name: "flexibleRollout",
            title: null,
            disabled: false,
            parameters: { rollout: "30", stickiness: "default", groupId: "checkout" },
            constraints: [],
            segments: [],
            variants: [],
          },
        },
      },
    ]);
  });

  it("saves directly for someone who may skip change requests", async () => {
    gated(["ADMIN"]);
    const onClose = vi.fn();
    edit(onClose);
    await userEvent.click(await screen.findByRole("button", { name: "Save strategy" }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(service.sent.filter((request) => request.method !== "GET").map((request) => request.path)).toEqual(
      [`${strategies}/s1`],
    );
  });
});
