import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithProviders } from "../../test/render";
import { GuardedButton } from "./guarded-button";

describe("GuardedButton", () => {
  it("works for someone allowed", async () => {
    const click = vi.fn();
    renderWithProviders(
      <GuardedButton verdict={{ allowed: true, reason: undefined }} onClick={click}>
        New project
      </GuardedButton>,
    );
    await userEvent.click(screen.getByRole("button", { name: "New project" }));
    expect(click).toHaveBeenCalledOnce();
  });

  it("is disabled for someone who is not, and says why", async () => {
    const click = vi.fn();
    const reason = "You need the CREATE_PROJECT permission.";
    renderWithProviders(
      <GuardedButton verdict={{ allowed: false, reason }} onClick={click}>
        New project
      </GuardedButton>,
    );
    const button = screen.getByRole("button", { name: "New project" });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription(reason);
    await userEvent.click(button, { pointerEventsCheck: 0 });
    expect(click).not.toHaveBeenCalled();
  });
});
