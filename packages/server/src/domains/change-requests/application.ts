import { ApiError } from "@signalbox/protocol";
import type { Change, EventService } from "../events/service.js";
import { ACTION_SPECS, type Place, type Targets } from "./actions.js";
import type {} from "./events.js";
import { subject } from "./rules.js";
import type { Action } from "./schemas.js";
import { type RequestRow, changeRequestStore as store } from "./store.js";

/**
 * Applies every change of the request, in order, through the services a direct change uses,
 * as reviewed changes to its project; one failing undoes all. The request is then Applied.
 */
export async function applyRequest(
  events: EventService,
  targets: Targets,
  change: Change,
  request: RequestRow,
): Promise<void> {
  const changes = await store.changes(change.db, [request.id]);
  await events.change(
    change.actor,
    async () => {
      for (const [index, row] of changes.entries()) {
        const place: Place = {
          project: request.project,
          environment: request.environment,
          feature: row.feature,
        };
        try {
          await ACTION_SPECS[row.action as Action].apply(targets, change.actor, place, row.payload as never);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          const what = row.feature ? `${row.action} on ${row.feature}` : row.action;
          throw new ApiError(
            error.name,
            `Change ${index + 1} of ${changes.length} (${what}) could not be applied, so none was: ${error.message}`,
            error.details,
          );
        }
      }
    },
    { reviewed: request.project },
  );
  await store.update(change.db, request.id, { state: "Applied" });
  await store.unschedule(change.db, request.id);
  change.record({
    type: "change-request-applied",
    ...subject(request),
    data: { changeRequestId: request.id },
  });
}
