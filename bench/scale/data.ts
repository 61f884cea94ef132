// The scale benchmark's data: flags spread over projects and environments, with segments,
// constraints, tags and variants, generated from a fixed seed. Flag i draws from a sequence
// of its own, so a smaller size is the first flags of a larger one and every service gets
// the same flags at every size.
import { Random } from "@signalbox/server/compare";

export const PROJECTS = Array.from({ length: 10 }, (_, i) => `scale-${i}`);
/** development and production exist on both services; the other two are created. */
export const ENVIRONMENTS = ["development", "production", "staging", "qa"] as const;
export const CREATED_ENVIRONMENTS = [
  { name: "staging", type: "test", enabled: true, sortOrder: 300 },
  { name: "qa", type: "development", enabled: true, sortOrder: 400 },
];
export const SEGMENT_COUNT = 30;
export const WORDS = [
  "checkout",
  "search",
  "billing",
  "onboarding",
  "mobile",
  "pricing",
  "beta",
  "navigation",
  "reporting",
  "payments",
  "profile",
  "export",
];
export const TEAMS = Array.from({ length: 12 }, (_, i) => `team-${String.fromCharCode(97 + i)}`);
const COUNTRIES = ["NO", "SE", "DK", "FI", "DE", "FR", "ES", "IT", "NL", "PL", "US", "CA", "BR", "JP", "IN"];
const PLANS = ["free", "starter", "pro", "enterprise"];
const TYPES = [
  "release",
  "release",
  "release",
  "experiment",
  "experiment",
  "operational",
  "kill-switch",
  "permission",
];
const ENABLED: Record<(typeof ENVIRONMENTS)[number], number> = {
  development: 0.8,
  production: 0.4,
  staging: 0.6,
  qa: 0.5,
};
const SEED = 25;

export const CONTEXT_FIELDS = [
  { name: "country", description: "ISO country code", stickiness: false },
  {
    name: "plan",
    description: "Subscription plan",
    stickiness: true,
    legalValues: PLANS.map((value) => ({ value })),
  },
];

export interface Constraint {
  contextName: string;
  operator: string;
  values: string[];
  inverted: boolean;
  caseInsensitive: boolean;
}

export interface SegmentSpec {
  /** Its id in the generated files; each service gives it its own, found by name. */
  id: number;
  name: string;
  constraints: Constraint[];
}

export interface Variant {
  name: string;
  weight: number;
  weightType: "variable";
  stickiness: string;
  payload?: { type: "string" | "json"; value: string };
}

export interface StrategySpec {
  name: "flexibleRollout" | "default";
  parameters: Record<string, string>;
  constraints: Constraint[];
  segments: number[];
  variants: Variant[];
}

export interface FlagSpec {
  index: number;
  name: string;
  project: string;
  type: string;
  description: string;
  tag: string;
  environments: Record<(typeof ENVIRONMENTS)[number], { enabled: boolean; strategies: StrategySpec[] }>;
}

const users = (random: Random, count: number) =>
  Array.from({ length: count }, () => `user-${random.int(1, 100_000)}`);

const constraint = (contextName: string, values: string[]): Constraint => ({
  contextName,
  operator: "IN",
  values,
  inverted: false,
  caseInsensitive: false,
});

export function segments(): SegmentSpec[] {
  const random = new Random(SEED);
  return Array.from({ length: SEGMENT_COUNT }, (_, id) => ({
    id: id + 1,
    name: `segment-${id + 1}`,
    constraints: random.chance(0.5)
      ? [constraint("plan", random.some(PLANS, 1, 2))]
      : [constraint("userId", users(random, random.int(20, 60)))],
  }));
}

function strategies(random: Random, name: string): StrategySpec[] {
  const rollout: StrategySpec = {
    name: "flexibleRollout",
    parameters: {
      rollout: String(random.pick([0, 5, 10, 25, 50, 100])),
      stickiness: "default",
      groupId: name,
    },
    constraints: random.chance(0.4) ? [constraint("country", random.some(COUNTRIES, 1, 4))] : [],
    segments: random.chance(0.2) ? [random.int(1, SEGMENT_COUNT)] : [],
    variants: random.chance(0.1)
      ? ["control", "treatment"].map((variant) => ({
          name: variant,
          weight: 500,
          weightType: "variable" as const,
          stickiness: "default",
          payload: {
            type: "json" as const,
            value: JSON.stringify({ layout: variant, limit: random.int(1, 50) }),
          },
        }))
      : [],
  };
  if (!random.chance(0.15)) return [rollout];
  const allowList: StrategySpec = {
    name: "default",
    parameters: {},
    constraints: [constraint("userId", users(random, random.int(5, 20)))],
    segments: [],
    variants: [],
  };
  return [allowList, rollout];
}

export function flag(index: number): FlagSpec {
  const random = new Random((SEED * 1_000_003 + index) >>> 0);
  const word = random.pick(WORDS);
  const name = `${word}-${String(index).padStart(5, "0")}`;
  const environments = Object.fromEntries(
    ENVIRONMENTS.map((environment) => [
      environment,
      { enabled: random.chance(ENABLED[environment]), strategies: strategies(random, name) },
    ]),
  ) as FlagSpec["environments"];
  return {
    index,
    name,
    project: PROJECTS[index % PROJECTS.length]!,
    type: random.pick(TYPES),
    description: `${random.pick(["New", "Faster", "Simpler", "Redesigned"])} ${word} ${random.pick(["flow", "page", "service", "widget"])}`,
    tag: random.pick(TEAMS),
    environments,
  };
}

export function flags(count: number): FlagSpec[] {
  return Array.from({ length: count }, (_, index) => flag(index));
}
