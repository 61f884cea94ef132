import { noAccess } from "@signalbox/protocol";
import { can } from "../../access/can.js";
import type { Change } from "../events/service.js";
import { changeRequestStore } from "./store.js";

/**
 * Refuses a direct change to environments of the project that require change requests
 * (any of the project's when `environments` is undefined): it must go through a change
 * request, unless it is one being applied or the actor may skip them.
 */
export async function refuseUnreviewed(
  change: Change,
  project: string,
  environments?: readonly string[],
): Promise<void> {
  if (change.reviewed) return;
  for (const environment of await changeRequestStore.gated(change.db, project, environments)) {
    if (can(change.actor, "SKIP_CHANGE_REQUEST", { project, environment })) continue;
    throw noAccess(
      `Environment ${environment} of project ${project} requires change requests: add this change to a ` +
        `change request (POST /api/admin/projects/${project}/environments/${environment}/change-requests), ` +
        `or ask for the SKIP_CHANGE_REQUEST permission.`,
    );
  }
}
