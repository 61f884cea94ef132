import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";
import { api, unwrap } from "../api/client";
import { meQuery, useCan, verdictOf } from "../auth/session";
import { notifyDone } from "../components/notify";
import {
  type ChangeInput,
  type ChangeRequest,
  configQuery,
  type EnvironmentConfig,
  useChangeRequestConfig,
  useChangeRequestsChanged,
} from "./queries";

/** What became of a change: made at once, or added to the person's draft for its environment. */
export type Outcome = { drafted: false } | { drafted: true; request: ChangeRequest };

/**
 * Whether a person's change in `environment` must go through a change request: the
 * environment requires them and the person may not skip them (admins may).
 */
export function needsRequest(
  configs: readonly EnvironmentConfig[],
  environment: string,
  maySkip: (environment: string) => boolean,
): boolean {
  const gated = configs.some((entry) => entry.environment === environment && entry.changeRequestEnabled);
  return gated && !maySkip(environment);
}

/**
 * Where a change to the flag as a whole (archiving it, its dependencies) goes when the
 * service refuses it directly: the first environment that requires review of this person,
 * production ones first, as the service refuses such a change if any environment does.
 */
export function flagWideEnvironment(
  configs: readonly EnvironmentConfig[],
  maySkip: (environment: string) => boolean,
): string | undefined {
  const gated = configs.filter((entry) => needsRequest(configs, entry.environment, maySkip));
  return (gated.find((entry) => entry.type === "production") ?? gated[0])?.environment;
}

/**
 * The one place a flag's screens make a change: `direct` when the person may make it
 * directly, otherwise `change` is added to their draft for the environment and they are
 * told so. The project's configuration is fetched first when not yet known, so a change
 * made before it loaded is not sent to be refused.
 */
export function useChangeGate(projectId: string) {
  const client = useQueryClient();
  const can = useCan();
  const config = useChangeRequestConfig(projectId);
  const changed = useChangeRequestsChanged();
  const maySkip = useCallback(
    (environment: string) => can("SKIP_CHANGE_REQUEST", { project: projectId, environment }).allowed,
    [can, projectId],
  );
  // At the time of the change, both known for sure: a change made before the screen had
  // loaded them is neither sent directly to be refused nor drafted for someone who may skip.
  const known = useCallback(async () => {
    const [configs, me] = await Promise.all([
      client.ensureQueryData(configQuery(projectId)),
      client.ensureQueryData(meQuery),
    ]);
    const skips = (environment: string) =>
      verdictOf(me, "SKIP_CHANGE_REQUEST", { project: projectId, environment }).allowed;
    return { configs, skips };
  }, [client, projectId]);

  const draft = useCallback(
    async (environment: string, change: ChangeInput | ChangeInput[]): Promise<Outcome> => {
      const request = await unwrap(
        api.POST("/api/admin/projects/{projectId}/environments/{environment}/change-requests", {
          params: { path: { projectId, environment } },
          body: change,
        }),
      );
      await changed();
      notifyDone(`Added to your draft for ${environment}: review your changes and send them for review.`);
      return { drafted: true, request };
    },
    [projectId, changed],
  );

  return useMemo(
    () => ({
      /** Known at once (false until the configuration has loaded): for what a control says. */
      requiresRequest: (environment: string) =>
        config.data ? needsRequest(config.data, environment, maySkip) : false,
      /** The environment a flag-wide change is drafted in, if it must be. */
      flagWideEnvironment: () => (config.data ? flagWideEnvironment(config.data, maySkip) : undefined),

      /** A change in one environment. */
      async send(
        environment: string,
        change: ChangeInput | ChangeInput[],
        direct: () => Promise<unknown>,
      ): Promise<Outcome> {
        const { configs, skips } = await known();
        if (needsRequest(configs, environment, skips)) return draft(environment, change);
        await direct();
        return { drafted: false };
      },

      /** A change to the flag as a whole, which every gated environment of the project reviews. */
      async sendFlagWide(change: ChangeInput, direct: () => Promise<unknown>): Promise<Outcome> {
        const { configs, skips } = await known();
        const environment = flagWideEnvironment(configs, skips);
        if (environment !== undefined) return draft(environment, change);
        await direct();
        return { drafted: false };
      },

      /** The same change in several environments: split into those made directly and those drafted. */
      async partition(environments: readonly string[]) {
        const { configs, skips } = await known();
        return {
          direct: environments.filter((environment) => !needsRequest(configs, environment, skips)),
          drafted: environments.filter((environment) => needsRequest(configs, environment, skips)),
        };
      },
      draft,
    }),
    [config.data, known, draft, maySkip],
  );
}

export type ChangeGate = ReturnType<typeof useChangeGate>;
