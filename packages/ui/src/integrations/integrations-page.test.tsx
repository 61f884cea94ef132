import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () => (await import("../../test/fake-service")).installFakeService());

import { renderWithProviders } from "../../test/render";
import IntegrationsPage from "./integrations-page";
import type { Addon, AddonList, Delivery } from "./queries";

const ADDON: Addon = {
  id: 3,
  provider: "webhook",
  description: "Deploy bot",
  enabled: false,
  parameters: { url: "*****" },
  events: [],
  projects: [],
  environments: [],
};
const LIST: AddonList = {
  addons: [ADDON],
  providers: [
    {
      name: "webhook",
      displayName: "Webhook",
      description: "Sends an HTTP POST for each event.",
      documentationUrl: "https://docs.example/webhook",
      parameters: [],
      events: ["feature-created"],
      tagTypes: [],
    },
  ],
};
const USER = { id: 1, name: "Ada", email: "ada@example.com" };
const delivery = (state: Delivery["state"], statusCode: number, stateDetails: string): Delivery => ({
  id: "9",
  integrationId: 3,
  createdAt: "2025-01-01T00:00:00.000Z",
  state,
  stateDetails,
  event: {
    id: 0,
    type: "feature-created",
    createdAt: "2025-01-01T00:00:00.000Z",
    createdBy: "ada",
    createdByUserId: 1,
    project: "default",
    environment: null,
    featureName: "signalbox-test-event",
    data: { name: "signalbox-test-event", test: true },
    preData: null,
    tags: [],
  },
  details: {},
  attempts: [{ attempt: 1, at: "2025-01-01T00:00:00.000Z", statusCode, response: "", error: null }],
});

const serve = (permission: string, answer: Delivery) => {
  let logAsked = 0;
  service.serve({
    "GET /api/admin/user": { user: USER, permissions: [{ permission }] },
    "GET /api/admin/addons": LIST,
    "POST /api/admin/addons/3/test": answer,
    "GET /api/admin/addons/3/events": () => {
      logAsked += 1;
      return { integrationEvents: [answer] };
    },
  });
  return { logAsked: () => logAsked };
};

const testButton = () => screen.findByRole("button", { name: "Send test event to Webhook #3" });

describe("IntegrationsPage test send", () => {
  it("sends a test event and says it was delivered, with the receiver's status", async () => {
    serve("UPDATE_ADDON", delivery("success", 200, "Delivered (200) after 1 attempt."));
    renderWithProviders(<IntegrationsPage />);
    const button = await testButton();
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    const outcome = await screen.findByRole("status");
    expect(outcome).toHaveTextContent("Test event delivered to Webhook #3 (HTTP 200).");
    expect(service.sent.filter((sent) => sent.method === "POST").map((sent) => sent.path)).toEqual([
      "/api/admin/addons/3/test",
    ]);
  });

  it("says why a test event failed, and the refreshed log shows it", async () => {
    const calls = serve("ADMIN", delivery("failed", 500, "Not delivered after 1 attempt: answered 500."));
    renderWithProviders(<IntegrationsPage />);
    await userEvent.click(await screen.findByRole("button", { name: "Delivery log of Webhook #3" }));
    await screen.findByRole("table", { name: "Deliveries of Webhook #3" });
    const before = calls.logAsked();
    await userEvent.click(await testButton());
    const outcome = await screen.findByRole("alert");
    expect(outcome).toHaveTextContent(
      "Test event to Webhook #3 failed (HTTP 500): Not delivered after 1 attempt",
    );
    await waitFor(() => expect(calls.logAsked()).toBeGreaterThan(before));
    const log = screen.getByRole("table", { name: "Deliveries of Webhook #3" });
    expect(within(log).getByText("Failed")).toBeInTheDocument();
  });

  it("is disabled, with the reason, without UPDATE_ADDON", async () => {
    serve("CREATE_ADDON", delivery("success", 200, ""));
    renderWithProviders(<IntegrationsPage />);
    const button = await testButton();
    await waitFor(() => expect(button).toHaveAccessibleDescription("You need the UPDATE_ADDON permission."));
    expect(button).toBeDisabled();
  });
});
