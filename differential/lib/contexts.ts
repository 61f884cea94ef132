import { CUSTOM_STICKINESS, POOLS, TIME_SPAN } from "./generate.js";
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
  /** The environment whose SDK token and frontend token evaluate this context. */
  environment: string;
  context: WireContext;
}

export function generateContexts(random: Random, count: number, environments: string[]): GeneratedContext[] {
  return Array.from({ length: count }, (_, index) => {
    const environment = environments[index % environments.length]!;
    const context: WireContext = { properties: {} };
    if (random.chance(0.8)) context.userId = random.pick(POOLS.userIds);
    if (random.chance(0.85))
      context.sessionId = random.chance(0.1) ? random.pick(["s-1", "s-2", "s-3"]) : `s-${random.int(1, 1e9)}`;
    if (random.chance(0.85)) context.remoteAddress = random.pick(POOLS.addresses);
    // Browser SDKs send the environment they are configured with, `default` unless told.
    const where = random.next();
    if (where < 0.8) context.environment = environment;
    else if (where < 0.9) context.environment = "default";
    if (random.chance(0.85)) context.appName = random.pick(POOLS.appNames);
    if (random.chance(0.8)) {
      const time = TIME_SPAN.from + random.next() * (TIME_SPAN.to - TIME_SPAN.from);
      context.currentTime = new Date(Math.floor(time / 1000) * 1000).toISOString();
    }
    const property = (name: string, pool: readonly string[], probability: number) => {
      if (random.chance(probability)) context.properties[name] = random.pick(pool);
    };
    property(CUSTOM_STICKINESS, POOLS.tenants, 0.7);
    property("plan", POOLS.plans, 0.7);
    property("country", POOLS.countries, 0.6);
    property("version", POOLS.versions, 0.6);
    property("age", POOLS.ages, 0.6);
    property("email", POOLS.emails, 0.6);
    return { index, environment, context };
  });
}
