import { noAccess } from "@signalbox/protocol";
import { can } from "../../access/can.js";
import type { Change } from "../events/service.js";
import { changeGateStore } from "./store.js";

/**
 * The first of the project's environments (any of them when `environments` is undefined)
 * that requires change requests and that this change may not pass: none while one of that
 * project's change requests is being applied, nor where the actor may skip them.
 */
export async function unreviewedIn(
  change: Change,
  project: string,
  environments?: readonly string[],
): Promise<string | undefined> {
  if (change.reviewed === project) return undefined;
  for (const environment of await changeGateStore.gated(change.db, project, environments)) {
    if (!can(change.actor, "SKIP_CHANGE_REQUEST", { project, environment })) return environment;
  }
  return undefined;
}

/** Refuses a direct change to environments that require change requests: it must go through one. */
export async function refuseUnreviewed(
  change: Change,
  project: string,
  environments?: readonly string[],
): Promise<void> {
  const environment = await unreviewedIn(change, project, environments);
  if (environment === undefined) return;
  throw noAccess(
    `Environment ${environment} of project ${project} requires change requests: add this change to a ` +
      `change request (POST /api/admin/projects/${project}/environments/${environment}/change-requests), ` +
      `or ask for the SKIP_CHANGE_REQUEST permission.`,
  );
}

/**
 * Refuses a change that no change request can hold (moving a flag, removing an environment)
 * where it would reach an environment that requires them: only those who may skip review there may.
 */
export async function refuseUnreviewable(
  change: Change,
  what: string,
  project: string,
  environments?: readonly string[],
): Promise<void> {
  const environment = await unreviewedIn(change, project, environments);
  if (environment === undefined) return;
  throw noAccess(
    `${what} is not allowed: environment ${environment} of project ${project} requires change requests, ` +
      `which cannot hold this change. It needs the SKIP_CHANGE_REQUEST permission there.`,
  );
}
