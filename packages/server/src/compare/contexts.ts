// Evaluation contexts generated from a seed: the differential test draws them from the pools
// its generated configuration uses; `signalbox compare` draws them from the values the
// compared documents' rules name, so that most rules are met by some contexts and missed by
// others.
import type { Document } from "./documents.js";
import type { Random } from "./random.js";

/** An evaluation context as JSON carries it (the frontend API's body). */
export interface WireContext {
  userId?: string;
  sessionId?: string;
  remoteAddress?: string;
  environment?: string;
  appName?: string;
  currentTime?: string;
  properties: Record<string, string>;
}

export interface GeneratedContext {
  index: number;
  /** The environment whose tokens evaluate this context. */
  environment: string;
  context: WireContext;
}

export interface ContextPools {
  userIds: readonly string[];
  addresses: readonly string[];
  appNames: readonly string[];
  /** `currentTime` is drawn between these, in ms since 1970. */
  timeSpan: { from: number; to: number };
  /** Other fields, each set with its probability to one of its values. */
  properties: readonly { name: string; values: readonly string[]; probability: number }[];
}

export function generateContexts(
  random: Random,
  count: number,
  environments: readonly string[],
  pools: ContextPools,
): GeneratedContext[] {
  // Each field draws its chance whether or not its pool is empty, so a seed replays alike.
  const draw = (probability: number, pool: readonly string[]) =>
    random.chance(probability) && pool.length > 0 ? random.pick(pool) : undefined;
  return Array.from({ length: count }, (_, index) => {
    const environment = environments[index % environments.length]!;
    const context: WireContext = { properties: {} };
    const userId = draw(0.8, pools.userIds);
    if (userId !== undefined) context.userId = userId;
    if (random.chance(0.85))
      context.sessionId = random.chance(0.1) ? random.pick(["s-1", "s-2", "s-3"]) : `s-${random.int(1, 1e9)}`;
    const address = draw(0.85, pools.addresses);
    if (address !== undefined) context.remoteAddress = address;
    // Browser SDKs send the environment they are configured with, `default` unless told.
    const where = random.next();
    if (where < 0.8) context.environment = environment;
    else if (where < 0.9) context.environment = "default";
    const appName = draw(0.85, pools.appNames);
    if (appName !== undefined) context.appName = appName;
    if (random.chance(0.8)) {
      const { from, to } = pools.timeSpan;
      const time = from + random.next() * (to - from);
      context.currentTime = new Date(Math.floor(time / 1000) * 1000).toISOString();
    }
    for (const { name, values, probability } of pools.properties) {
      const value = draw(probability, values);
      if (value !== undefined) context.properties[name] = value;
    }
    return { index, environment, context };
  });
}

interface Rule {
  contextName?: unknown;
  operator?: unknown;
  value?: unknown;
  values?: unknown;
  caseInsensitive?: unknown;
}

const DAY = 86_400_000;
/** Stickiness names that are not context fields of their own. */
const NOT_FIELDS = new Set(["default", "random", ""]);

/** Values near a rule's: on both sides of a bound, inside and outside a text match. */
function candidates(rule: Rule): string[] {
  const values = [
    ...(Array.isArray(rule.values) ? rule.values : []),
    ...(rule.value === undefined ? [] : [rule.value]),
  ].map(String);
  const operator = String(rule.operator ?? "");
  const near = values.flatMap((value): string[] => {
    if (operator.startsWith("NUM_")) {
      const number = Number(value);
      return Number.isFinite(number) ? [value, String(number - 1), String(number + 1)] : [value];
    }
    if (operator.startsWith("SEMVER_")) {
      const match = /^(\d+)\.(\d+)\.(\d+)/.exec(value);
      if (!match) return [value];
      const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
      return [
        value,
        `${major}.${minor}.${patch + 1}`,
        `${major}.${minor + 1}.0`,
        ...(patch > 0 ? [`${major}.${minor}.${patch - 1}`] : []),
      ];
    }
    if (operator === "STR_CONTAINS") return [value, `x${value}x`];
    if (operator === "STR_STARTS_WITH") return [value, `${value}x`];
    if (operator === "STR_ENDS_WITH") return [`x${value}`];
    if (operator === "IN_CIDR") return [value.split("/")[0]!];
    // A pattern's text rarely matches itself; its match is left to chance.
    if (operator === "REGEX") return [];
    return [value];
  });
  return rule.caseInsensitive === true
    ? near.flatMap((value) => [value, value.toUpperCase(), value.toLowerCase()])
    : near;
}

/**
 * Pools drawn from what the documents' rules name: constraint values (of strategies,
 * segments and variant overrides) and values near them, the user ids and addresses of
 * `userWithId` and `remoteAddress`, custom stickiness fields; plus values no rule names.
 */
export function poolsFrom(documents: readonly Document[]): ContextPools & { environments: string[] } {
  const fields = new Map<string, Set<string>>();
  const add = (field: string, values: Iterable<string>) => {
    const set = fields.get(field) ?? new Set<string>();
    for (const value of values) set.add(value);
    fields.set(field, set);
  };
  const times: number[] = [];
  const rule = (constraint: Rule) => {
    if (typeof constraint?.contextName !== "string") return;
    if (constraint.contextName === "currentTime") {
      const time = Date.parse(String(constraint.value));
      if (Number.isFinite(time)) times.push(time);
      return;
    }
    add(constraint.contextName, candidates(constraint));
  };
  const stickiness = (name: unknown) => {
    if (typeof name === "string" && !NOT_FIELDS.has(name)) add(name, []);
  };
  const list = (value: unknown) => (Array.isArray(value) ? (value as Record<string, unknown>[]) : []);
  for (const document of documents) {
    for (const segment of list(document.segments)) list(segment.constraints).forEach(rule);
    for (const feature of document.features) {
      for (const variant of list(feature.variants)) {
        stickiness(variant.stickiness);
        for (const override of list(variant.overrides)) rule({ ...override, operator: "IN" });
      }
      for (const strategy of list(feature.strategies)) {
        list(strategy.constraints).forEach(rule);
        const parameters = (strategy.parameters ?? {}) as Record<string, unknown>;
        const split = (value: unknown) =>
          String(value ?? "")
            .split(",")
            .map((item) => item.trim())
            .filter(Boolean);
        if (strategy.name === "userWithId") add("userId", split(parameters.userIds));
        if (strategy.name === "remoteAddress")
          add(
            "remoteAddress",
            split(parameters.IPs).map((ip) => ip.split("/")[0]!),
          );
        stickiness(parameters.stickiness);
        for (const variant of list(strategy.variants)) stickiness(variant.stickiness);
      }
    }
  }
  const take = (field: string, others: readonly string[]) => {
    const values = [...(fields.get(field) ?? []), ...others];
    fields.delete(field);
    return [...new Set(values)];
  };
  const userIds = take(
    "userId",
    Array.from({ length: 500 }, (_, i) => `user-${i + 1}`),
  );
  const addresses = take("remoteAddress", ["203.0.113.7", "2001:db8::7"]);
  const appNames = take("appName", ["app-unnamed-by-rules"]);
  const environments = take("environment", ["default"]);
  const now = Date.now();
  const timeSpan =
    times.length > 0
      ? { from: Math.min(...times) - 30 * DAY, to: Math.max(...times) + 30 * DAY }
      : { from: now - 365 * DAY, to: now + 365 * DAY };
  const properties = [...fields].map(([name, values]) => ({
    name,
    // A field only stickiness names gets values of its own to spread over.
    values: [
      ...values,
      ...(values.size === 0 ? Array.from({ length: 50 }, (_, i) => `${name}-${i + 1}`) : ["other"]),
    ],
    probability: 0.7,
  }));
  return { userIds, addresses, appNames, timeSpan, properties, environments };
}
