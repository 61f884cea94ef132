import { useCallback } from "react";
import { useCan, type Verdict } from "../auth/session";
import type { Flag } from "./queries";

/**
 * What the person may do to this flag, where: their permission in its project (and
 * environment), and nothing at all while it is archived, which the service refuses.
 */
export function useFlagCan(flag: Pick<Flag, "project" | "archived">) {
  const can = useCan();
  return useCallback(
    (permission: string | readonly string[], environment?: string): Verdict =>
      flag.archived
        ? { allowed: false, reason: "This flag is archived: revive it to change it." }
        : can(permission, { project: flag.project, environment }),
    [can, flag.archived, flag.project],
  );
}
