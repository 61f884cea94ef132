import type {
  ClientFeatures,
  ConstraintDefinition,
  FeatureDefinition,
  SegmentDefinition,
  StrategyDefinition,
} from "@signalbox/engine";

// A deterministic pseudo-random source, so every run benchmarks the same document.
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TENANTS = Array.from({ length: 200 }, (_, i) => `tenant-${i}`);
const COUNTRIES = ["NO", "SE", "DK", "DE", "FR", "US", "GB", "ES", "IT", "PL", "NL", "BR", "IN", "JP"];
const PLANS = ["free", "pro", "team", "enterprise"];

/** One constraint of each operator family, drawn at random. */
function constraint(random: () => number): ConstraintDefinition {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  // A random subset, never empty: the admin API rejects a list constraint without values.
  const some = (items: readonly string[], share: number) => {
    const chosen = items.filter(() => random() < share);
    return chosen.length > 0 ? chosen : [pick(items)];
  };
  const inverted = random() < 0.15;
  switch (Math.floor(random() * 9)) {
    case 0:
      return {
        contextName: "tenant",
        operator: pick(["IN", "NOT_IN"]),
        values: some(TENANTS, 0.2),
        inverted,
      };
    case 1:
      return { contextName: "country", operator: "IN", values: some(COUNTRIES, 0.4) };
    case 2:
      return {
        contextName: "email",
        operator: pick(["STR_ENDS_WITH", "STR_STARTS_WITH", "STR_CONTAINS"]),
        values: ["@example.com", "@corp.test", "admin"],
        caseInsensitive: random() < 0.5,
        inverted,
      };
    case 3:
      return {
        contextName: "age",
        operator: pick(["NUM_GT", "NUM_GTE", "NUM_LT", "NUM_LTE", "NUM_EQ"]),
        value: String(Math.floor(random() * 80)),
      };
    case 4:
      return {
        contextName: "currentTime",
        operator: pick(["DATE_AFTER", "DATE_BEFORE"]),
        value: "2025-06-01T00:00:00.000Z",
      };
    case 5:
      return {
        contextName: "version",
        operator: pick(["SEMVER_GT", "SEMVER_LT", "SEMVER_EQ"]),
        value: `${1 + Math.floor(random() * 3)}.${Math.floor(random() * 10)}.0`,
      };
    case 6:
      return { contextName: "email", operator: "REGEX", value: "^[a-z]+\\.[0-9]+@example\\.com$" };
    case 7:
      return {
        contextName: "remoteAddress",
        operator: "IN_CIDR",
        values: ["10.0.0.0/8", "192.168.0.0/16"],
        inverted,
      };
    default:
      return { contextName: "plan", operator: "IN", values: some(PLANS, 0.5) };
  }
}

function variants(random: () => number, count: number, stickiness = "default") {
  return Array.from({ length: count }, (_, i) => ({
    name: `variant-${i}`,
    weight: Math.floor(1000 / count),
    weightType: "variable",
    stickiness,
    payload:
      random() < 0.5
        ? {
            type: "json",
            value: JSON.stringify({ color: `#${i}${i}${i}`, size: i * 10, label: `Variant ${i}` }),
          }
        : { type: "string", value: `value-${i}` },
  }));
}

/** A 1 000-flag document with the mix a mid-sized organisation has. */
export function buildDocument(flags = 1000, seed = 7): ClientFeatures {
  const random = prng(seed);
  const segments: SegmentDefinition[] = Array.from({ length: 40 }, (_, id) => ({
    id: id + 1,
    name: `segment-${id + 1}`,
    constraints: Array.from({ length: 1 + Math.floor(random() * 3) }, () => constraint(random)),
  }));
  const features: FeatureDefinition[] = [];
  for (let i = 0; i < flags; i++) {
    const name = `flag-${i}`;
    const roll = random();
    const strategies: StrategyDefinition[] = [];
    const withConstraints = () => Array.from({ length: Math.floor(random() * 3) }, () => constraint(random));
    if (roll < 0.35) {
      // As the admin UI does, strategy variants stick by the strategy's own stickiness.
      const stickiness = random() < 0.8 ? "default" : "tenant";
      strategies.push({
        name: "flexibleRollout",
        parameters: { rollout: String(Math.floor(random() * 101)), stickiness, groupId: name },
        constraints: withConstraints(),
        segments: random() < 0.3 ? [1 + Math.floor(random() * segments.length)] : [],
        variants: random() < 0.15 ? variants(random, 2, stickiness) : [],
      });
    } else if (roll < 0.55) {
      strategies.push({ name: "default", constraints: [constraint(random), ...withConstraints()] });
    } else if (roll < 0.65) {
      strategies.push({
        name: "userWithId",
        parameters: {
          userIds: Array.from({ length: 30 }, () => `user-${Math.floor(random() * 5000)}`).join(","),
        },
      });
      strategies.push({
        name: "flexibleRollout",
        parameters: { rollout: "10", stickiness: "default", groupId: name },
      });
    } else if (roll < 0.72) {
      strategies.push({
        name: "remoteAddress",
        parameters: { IPs: "10.1.0.0/16, 192.168.1.7, 172.16.0.0/12" },
      });
    } else if (roll < 0.78) {
      strategies.push({
        name: "gradualRolloutUserId",
        parameters: { percentage: String(Math.floor(random() * 100)), groupId: name },
      });
    } else if (roll < 0.85) {
      strategies.push({
        name: "default",
        segments: [
          ...new Set([
            1 + Math.floor(random() * segments.length),
            1 + Math.floor(random() * segments.length),
          ]),
        ],
      });
    } else {
      strategies.push({ name: "default" });
    }
    const feature: FeatureDefinition = {
      name,
      type: "release",
      project: "default",
      enabled: random() > 0.1,
      stale: false,
      impressionData: random() < 0.1,
      strategies,
      variants: random() < 0.25 ? variants(random, 2 + Math.floor(random() * 3)) : [],
    };
    if (i > 10 && random() < 0.05)
      feature.dependencies = [{ feature: `flag-${Math.floor(random() * 10)}`, enabled: true }];
    features.push(feature);
  }
  return { version: 2, features, segments };
}

export type BenchContext = {
  userId: string;
  sessionId: string;
  remoteAddress: string;
  environment: string;
  appName: string;
  currentTime: Date;
  properties: Record<string, string>;
};

export function buildContexts(count = 10_000, seed = 11): BenchContext[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, (_, i) => ({
    userId: `user-${Math.floor(random() * 5000)}`,
    sessionId: String(Math.floor(random() * 1e9)),
    remoteAddress:
      random() < 0.5 ? `10.1.${i % 256}.${Math.floor(random() * 256)}` : `84.${i % 256}.3.${i % 200}`,
    environment: "production",
    appName: "web",
    currentTime: new Date("2025-09-01T12:00:00.000Z"),
    properties: {
      tenant: pick(TENANTS),
      country: pick(COUNTRIES),
      plan: pick(PLANS),
      email: `${pick(["ann", "bo", "cy", "di"])}.${i}@${pick(["example.com", "corp.test", "mail.test"])}`,
      age: String(Math.floor(random() * 90)),
      version: `${1 + Math.floor(random() * 3)}.${Math.floor(random() * 10)}.${Math.floor(random() * 5)}`,
    },
  }));
}
