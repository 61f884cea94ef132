import { describe, expect, it } from "vitest";
import { filterFlags, NO_FILTER, sortFlags } from "./flag-filters";
import type { ProjectFlag } from "./queries";

const flag = (name: string, fields: Partial<ProjectFlag> = {}): ProjectFlag => ({
  name,
  type: "release",
  description: null,
  project: "shop",
  stale: false,
  favorite: false,
  impressionData: false,
  createdAt: "2024-01-01T00:00:00.000Z",
  createdBy: { id: 1, name: "admin", imageUrl: "" },
  archivedAt: null,
  lastSeenAt: null,
  dependencyType: null,
  environments: [],
  segments: [],
  tags: [],
  ...fields,
});

const names = (flags: ProjectFlag[]) => flags.map((entry) => entry.name);

const flags = [
  flag("checkout", {
    description: "The new Checkout button",
    tags: [{ type: "simple", value: "web" }],
    createdAt: "2024-01-01T00:00:00.000Z",
    lifecycle: { stage: "live", enteredStageAt: "2024-02-01T00:00:00.000Z" },
    lastSeenAt: "2024-03-01T00:00:00.000Z",
  }),
  flag("flag-10", { type: "experiment", stale: true, createdAt: "2024-01-03T00:00:00.000Z" }),
  flag("flag-9", {
    type: "kill-switch",
    favorite: true,
    createdAt: "2024-01-02T00:00:00.000Z",
    lastSeenAt: "2024-02-01T00:00:00.000Z",
  }),
];

describe("the flags tab's filters", () => {
  it("match the name or description in any case, and each filter narrows further", () => {
    expect(names(filterFlags(flags, { ...NO_FILTER, text: "CHECKOUT" }))).toEqual(["checkout"]);
    expect(names(filterFlags(flags, { ...NO_FILTER, text: "button" }))).toEqual(["checkout"]);
    expect(names(filterFlags(flags, { ...NO_FILTER, type: "experiment" }))).toEqual(["flag-10"]);
    expect(names(filterFlags(flags, { ...NO_FILTER, tag: "simple:web" }))).toEqual(["checkout"]);
    expect(names(filterFlags(flags, { ...NO_FILTER, state: "stale" }))).toEqual(["flag-10"]);
    expect(names(filterFlags(flags, { ...NO_FILTER, state: "active" }))).toEqual(["checkout", "flag-9"]);
    expect(names(filterFlags(flags, { ...NO_FILTER, stage: "live" }))).toEqual(["checkout"]);
    expect(filterFlags(flags, { ...NO_FILTER, text: "flag", type: "release" })).toEqual([]);
  });

  it("sort favourites first, then by the column either way, numbers in names as numbers", () => {
    expect(names(sortFlags(flags, { key: "name", descending: false }))).toEqual([
      "flag-9",
      "checkout",
      "flag-10",
    ]);
    expect(names(sortFlags(flags, { key: "createdAt", descending: true }))).toEqual([
      "flag-9",
      "flag-10",
      "checkout",
    ]);
    const unstarred = flags.map((entry) => ({ ...entry, favorite: false }));
    expect(names(sortFlags(unstarred, { key: "name", descending: false }))).toEqual([
      "checkout",
      "flag-9",
      "flag-10",
    ]);
    expect(names(sortFlags(unstarred, { key: "type", descending: true }))).toEqual([
      "checkout",
      "flag-9",
      "flag-10",
    ]);
  });

  it("keep flags never seen last, whichever way last use is sorted", () => {
    const unstarred = flags.map((entry) => ({ ...entry, favorite: false }));
    expect(names(sortFlags(unstarred, { key: "lastSeenAt", descending: true }))).toEqual([
      "checkout",
      "flag-9",
      "flag-10",
    ]);
    expect(names(sortFlags(unstarred, { key: "lastSeenAt", descending: false }))).toEqual([
      "flag-9",
      "checkout",
      "flag-10",
    ]);
  });
});
