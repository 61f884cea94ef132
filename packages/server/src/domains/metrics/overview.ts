import { isOutdatedSdk } from "./outdated-sdks.js";
import type { ApplicationOverview } from "./schemas.js";
import type { SdkType } from "./store.js";

/** A flag an application used in an environment; `project` is absent for a name no flag has. */
export interface FlagUse {
  featureName: string;
  environment: string;
  project: string | undefined;
}

export interface InstanceSeen {
  instanceId: string;
  environment: string;
  sdkVersion: string | null;
  sdkType: SdkType | null;
  lastSeen: Date;
}

// Built-in strategies the reference has since dropped: older SDKs still announce them, and
// they are no sign of a strategy missing here.
const RETIRED_STRATEGIES = new Set([
  "gradualRolloutRandom",
  "gradualRolloutSessionId",
  "gradualRolloutUserId",
  "userWithId",
]);

const sorted = (values: Iterable<string>): string[] =>
  [...new Set(values)].sort((a, b) => a.localeCompare(b));

/**
 * An application at a glance: the projects and flags it uses, and per environment its
 * instances, their SDKs and what looks wrong (flags that do not exist, outdated SDKs,
 * strategies it announces that are not defined). An environment is listed once the
 * application used a flag or an instance of it was heard from there.
 */
export function applicationOverview(
  uses: readonly FlagUse[],
  instances: readonly InstanceSeen[],
  strategies: { announced: readonly string[]; defined: ReadonlySet<string> },
): ApplicationOverview {
  const environments = sorted([...uses, ...instances].map((entry) => entry.environment));
  return {
    projects: sorted(uses.flatMap((use) => (use.project === undefined ? [] : [use.project]))),
    featureCount: new Set(uses.map((use) => use.featureName)).size,
    environments: environments.map((name) => {
      const here = instances.filter((instance) => instance.environment === name);
      const versions = (type?: SdkType) =>
        sorted(
          here.flatMap((instance) =>
            instance.sdkVersion !== null && (type === undefined || instance.sdkType === type)
              ? [instance.sdkVersion]
              : [],
          ),
        );
      const sdks = versions();
      const lastSeen = here.reduce<Date | null>(
        (latest, instance) => (latest === null || instance.lastSeen > latest ? instance.lastSeen : latest),
        null,
      );
      return {
        name,
        instanceCount: new Set(here.map((instance) => instance.instanceId)).size,
        sdks,
        frontendSdks: versions("frontend"),
        backendSdks: versions("backend"),
        lastSeen: lastSeen?.toISOString() ?? null,
        issues: {
          missingFeatures: sorted(
            uses
              .filter((use) => use.environment === name && use.project === undefined)
              .map((use) => use.featureName),
          ),
          outdatedSdks: sdks.filter(isOutdatedSdk),
        },
      };
    }),
    issues: {
      missingStrategies: sorted(
        strategies.announced.filter((name) => !strategies.defined.has(name) && !RETIRED_STRATEGIES.has(name)),
      ),
    },
  };
}
