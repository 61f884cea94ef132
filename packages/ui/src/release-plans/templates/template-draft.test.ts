import { describe, expect, it } from "vitest";
import { newDraft } from "../../flags/strategies/strategy-draft";
import type { Template } from "../queries";
import {
  milestoneRules,
  move,
  newMilestone,
  TEMPLATE_PLACE,
  templateBody,
  templateDraftOf,
} from "./template-draft";

const rollout = (percent: string) => ({
  ...newDraft(TEMPLATE_PLACE),
  parameters: { ...newDraft(TEMPLATE_PLACE).parameters, rollout: percent },
});

describe("templateBody", () => {
  it("numbers the milestones in the order shown, and drops the last one's hand-over", () => {
    const draft = {
      name: " Gradual ",
      description: "",
      milestones: [
        { ...newMilestone(), name: "Canary", advanceAfter: 30 as const, strategies: [rollout("10")] },
        { ...newMilestone(), name: " Everyone ", advanceAfter: 60 as const, strategies: [rollout("100")] },
      ],
    };
    expect(templateBody(draft)).toEqual({
      name: "Gradual",
      description: null,
      milestones: [
        {
          name: "Canary",
          sortOrder: 0,
          transitionCondition: { intervalMinutes: 30 },
          strategies: [
            {
              name: "flexibleRollout",
              title: null,
              disabled: false,
              // The group is left for the service: the flag's name, when the milestone starts.
              parameters: { rollout: "10", stickiness: "default", groupId: "" },
              constraints: [],
              segments: [],
              variants: [],
              sortOrder: 0,
            },
          ],
        },
        expect.objectContaining({ name: "Everyone", sortOrder: 1, transitionCondition: null }),
      ],
    });
  });

  it("starts a new template with one empty milestone, and reads a stored one in its order", () => {
    expect(templateDraftOf().milestones).toHaveLength(1);
    const stored = {
      id: "t",
      name: "Gradual",
      description: null,
      milestones: [
        { id: "b", name: "Everyone", sortOrder: 1, transitionCondition: null, strategies: [] },
        {
          id: "a",
          name: "Canary",
          sortOrder: 0,
          transitionCondition: { intervalMinutes: 5 },
          strategies: [],
        },
      ],
    } as unknown as Template;
    const draft = templateDraftOf(stored);
    expect(draft.milestones.map(({ name, advanceAfter }) => ({ name, advanceAfter }))).toEqual([
      { name: "Canary", advanceAfter: 5 },
      { name: "Everyone", advanceAfter: "" },
    ]);
    expect(new Set(draft.milestones.map((milestone) => milestone.key)).size).toBe(2);
  });
});

describe("milestoneRules", () => {
  const values = {
    name: "t",
    description: "",
    milestones: [
      { ...newMilestone(), name: "Canary" },
      { ...newMilestone(), name: "Canary " },
    ],
  };

  it("want a name no other milestone has", () => {
    expect(milestoneRules.name("", values)).toBe("Give the milestone a name");
    expect(milestoneRules.name("Canary", values)).toBe("Another milestone has this name");
    expect(milestoneRules.name("Half", values)).toBeNull();
  });

  it("want a whole number of minutes, or none", () => {
    expect(milestoneRules.advanceAfter("")).toBeNull();
    expect(milestoneRules.advanceAfter(5)).toBeNull();
    expect(milestoneRules.advanceAfter(0)).not.toBeNull();
    expect(milestoneRules.advanceAfter(1.5)).not.toBeNull();
  });

  it("want a strategy, so starting the milestone does not leave the flag without one", () => {
    expect(milestoneRules.strategies([])).toMatch(/^Add a strategy/);
    expect(milestoneRules.strategies([rollout("10")])).toBeNull();
  });
});

describe("move", () => {
  it("moves one item and keeps the others in order", () => {
    expect(move(["a", "b", "c"], 2, 1)).toEqual(["a", "c", "b"]);
    expect(move(["a", "b", "c"], 0, 2)).toEqual(["b", "c", "a"]);
  });
});
