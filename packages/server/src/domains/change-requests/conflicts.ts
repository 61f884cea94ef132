import type { Db } from "../../db/connection.js";
import { ACTION_SPECS, changedRefs, type Place, type Refs, type Targets } from "./actions.js";
import type { Action } from "./schemas.js";
import type { ChangeRow, RequestRow } from "./store.js";

/** What no longer fits: per flag (archived, deleted, moved) and per change (its target changed). */
export class Conflicts {
  readonly features = new Map<string, string>();
  readonly changes = new Map<number, string>();
  get count(): number {
    return this.features.size + this.changes.size;
  }
  summary(): string {
    return [
      ...[...this.features].map(([feature, why]) => `${feature}: ${why}`),
      ...[...this.changes].map(([id, why]) => `change ${id}: ${why}`),
    ].join(" ");
  }
}

/** What no longer fits in the request's changes: flags archived or moved, targets changed. */
export async function conflictsOf(
  targets: Targets,
  db: Db,
  request: RequestRow,
  changes: ChangeRow[],
): Promise<Conflicts> {
  const result = new Conflicts();
  for (const feature of new Set(changes.flatMap((row) => (row.feature === null ? [] : [row.feature])))) {
    const flag = await targets.flags.find(db, feature);
    if (!flag) result.features.set(feature, "The flag has been deleted.");
    else if (flag.archived) result.features.set(feature, "The flag has been archived.");
    else if (flag.project !== request.project)
      result.features.set(feature, `The flag has moved to project ${flag.project}.`);
  }
  for (const row of changes) {
    if (row.feature !== null && result.features.has(row.feature)) continue;
    const place: Place = {
      project: request.project,
      environment: request.environment,
      feature: row.feature,
    };
    const spec = ACTION_SPECS[row.action as Action];
    const why =
      (await spec.conflict?.(targets, db, place, row.payload as never, row.snapshot)) ??
      (await changedReferences(targets, db, place, row));
    if (why) result.changes.set(row.id, why);
  }
  return result;
}

/** Why a change no longer applies what was reviewed: something it refers to has changed since. */
async function changedReferences(
  targets: Targets,
  db: Db,
  place: Place,
  row: ChangeRow,
): Promise<string | undefined> {
  const refs = ACTION_SPECS[row.action as Action].refs;
  // Changes drafted before references were kept have none to compare.
  if (!refs || row.refs === null) return undefined;
  const changed = changedRefs(row.refs as Refs, await refs(targets, db, place, row.payload as never));
  if (changed.length === 0) return undefined;
  return `What it refers to has changed since it was made (${changed.join(", ")}).`;
}
