import type { Db } from "../../db/connection.js";
import type { Change } from "../events/service.js";
import { changeGateStore as store } from "./store.js";

/** The environments of the project that require change requests. */
export function gatedEnvironments(db: Db, project: string): Promise<string[]> {
  return store.gated(db, project);
}

/** How many approvals each environment of the project that requires change requests asks for. */
export async function requiredApprovals(db: Db, project: string): Promise<Map<string, number>> {
  return new Map((await store.settings(db, project)).map((row) => [row.environment, row.required_approvals]));
}

/** How many approvals a change request in the environment needs; undefined where none is required. */
export function approvalsIn(db: Db, project: string, environment: string): Promise<number | undefined> {
  return store.approvals(db, project, environment);
}

/**
 * Requires change requests in the environment, or stops requiring them. Turned on without
 * a number of approvals, it keeps the number it had, or asks for one.
 */
export async function configureGate(
  change: Change,
  place: { project: string; environment: string },
  input: { changeRequestsEnabled: boolean; requiredApprovals?: number },
): Promise<void> {
  const { project, environment } = place;
  const current = await store.approvals(change.db, project, environment);
  const approvals = input.changeRequestsEnabled ? (input.requiredApprovals ?? current ?? 1) : undefined;
  await store.configure(change.db, project, environment, approvals);
  change.record({
    type: "change-request-configuration-updated",
    project,
    environment,
    data: { changeRequestsEnabled: input.changeRequestsEnabled, requiredApprovals: approvals ?? null },
  });
}
