import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () =>
  (await import("../../../test/fake-service")).installFakeService(),
);

import { renderWithProviders } from "../../../test/render";
import { ConstraintsEditor } from "./constraints-editor";
import type { Constraint } from "./operators";

const field = (name: string, legalValues: { value: string; description?: string }[] = []) => ({
  name,
  description: null,
  stickiness: false,
  sortOrder: 0,
  legalValues,
  createdAt: "2026-01-01T00:00:00.000Z",
  usedInFeatures: 0,
  usedInProjects: 0,
});

beforeEach(() => {
  service.serve({
    "GET /api/admin/context": [
      field("userId"),
      field("currentTime"),
      field("appVersion"),
      field("region", [{ value: "eu", description: "Europe" }, { value: "us" }]),
    ],
  });
});

/** The editor as a screen holds it, with each model it reports kept for the test to read. */
function edit(initial: Constraint[]) {
  const models: Constraint[][] = [];
  function Holder() {
    const [value, setValue] = useState(initial);
    return (
      <ConstraintsEditor
        value={value}
        onChange={(next) => {
          models.push(next);
          setValue(next);
        }}
      />
    );
  }
  renderWithProviders(<Holder />);
  return { latest: () => models.at(-1) };
}

const constraint = (number: number) => within(screen.getByRole("group", { name: `Constraint ${number}` }));

async function operatorsOffered() {
  await userEvent.click(constraint(1).getByRole("combobox", { name: "Operator" }));
  const options = await screen.findAllByRole("option");
  return options.map((option) => option.textContent);
}

describe("ConstraintsEditor", () => {
  it("offers the operators that fit the field", async () => {
    edit([{ contextName: "currentTime", operator: "DATE_AFTER", value: "2030-01-01T00:00:00.000Z" }]);
    expect(await operatorsOffered()).toEqual(["is after (DATE_AFTER)", "is before (DATE_BEFORE)"]);
  });

  it("offers text operators alone for a built-in text field, and numbers and versions for a custom one", async () => {
    edit([{ contextName: "userId", operator: "IN", values: ["1"] }]);
    const forUserId = await operatorsOffered();
    expect(forUserId).toContain("is one of (IN)");
    expect(forUserId).toContain("matches the regular expression (REGEX)");
    expect(forUserId.some((label) => label?.includes("NUM_") || label?.includes("DATE_"))).toBe(false);

    await userEvent.keyboard("{Escape}");
    await userEvent.click(constraint(1).getByRole("combobox", { name: "Context field" }));
    await userEvent.click(await screen.findByRole("option", { name: "appVersion" }));
    const forCustom = await operatorsOffered();
    expect(forCustom).toContain("is a number equal to (NUM_EQ)");
    expect(forCustom).toContain("is a version newer than (SEMVER_GT)");
    expect(forCustom.some((label) => label?.includes("DATE_"))).toBe(false);
  });

  it("offers a field's legal values and sets the ones chosen", async () => {
    const { latest } = edit([{ contextName: "region", operator: "IN", values: [] }]);
    await constraint(1).findByText("Legal values of region");
    await userEvent.click(constraint(1).getByRole("combobox", { name: "Values" }));
    const options = await screen.findAllByRole("option");
    expect(options.map((option) => option.textContent)).toEqual(["eu – Europe", "us"]);
    await userEvent.click(screen.getByRole("option", { name: "us" }));
    expect(latest()).toEqual([{ contextName: "region", operator: "IN", values: ["us"] }]);
  });

  it("keeps the model valid when a list operator becomes a single-value one", async () => {
    const { latest } = edit([
      {
        contextName: "appVersion",
        operator: "IN",
        values: ["5", "6"],
        caseInsensitive: true,
        inverted: true,
      },
    ]);
    await operatorsOffered();
    await userEvent.click(screen.getByRole("option", { name: "is a number equal to (NUM_EQ)" }));
    // One value, no list, no case flag a number ignores; still inverted.
    expect(latest()).toEqual([{ contextName: "appVersion", operator: "NUM_EQ", value: "5", inverted: true }]);
    expect(constraint(1).getByRole("textbox", { name: "Value" })).toHaveValue("5");
    expect(constraint(1).queryByRole("checkbox", { name: "Case insensitive" })).toBeNull();
  });

  it("sets case insensitivity and inversion, and says so", async () => {
    const { latest } = edit([{ contextName: "userId", operator: "STR_CONTAINS", values: ["a"] }]);
    await userEvent.click(constraint(1).getByRole("checkbox", { name: "Case insensitive" }));
    await userEvent.click(constraint(1).getByRole("checkbox", { name: /Inverted/ }));
    expect(latest()).toEqual([
      {
        contextName: "userId",
        operator: "STR_CONTAINS",
        values: ["a"],
        caseInsensitive: true,
        inverted: true,
      },
    ]);
    expect(constraint(1).getByText("userId does not contain a (case insensitive)")).toBeInTheDocument();

    await userEvent.click(constraint(1).getByRole("checkbox", { name: "Case insensitive" }));
    expect(latest()).toEqual([
      { contextName: "userId", operator: "STR_CONTAINS", values: ["a"], inverted: true },
    ]);
  });

  it("shows an inline error for a number operator given something else", async () => {
    edit([{ contextName: "appVersion", operator: "NUM_GT", value: "" }]);
    const input = constraint(1).getByRole("textbox", { name: "Value" });
    expect(input).not.toHaveAttribute("aria-invalid", "true");
    await userEvent.type(input, "ten");
    expect(input).toHaveAttribute("aria-invalid", "true");
    expect(constraint(1).getByText("Enter a number, such as 42 or 1.5.")).toBeInTheDocument();
    await userEvent.clear(input);
    await userEvent.type(input, "10");
    expect(input).not.toHaveAttribute("aria-invalid", "true");
  });

  it("points out an empty list once the person leaves it", async () => {
    edit([]);
    await userEvent.click(screen.getByRole("button", { name: "Add constraint" }));
    const values = constraint(1).getByRole("combobox", { name: "Values" });
    expect(constraint(1).queryByText("Add at least one value.")).toBeNull();
    await userEvent.click(values);
    await userEvent.tab();
    expect(constraint(1).getByText("Add at least one value.")).toBeInTheDocument();
  });

  it("adds and removes constraints", async () => {
    const { latest } = edit([{ contextName: "userId", operator: "IN", values: ["1"] }]);
    await userEvent.click(screen.getByRole("button", { name: "Add constraint" }));
    expect(latest()).toHaveLength(2);
    await userEvent.click(screen.getByRole("button", { name: "Remove constraint 1" }));
    expect(latest()).toEqual([{ contextName: "userId", operator: "IN", values: [] }]);
  });
});
