import { describe, expect, it } from "vitest";
import type { Flag } from "../flags/queries";
import { describeChange, flagChangeDiff, segmentChangeDiff } from "./change-diff";
import { flagWideEnvironment, needsRequest } from "./use-change-gate";

const strategy = {
  id: "s1",
  name: "flexibleRollout",
  title: null,
  disabled: false,
  featureName: "checkout",
  sortOrder: 0,
  segments: [],
  constraints: [],
  variants: [],
  parameters: { rollout: "50", stickiness: "default", groupId: "checkout" },
};

const flag = {
  name: "checkout",
  archived: false,
  dependencies: [{ feature: "payments", enabled: true, variants: [] }],
  environments: [
    {
      name: "production",
      enabled: false,
      strategies: [strategy, { ...strategy, id: "s2", name: "default", title: "Staff", parameters: {} }],
      variants: [
        { name: "blue", weight: 1000, weightType: "variable", stickiness: "default", overrides: [] },
      ],
    },
    { name: "development", enabled: true, strategies: [], variants: [] },
  ],
} as unknown as Flag;

describe("flagChangeDiff", () => {
  it("compares a switch with the flag's enabled state in the request's environment", () => {
    expect(flagChangeDiff("updateEnabled", { enabled: true }, flag, "production")).toEqual({
      before: { enabled: false },
      after: { enabled: true },
    });
    expect(flagChangeDiff("updateEnabled", { enabled: false }, flag, "development").before).toEqual({
      enabled: true,
    });
  });

  it("compares an edited strategy with the stored strategy of that id, fields left out as stored", () => {
    const payload = {
      id: "s1",
      name: "flexibleRollout",
      parameters: { rollout: "80", stickiness: "default", groupId: "checkout" },
    };
    const { before, after } = flagChangeDiff("updateStrategy", payload, flag, "production");
    expect(before).toMatchObject({ name: "flexibleRollout", parameters: { rollout: "50" } });
    expect(after).toMatchObject({ name: "flexibleRollout", parameters: { rollout: "80" } });
    // Only the rollout differs: a field the change did not send is not shown as removed.
    expect({ ...(before as object), parameters: null }).toEqual({ ...(after as object), parameters: null });
  });

  it("shows a deleted strategy as it is now, and nothing after", () => {
    expect(flagChangeDiff("deleteStrategy", { id: "s2" }, flag, "production")).toEqual({
      before: expect.objectContaining({ name: "default", title: "Staff" }),
      after: null,
    });
    // Deleted since: nothing to compare with, which the conflict explains.
    expect(flagChangeDiff("deleteStrategy", { id: "gone" }, flag, "production").before).toBeNull();
  });

  it("shows a new strategy as all added", () => {
    expect(flagChangeDiff("addStrategy", { name: "default" }, flag, "production")).toEqual({
      before: null,
      after: expect.objectContaining({ name: "default", disabled: false, constraints: [] }),
    });
  });

  it("names the strategies in their order now and in the order asked", () => {
    const order = [
      { id: "s1", sortOrder: 1 },
      { id: "s2", sortOrder: 0 },
    ];
    expect(flagChangeDiff("reorderStrategy", order, flag, "production")).toEqual({
      before: { order: ["flexibleRollout (s1)", "Staff (s2)"] },
      after: { order: ["Staff (s2)", "flexibleRollout (s1)"] },
    });
  });

  it("compares variants with the environment's variants now", () => {
    const { before, after } = flagChangeDiff("patchVariant", { variants: [] }, flag, "production");
    expect(before).toEqual({ variants: [expect.objectContaining({ name: "blue" })] });
    expect(after).toEqual({ variants: [] });
  });

  it("compares dependencies and archiving with the flag now", () => {
    expect(flagChangeDiff("deleteDependency", { feature: "payments" }, flag, "production")).toEqual({
      before: { feature: "payments", enabled: true, variants: [] },
      after: null,
    });
    expect(flagChangeDiff("addDependency", { feature: "login", enabled: false }, flag, "production")).toEqual(
      {
        before: null,
        after: { feature: "login", enabled: false, variants: [] },
      },
    );
    expect(flagChangeDiff("archiveFeature", {}, flag, "production")).toEqual({
      before: { archived: false },
      after: { archived: true },
    });
  });

  it("shows only what the change holds when the flag is not known", () => {
    expect(
      flagChangeDiff("updateEnabled", { enabled: true }, undefined, "production").before,
    ).toBeUndefined();
  });
});

describe("segmentChangeDiff", () => {
  it("compares a segment's edit with the segment now", () => {
    const segment = { id: 3, name: "eu", description: null, project: null, constraints: [] };
    expect(segmentChangeDiff("updateSegment", { id: 3, name: "europe", constraints: [] }, segment)).toEqual({
      before: { name: "eu", description: null, project: null, constraints: [] },
      after: { name: "europe", description: null, project: null, constraints: [] },
    });
    expect(segmentChangeDiff("deleteSegment", { id: 3 }, segment).after).toBeNull();
  });
});

describe("describeChange", () => {
  it("says what a change does", () => {
    expect(describeChange("updateEnabled", { enabled: true }, "production")).toBe(
      "Enable the flag in production",
    );
    expect(
      describeChange("updateStrategy", { id: "s1", name: "default", title: "Staff" }, "production"),
    ).toBe("Change strategy Staff");
    expect(describeChange("deleteDependency", {}, "production")).toBe("Remove every dependency");
  });
});

describe("which changes need a change request", () => {
  const configs = [
    { environment: "development", type: "development", changeRequestEnabled: true, requiredApprovals: 1 },
    { environment: "staging", type: "test", changeRequestEnabled: false, requiredApprovals: null },
    { environment: "production", type: "production", changeRequestEnabled: true, requiredApprovals: 2 },
  ];
  const nobodySkips = () => false;

  it("is a change in an environment that requires them, by someone who may not skip them", () => {
    expect(needsRequest(configs, "production", nobodySkips)).toBe(true);
    expect(needsRequest(configs, "staging", nobodySkips)).toBe(false);
    expect(needsRequest(configs, "production", (environment) => environment === "production")).toBe(false);
  });

  it("drafts a change to the whole flag in a production environment first", () => {
    expect(flagWideEnvironment(configs, nobodySkips)).toBe("production");
    expect(flagWideEnvironment(configs, (environment) => environment === "production")).toBe("development");
    expect(flagWideEnvironment(configs, () => true)).toBeUndefined();
  });
});
