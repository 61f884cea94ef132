import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { ApiError, api, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

const fetchMe = () => unwrap(api.GET("/api/admin/user"));

export type Me = Awaited<ReturnType<typeof fetchMe>>;

/** Who is logged in; `null` when nobody is (the service answered 401). */
export const meQuery = {
  queryKey: queryKeys.session.me(),
  queryFn: async () => {
    try {
      return await fetchMe();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null;
      throw error;
    }
  },
  staleTime: 60_000,
};

export function useMe() {
  return useQuery(meQuery);
}

export interface Scope {
  project?: string | undefined;
  environment?: string | undefined;
}

/** Whether the user may do it here, and if not, the reason a disabled control shows. */
export interface Verdict {
  allowed: boolean;
  reason: string | undefined;
}

/**
 * Whether the permissions the service lists for a person hold here, as its `can()` asks:
 * ADMIN holds everything; a root permission holds everywhere; a project permission in its
 * project; an environment permission in its project and environment.
 */
export function verdictOf(
  me: Me | null | undefined,
  permission: string | readonly string[],
  scope: Scope = {},
): Verdict {
  const wanted = typeof permission === "string" ? [permission] : permission;
  const granted = me?.permissions ?? [];
  const holds = (name: string) =>
    granted.some(
      (grant) =>
        grant.permission === "ADMIN" ||
        (grant.permission === name &&
          (grant.project === undefined || grant.project === scope.project) &&
          (grant.environment === undefined || grant.environment === scope.environment)),
    );
  if (wanted.some(holds)) return { allowed: true, reason: undefined };
  const where = [
    scope.project && `project ${scope.project}`,
    scope.environment && `environment ${scope.environment}`,
  ].filter(Boolean);
  return {
    allowed: false,
    reason: `You need the ${wanted.join(" or ")} permission${where.length ? ` in ${where.join(", ")}` : ""}.`,
  };
}

/**
 * The current user's permissions, asked as the service's `can()` asks them (see `verdictOf`).
 * The service decides again on every request: this only keeps people from controls that
 * would be refused.
 */
export function useCan() {
  const { data: me } = useMe();
  return useCallback(
    (permission: string | readonly string[], scope: Scope = {}): Verdict => verdictOf(me, permission, scope),
    [me],
  );
}

/** Forgets everything cached for the last user: a new login must not see their data. */
export function useForgetSession() {
  const client = useQueryClient();
  return useCallback(() => client.clear(), [client]);
}
