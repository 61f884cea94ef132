import { describe, expect, it } from "vitest";
import type { Milestone } from "../queries";
import { milestoneStates, milestoneSummary } from "./milestone-states";

const milestone = (id: string, sortOrder: number, at: Partial<Milestone> = {}): Milestone => ({
  id,
  name: id,
  sortOrder,
  releasePlanDefinitionId: "plan",
  startedAt: null,
  pausedAt: null,
  progressionExecutedAt: null,
  progressionDueAt: null,
  targetMilestone: null,
  transitionCondition: null,
  strategies: [],
  ...at,
});

const started = "2026-03-01T12:00:00.000Z";

describe("milestoneStates", () => {
  it("has every milestone waiting until one is started", () => {
    const states = milestoneStates({
      activeMilestoneId: null,
      milestones: [milestone("b", 1), milestone("a", 0)],
    });
    expect([...states]).toEqual([
      ["a", "waiting"],
      ["b", "waiting"],
    ]);
  });

  it("has those before the active one done, or skipped when they never ran, and those after waiting", () => {
    const states = milestoneStates({
      activeMilestoneId: "c",
      milestones: [
        milestone("d", 3),
        milestone("c", 2, { startedAt: started }),
        milestone("a", 0, { startedAt: started }),
        milestone("b", 1),
      ],
    });
    expect(Object.fromEntries(states)).toEqual({ a: "done", b: "skipped", c: "active", d: "waiting" });
  });

  it("has the active milestone paused when a safeguard paused it", () => {
    const states = milestoneStates({
      activeMilestoneId: "a",
      milestones: [milestone("a", 0, { startedAt: started, pausedAt: started }), milestone("b", 1)],
    });
    expect(states.get("a")).toBe("paused");
  });
});

describe("milestoneSummary", () => {
  const strategy = (name: string, sortOrder: number, parameters: Record<string, string> = {}) => ({
    id: `${name}-${sortOrder}`,
    milestoneId: "a",
    sortOrder,
    name,
    strategyName: name,
    title: null,
    disabled: false,
    parameters,
    constraints: [],
    segments: [],
    variants: [],
  });
  const label = (candidate: { name: string }) =>
    candidate.name === "flexibleRollout" ? "Gradual rollout" : candidate.name;

  it("names the first strategy, a rollout with its share, and counts the others", () => {
    expect(milestoneSummary(milestone("a", 0), label)).toBe("No strategies");
    expect(
      milestoneSummary(
        milestone("a", 0, { strategies: [strategy("flexibleRollout", 0, { rollout: "25" })] }),
        label,
      ),
    ).toBe("Gradual rollout 25%");
    expect(
      milestoneSummary(
        milestone("a", 0, {
          strategies: [strategy("userWithId", 1), strategy("flexibleRollout", 0, { rollout: "5" })],
        }),
        label,
      ),
    ).toBe("Gradual rollout 5% and 1 more");
  });
});
