import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderWithProviders } from "../../test/render";
import { JsonDiff } from "./json-diff";

const label = "Changes in feature-updated #7";

function changedLines() {
  const region = screen.getByRole("region", { name: label });
  const marked = (kind: string) =>
    Array.from(region.querySelectorAll(`[data-change="${kind}"]`), (line) => line.textContent);
  return { region, added: marked("added"), removed: marked("removed") };
}

describe("JsonDiff", () => {
  it("marks an added key with +", () => {
    renderWithProviders(<JsonDiff label={label} before={{ name: "a" }} after={{ name: "a", stale: true }} />);
    const { added, removed } = changedLines();
    expect(added).toContain('+   "stale": true');
    // The comma the new last key puts after the one before it.
    expect(removed).toEqual(['-   "name": "a"']);
    expect(added).toContain('+   "name": "a",');
  });

  it("marks a removed key with -", () => {
    renderWithProviders(
      <JsonDiff label={label} before={{ description: "old", name: "a" }} after={{ name: "a" }} />,
    );
    const { added, removed, region } = changedLines();
    expect(removed).toEqual(['-   "description": "old",']);
    expect(added).toEqual([]);
    expect(within(region).getByText("0 lines added, 1 removed")).toBeInTheDocument();
  });

  it("shows a changed value as the old line removed and the new one added, nested keys in order", () => {
    renderWithProviders(
      <JsonDiff
        label={label}
        before={{ name: "a", strategy: { rollout: "50", groupId: "a" } }}
        after={{ strategy: { groupId: "a", rollout: "75" }, name: "a" }}
      />,
    );
    const { added, removed } = changedLines();
    expect(removed).toEqual(['-     "rollout": "50"']);
    expect(added).toEqual(['+     "rollout": "75"']);
  });

  it("folds long unchanged stretches", () => {
    const before = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`key${String(i).padStart(2, "0")}`, i]),
    );
    renderWithProviders(<JsonDiff label={label} before={before} after={{ ...before, key10: "ten" }} />);
    const { region } = changedLines();
    expect(within(region).getByText(/⋯ 8 unchanged lines/)).toBeInTheDocument();
    expect(within(region).getByText(/⋯ 7 unchanged lines/)).toBeInTheDocument();
  });

  it("says there are no changes when both sides are the same", () => {
    renderWithProviders(<JsonDiff label={label} before={{ a: 1, b: [1, 2] }} after={{ b: [1, 2], a: 1 }} />);
    const { region, added, removed } = changedLines();
    expect(within(region).getByText("No changes")).toBeInTheDocument();
    expect([...added, ...removed]).toEqual([]);
  });

  it("shows a creation as every line added", () => {
    renderWithProviders(<JsonDiff label={label} before={null} after={{ name: "a" }} />);
    const { added, removed } = changedLines();
    expect(added).toEqual(["+ {", '+   "name": "a"', "+ }"]);
    expect(removed).toEqual([]);
  });
});
