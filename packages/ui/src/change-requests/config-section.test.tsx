import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () => (await import("../../test/fake-service")).installFakeService());

import { renderWithProviders } from "../../test/render";
import { ChangeRequestSettings } from "./config-section";

const CONFIG = "/api/admin/projects/web/change-requests/config";
const PUT_PRODUCTION = "/api/admin/projects/web/environments/production/change-requests/config";

beforeEach(() =>
  service.serve({
    [`GET ${CONFIG}`]: [
      {
        environment: "development",
        type: "development",
        changeRequestEnabled: false,
        requiredApprovals: null,
      },
      { environment: "production", type: "production", changeRequestEnabled: false, requiredApprovals: null },
    ],
    [`PUT ${PUT_PRODUCTION}`]: new Response(null, { status: 204 }),
  }),
);

describe("ChangeRequestSettings", () => {
  it("requires change requests in an environment, with the approvals asked for", async () => {
    renderWithProviders(
      <ChangeRequestSettings projectId="web" verdict={{ allowed: true, reason: undefined }} />,
    );
    const approvals = await screen.findByRole("textbox", { name: "Required approvals in production" });
    expect(approvals).toBeDisabled();
    await userEvent.click(screen.getByRole("switch", { name: "Require change requests in production" }));
    await userEvent.clear(approvals);
    await userEvent.type(approvals, "2");
    await userEvent.click(screen.getByRole("button", { name: "Save change requests in production" }));
    await waitFor(() =>
      expect(service.sent).toContainEqual({
        method: "PUT",
        path: PUT_PRODUCTION,
        body: { changeRequestsEnabled: true, requiredApprovals: 2 },
      }),
    );
  });

  it("is disabled, with the reason, for someone without the permission", async () => {
    const reason = "You need the PROJECT_CHANGE_REQUEST_WRITE permission in project web.";
    renderWithProviders(<ChangeRequestSettings projectId="web" verdict={{ allowed: false, reason }} />);
    const toggle = await screen.findByRole("switch", { name: "Require change requests in production" });
    expect(toggle).toBeDisabled();
    expect(screen.getByRole("group", { name: "Change requests" })).toHaveAccessibleDescription(reason);
  });
});
