import { draftOf, type StrategyDraft, strategyBody } from "../../flags/strategies/strategy-draft";
import type { Template, TemplateInput } from "../queries";

/** A milestone being edited: its strategies as the strategy fields edit them. */
export interface MilestoneDraft {
  /** Its React key, kept as it moves, so focus and open editors follow it; never sent. */
  key: string;
  name: string;
  /** Minutes after it starts that the next milestone starts on its own; empty: started by hand. */
  advanceAfter: number | "";
  strategies: StrategyDraft[];
}

/** A template being edited, its milestones in the order they run. */
export type TemplateDraft = {
  name: string;
  description: string;
  milestones: MilestoneDraft[];
};

// Templates serve every flag: a rollout's group is left for the service to fill in with the
// flag's name when the milestone starts, and stickiness is the SDKs' default.
export const TEMPLATE_PLACE = { featureName: "", defaultStickiness: "default" };

let keys = 0;
export const newMilestone = (): MilestoneDraft => ({
  key: `milestone-${++keys}`,
  name: "",
  advanceAfter: "",
  strategies: [],
});

/** A template as its form starts: a stored one, or a new one with one empty milestone. */
export function templateDraftOf(template?: Template): TemplateDraft {
  if (!template) return { name: "", description: "", milestones: [newMilestone()] };
  return {
    name: template.name,
    description: template.description ?? "",
    milestones: [...template.milestones]
      .sort((a, b) => a.sortOrder - b.sortOrder)
      .map((milestone) => ({
        key: `milestone-${++keys}`,
        name: milestone.name,
        advanceAfter: milestone.transitionCondition?.intervalMinutes ?? "",
        strategies: [...milestone.strategies]
          .sort((a, b) => a.sortOrder - b.sortOrder)
          .map((strategy) => draftOf(strategy, TEMPLATE_PLACE)),
      })),
  };
}

/** The list with the item at `from` moved to `to`. */
export function move<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [moved] = next.splice(from, 1);
  if (moved !== undefined) next.splice(to, 0, moved);
  return next;
}

/**
 * The rules of a milestone, by field, as @mantine/form applies them. A milestone without a
 * strategy is refused here though the service would store it: starting it would leave the
 * flag's environment with no strategy, which SDKs read as on for everyone.
 */
export const milestoneRules = {
  name: (name: string, values: TemplateDraft) => {
    if (name.trim() === "") return "Give the milestone a name";
    const same = values.milestones.filter((milestone) => milestone.name.trim() === name.trim());
    return same.length > 1 ? "Another milestone has this name" : null;
  },
  advanceAfter: (minutes: number | "") =>
    minutes === "" || (Number.isInteger(minutes) && minutes >= 1)
      ? null
      : "A whole number of minutes, 1 or more",
  strategies: (strategies: StrategyDraft[]) =>
    strategies.length === 0
      ? "Add a strategy: starting a milestone without one would leave the flag with none"
      : null,
};

/**
 * The template as POST and PUT take it: milestones numbered in the order shown. The last one
 * has nothing to hand over to, so whatever "advance after" it kept from an earlier place is dropped.
 */
export function templateBody(draft: TemplateDraft): TemplateInput {
  const last = draft.milestones.length - 1;
  return {
    name: draft.name.trim(),
    description: draft.description.trim() || null,
    milestones: draft.milestones.map((milestone, index) => ({
      name: milestone.name.trim(),
      sortOrder: index,
      strategies: milestone.strategies.map((strategy, order) => ({
        ...strategyBody(strategy),
        sortOrder: order,
      })),
      transitionCondition:
        index === last || milestone.advanceAfter === "" ? null : { intervalMinutes: milestone.advanceAfter },
    })),
  };
}
