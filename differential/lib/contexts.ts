// The differential test's contexts: the shared generator, drawing from the pools its
// generated configuration uses.
import {
  type ContextPools,
  type GeneratedContext,
  generateContexts as generate,
  type Random,
} from "@signalbox/server/compare";
import { CUSTOM_STICKINESS, POOLS, TIME_SPAN } from "./generate.js";

export type { GeneratedContext, WireContext } from "@signalbox/server/compare";

const PROPERTIES: ContextPools["properties"] = [
  { name: CUSTOM_STICKINESS, values: POOLS.tenants, probability: 0.7 },
  { name: "plan", values: POOLS.plans, probability: 0.7 },
  { name: "country", values: POOLS.countries, probability: 0.6 },
  { name: "version", values: POOLS.versions, probability: 0.6 },
  { name: "age", values: POOLS.ages, probability: 0.6 },
  { name: "email", values: POOLS.emails, probability: 0.6 },
];

export function generateContexts(random: Random, count: number, environments: string[]): GeneratedContext[] {
  return generate(random, count, environments, {
    userIds: POOLS.userIds,
    addresses: POOLS.addresses,
    appNames: POOLS.appNames,
    timeSpan: TIME_SPAN,
    properties: PROPERTIES,
  });
}
