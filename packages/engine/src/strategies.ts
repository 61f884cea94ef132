import type { Context, CustomStrategy } from "./context.js";
import type { StrategyDefinition } from "./definitions.js";
import { fieldReader, randomId, remoteAddress, sessionId, userId } from "./fields.js";
import { bucketing } from "./hash.js";
import { inRanges, parseRange } from "./ip.js";

/** `fallback` stands in for the random id of `default` stickiness (EvaluationOptions). */
export type StrategyTest = (context: Context, fallback: string | undefined) => boolean;

/** The strategies the engine evaluates without a host's help; SDKs announce them when registering. */
export const BUILT_IN_STRATEGIES = [
  "default",
  "userWithId",
  "flexibleRollout",
  "gradualRolloutUserId",
  "gradualRolloutSessionId",
  "gradualRolloutRandom",
  "remoteAddress",
  "applicationHostname",
] as const;

export type BuiltInStrategy = (typeof BUILT_IN_STRATEGIES)[number];

const always: StrategyTest = () => true;
const never: StrategyTest = () => false;

/**
 * The test of a strategy whose answer depends on what the engine was not given: a name
 * neither built in nor supplied by the host, or applicationHostname without a hostname.
 * It is off, as any other false strategy; `Snapshot.explain` reports it as undecided.
 */
export const UNDECIDABLE: StrategyTest = () => false;

function parameter(parameters: StrategyDefinition["parameters"], name: string): string | undefined {
  const value = parameters?.[name];
  return value === undefined || value === null ? undefined : String(value);
}

function percentage(text: string | undefined): number {
  if (text === undefined || text.trim() === "") return Number.NaN;
  return Number(text);
}

function commaList(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

type Identify = (context: Context, fallback: string | undefined) => string | undefined;

function rollout(percent: number, groupId: string, identify: Identify): StrategyTest {
  if (!(percent > 0)) return never;
  const bucket = bucketing(groupId);
  return (context, fallback) => {
    const id = identify(context, fallback);
    return id !== undefined && bucket(id) <= percent;
  };
}

function stickyIdentifier(stickiness: string): Identify {
  if (stickiness === "default") {
    return (context, fallback) => userId(context) ?? sessionId(context) ?? fallback ?? randomId();
  }
  if (stickiness === "random") return () => randomId();
  return fieldReader(stickiness);
}

export interface StrategyEnvironment {
  featureName: string;
  hostname: string | undefined;
  custom: ReadonlyMap<string, CustomStrategy>;
}

/** The activation test of one strategy, parameters parsed once. Unknown names are off. */
export function compileStrategy(definition: StrategyDefinition, env: StrategyEnvironment): StrategyTest {
  const parameters = definition.parameters ?? {};
  switch (definition.name) {
    case "default":
      return always;
    case "userWithId": {
      const ids = new Set(commaList(parameter(parameters, "userIds")));
      return (context) => {
        const id = userId(context);
        return id !== undefined && ids.has(id);
      };
    }
    case "flexibleRollout": {
      // The service always sends groupId; without it the flag name keeps users apart per flag.
      const groupId = parameter(parameters, "groupId") ?? env.featureName;
      const stickiness = parameter(parameters, "stickiness") || "default";
      return rollout(percentage(parameter(parameters, "rollout")), groupId, stickyIdentifier(stickiness));
    }
    case "gradualRolloutUserId":
    case "gradualRolloutSessionId": {
      const field = definition.name === "gradualRolloutUserId" ? "userId" : "sessionId";
      const groupId = parameter(parameters, "groupId") ?? "";
      return rollout(percentage(parameter(parameters, "percentage")), groupId, fieldReader(field));
    }
    case "gradualRolloutRandom": {
      const percent = percentage(parameter(parameters, "percentage"));
      if (!(percent > 0)) return never;
      return () => Math.floor(Math.random() * 100) + 1 <= percent;
    }
    case "remoteAddress": {
      const entries = commaList(parameter(parameters, "IPs"));
      const exact = new Set(entries);
      const ranges = entries.flatMap((entry) => parseRange(entry) ?? []);
      return (context) => {
        const address = remoteAddress(context);
        return address !== undefined && (exact.has(address) || inRanges(ranges, address));
      };
    }
    case "applicationHostname": {
      const hosts = new Set(commaList(parameter(parameters, "hostNames")).map((host) => host.toLowerCase()));
      if (env.hostname === undefined) return UNDECIDABLE;
      return hosts.has(env.hostname.toLowerCase()) ? always : never;
    }
    default: {
      const custom = env.custom.get(definition.name);
      if (!custom) return UNDECIDABLE;
      const stringParameters: Record<string, string> = {};
      for (const [name, value] of Object.entries(parameters)) {
        if (value !== undefined && value !== null) stringParameters[name] = String(value);
      }
      return (context) => {
        try {
          return custom.isEnabled(stringParameters, context) === true;
        } catch {
          return false;
        }
      };
    }
  }
}
