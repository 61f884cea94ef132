import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () => (await import("../../test/fake-service")).installFakeService());

import { renderWithProviders } from "../../test/render";
import { AddonForm, replaceMask } from "./addon-form";
import { MASK, parameterProblem } from "./parameters";
import type { Addon, Provider } from "./queries";

const WEBHOOK: Provider = {
  name: "webhook",
  displayName: "Webhook",
  description: "Sends an HTTP POST for each event.",
  documentationUrl: "https://docs.example/webhook",
  parameters: [
    { name: "url", displayName: "Webhook URL", type: "url", required: true, sensitive: true },
    { name: "contentType", displayName: "Content-Type", type: "text", required: false, sensitive: false },
    { name: "authorization", displayName: "Authorization", type: "text", required: false, sensitive: true },
    {
      name: "customHeaders",
      displayName: "Extra HTTP headers",
      type: "textfield",
      required: false,
      sensitive: true,
    },
  ],
  events: ["feature-created", "feature-archived"],
  tagTypes: [],
};

const STORED: Addon = {
  id: 7,
  provider: "webhook",
  description: "Deploy bot",
  enabled: true,
  parameters: { url: MASK, contentType: "text/plain", authorization: MASK },
  events: ["feature-created"],
  projects: [],
  environments: [],
};

beforeEach(() =>
  service.serve({
    "GET /api/admin/projects": { version: 1, projects: [] },
    "GET /api/admin/environments": { version: 1, environments: [] },
    "POST /api/admin/addons": (sent: { body: unknown }) => ({ id: 1, ...(sent.body as object) }),
    "PUT /api/admin/addons/7": (sent: { body: unknown }) => ({ id: 7, ...(sent.body as object) }),
  }),
);

const sentTo = (method: string) => service.sent.filter((request) => request.method === method);

describe("AddonForm", () => {
  it("is built from the provider's parameters: required ones marked, secrets other than the URL masked", () => {
    renderWithProviders(<AddonForm provider={WEBHOOK} addon={undefined} onDone={() => {}} />);
    // Kept hidden once saved, but typed where it can be read.
    const url = screen.getByRole("textbox", { name: /Webhook URL/ });
    expect(url).toBeRequired();
    expect(url).toHaveAttribute("type", "url");
    expect(screen.getByRole("textbox", { name: "Content-Type" })).not.toBeRequired();
    expect(screen.getByLabelText(/Authorization/)).toHaveAttribute("type", "password");
    expect(screen.getByRole("textbox", { name: "Extra HTTP headers" })).toBeInTheDocument();
  });

  it("refuses to send without the required parameter, a bad URL, bad headers, or no event", async () => {
    renderWithProviders(<AddonForm provider={WEBHOOK} addon={undefined} onDone={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "Create integration" }));
    expect(await screen.findByText("Webhook URL is required.")).toBeInTheDocument();
    expect(screen.getByText("Choose at least one event to send.")).toBeInTheDocument();
    // Said beside the button too, and the first field at fault is where the person is taken.
    expect(screen.getByRole("alert")).toHaveTextContent("Fix the fields marked in red: Webhook URL, Events.");
    expect(screen.getByLabelText(/Webhook URL/)).toHaveFocus();
    await userEvent.type(screen.getByLabelText(/Webhook URL/), "ftp://example.com");
    expect(screen.getByText("Webhook URL must be an http:// or https:// URL.")).toBeInTheDocument();
    await userEvent.type(screen.getByRole("textbox", { name: "Extra HTTP headers" }), "[[1]");
    expect(
      screen.getByText("Extra HTTP headers must be a JSON object of header names and string values."),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Create integration" }));
    expect(sentTo("POST")).toEqual([]);
  });

  it("creates an addon with what was typed, empty optional parameters left out", async () => {
    const done = vi.fn();
    renderWithProviders(<AddonForm provider={WEBHOOK} addon={undefined} onDone={done} />);
    await userEvent.type(screen.getByLabelText(/Webhook URL/), " https://hooks.example/in ");
    await userEvent.click(screen.getByRole("button", { name: "Select all events" }));
    await userEvent.click(screen.getByRole("button", { name: "Create integration" }));
    await waitFor(() => expect(done).toHaveBeenCalled());
    expect(sentTo("POST")[0]?.body).toEqual({
      provider: "webhook",
      enabled: true,
      description: null,
      parameters: { url: "https://hooks.example/in" },
      events: ["feature-created", "feature-archived"],
      projects: [],
      environments: [],
    });
  });

  it("keeps a stored sensitive value as the mask unless a new one is typed", async () => {
    const done = vi.fn();
    renderWithProviders(<AddonForm provider={WEBHOOK} addon={STORED} onDone={done} />);
    const url = screen.getByLabelText(/Webhook URL/);
    expect(url).toHaveValue(MASK);
    expect(screen.getAllByText(/Stored and hidden/)).toHaveLength(2);
    // A new authorization typed over the mask replaces it; the URL is left alone.
    await userEvent.type(screen.getByLabelText(/Authorization/), "Bearer new");
    expect(screen.getByLabelText(/Authorization/)).toHaveValue("Bearer new");
    await userEvent.click(screen.getByRole("button", { name: "Save integration" }));
    await waitFor(() => expect(done).toHaveBeenCalled());
    expect(sentTo("PUT")[0]?.body).toMatchObject({
      parameters: { url: MASK, contentType: "text/plain", authorization: "Bearer new" },
      events: ["feature-created"],
      description: "Deploy bot",
    });
  });

  it("says that a new destination drops the stored secrets, and asks for them again", async () => {
    const done = vi.fn();
    renderWithProviders(<AddonForm provider={WEBHOOK} addon={STORED} onDone={done} />);
    expect(screen.getByText(/Changing it clears the stored hidden values/)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText(/Webhook URL/), "https://elsewhere.example/in");
    const authorization = screen.getByLabelText(/Authorization/);
    expect(authorization).toHaveValue("");
    expect(screen.getByText(/destination changed: enter it again/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Save integration" }));
    await waitFor(() => expect(done).toHaveBeenCalled());
    expect(sentTo("PUT")[0]?.body).toMatchObject({
      parameters: { url: "https://elsewhere.example/in", contentType: "text/plain" },
    });
    expect(JSON.stringify(sentTo("PUT")[0]?.body)).not.toContain(MASK);
  });

  it("refuses to save a new destination without a required secret typed again", async () => {
    const datadog: Provider = {
      ...WEBHOOK,
      name: "datadog",
      displayName: "Datadog",
      parameters: [
        { name: "url", displayName: "Datadog events URL", type: "url", required: false, sensitive: false },
        { name: "apiKey", displayName: "API key", type: "text", required: true, sensitive: true },
      ],
    };
    const stored: Addon = {
      ...STORED,
      provider: "datadog",
      parameters: { url: "https://api.datadoghq.com/api/v1/events", apiKey: MASK },
    };
    renderWithProviders(<AddonForm provider={datadog} addon={stored} onDone={() => {}} />);
    const url = screen.getByLabelText(/Datadog events URL/);
    await userEvent.clear(url);
    await userEvent.type(url, "https://api.datadoghq.eu/api/v1/events");
    await userEvent.click(screen.getByRole("button", { name: "Save integration" }));
    expect(
      await screen.findByText("API key must be entered again: the destination changed."),
    ).toBeInTheDocument();
    expect(sentTo("PUT")).toEqual([]);
  });

  it("shows the service's refusal of a parameter at its field", async () => {
    const message = "parameters.url: 127.0.0.1 is a private address";
    service.serve({
      "POST /api/admin/addons": new Response(
        JSON.stringify({ name: "ValidationError", message, details: [{ message, path: "parameters.url" }] }),
        { status: 400, headers: { "content-type": "application/json" } },
      ),
    });
    renderWithProviders(<AddonForm provider={WEBHOOK} addon={undefined} onDone={() => {}} />);
    await userEvent.type(screen.getByLabelText(/Webhook URL/), "http://127.0.0.1/hook");
    await userEvent.click(screen.getByRole("button", { name: "Select all events" }));
    await userEvent.click(screen.getByRole("button", { name: "Create integration" }));
    // Beside the button that was pressed, and at the field, which is focused.
    expect(await screen.findByRole("alert")).toHaveTextContent(message);
    const url = screen.getByLabelText(/Webhook URL/);
    expect(url).toHaveAttribute("aria-invalid", "true");
    expect(url).toHaveAccessibleDescription(expect.stringContaining(message));
    expect(url).toHaveFocus();
  });
});

describe("the mask", () => {
  it("is replaced by what is typed next to it, and cleared by deleting any of it", () => {
    expect(replaceMask(MASK, `${MASK}a`)).toBe("a");
    expect(replaceMask(MASK, `a${MASK}`)).toBe("a");
    expect(replaceMask(MASK, "****")).toBe("");
    expect(replaceMask(MASK, "pasted")).toBe("pasted");
    expect(replaceMask(MASK, "B")).toBe("B");
    expect(replaceMask("abc", "abcd")).toBe("abcd");
  });

  it("counts as the required value it stands for", () => {
    expect(parameterProblem(WEBHOOK.parameters[0] as Provider["parameters"][number], MASK)).toBeUndefined();
    expect(parameterProblem(WEBHOOK.parameters[1] as Provider["parameters"][number], MASK)).toBeUndefined();
  });
});
