import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderWithProviders } from "../../test/render";
import { api } from "../api/client";
import { EventList } from "./event-list";

const event = (id: number) => ({
  id,
  type: "feature-updated" as const,
  createdAt: new Date(Date.now() - id * 60_000).toISOString(),
  createdBy: "alice@example.com",
  createdByUserId: 3,
  project: "shop",
  environment: null,
  featureName: "gift-cards",
  data: { name: "gift-cards", description: `version ${id}` },
  preData: { name: "gift-cards", description: `version ${id - 1}` },
  tags: [],
});

function answer(ids: number[], totalEvents: number) {
  return {
    data: { version: 1 as const, events: ids.map(event), totalEvents },
    response: new Response(null, { status: 200 }),
  } as unknown as Awaited<ReturnType<typeof api.POST>>;
}

// Diff lines keep their indentation.
const exactly = { normalizer: (text: string) => text };

afterEach(() => vi.restoreAllMocks());

describe("EventList", () => {
  it("lists events newest first, asks for older ones from the last id, and shows what one changed", async () => {
    const first = Array.from({ length: 50 }, (_, index) => 60 - index);
    const post = vi
      .spyOn(api, "POST")
      .mockResolvedValueOnce(answer(first, 53))
      .mockResolvedValueOnce(answer([10, 9, 8], 53));
    renderWithProviders(
      <MemoryRouter>
        <EventList filter={{ feature: "gift-cards" }} />
      </MemoryRouter>,
    );

    const table = await screen.findByRole("table", { name: "Events" });
    expect(post).toHaveBeenLastCalledWith("/api/admin/events/search", {
      body: { feature: "gift-cards", offset: 0, limit: 50 },
    });
    expect(within(table).getAllByRole("link", { name: "gift-cards" })[0]).toHaveAttribute(
      "href",
      "/projects/shop/features/gift-cards",
    );
    expect(screen.getByText("Showing 50 of 53 events")).toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Load more" }));
    expect(await screen.findByText("Showing 53 of 53 events")).toBeInTheDocument();
    expect(post).toHaveBeenLastCalledWith("/api/admin/events/search", {
      body: { feature: "gift-cards", offset: 10, limit: 50 },
    });
    expect(screen.queryByRole("button", { name: "Load more" })).not.toBeInTheDocument();

    const toggle = screen.getByRole("button", { name: "Changes in feature-updated #9" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    const changes = screen.getByRole("region", { name: "Changes in feature-updated #9" });
    expect(within(changes).getByText('-   "description": "version 8",', exactly)).toBeInTheDocument();
    expect(within(changes).getByText('+   "description": "version 9",', exactly)).toBeInTheDocument();
  });

  it("says so when nothing matches", async () => {
    vi.spyOn(api, "POST").mockResolvedValueOnce(answer([], 0));
    renderWithProviders(
      <MemoryRouter>
        <EventList filter={{ createdBy: "nobody" }} />
      </MemoryRouter>,
    );
    expect(await screen.findByText("No events match.")).toBeInTheDocument();
  });
});
