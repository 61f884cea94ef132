import type { Db } from "../../db/connection.js";
import type { PersonView } from "../users/schemas.js";
import { ACTION_SPECS, type Targets } from "./actions.js";
import type { Conflicts } from "./conflicts.js";
import type { Action, ChangeRequestView, ChangeView, SearchResultView, State } from "./schemas.js";
import type { ChangeRow, CommentRow, RequestRow, ReviewRow, ScheduleRow } from "./store.js";

type People = ReadonlyMap<number, PersonView>;

const author = (people: People, id: number | null) => {
  const user = id === null ? undefined : people.get(id);
  return {
    username: user ? (user.username ?? user.email ?? user.name) : null,
    imageUrl: user?.imageUrl ?? null,
  };
};
const reviewer = (people: People, id: number) => ({ id, ...author(people, id) });

/** A request without a title of its own is named by its number. */
export const requestTitle = (request: RequestRow) => request.title ?? `Change request #${request.id}`;

function scheduleView(schedule: ScheduleRow | undefined, state: string) {
  if (!schedule || state !== "Scheduled") return {};
  const status = schedule.status as "pending" | "failed" | "suspended";
  const reason = status === "pending" ? {} : { reason: schedule.reason ?? "" };
  const failure = status === "failed" ? { failureReason: schedule.reason } : {};
  return { schedule: { scheduledAt: schedule.scheduled_at.toISOString(), status, ...reason, ...failure } };
}

/**
 * The change switching a flag on also makes when it has no active strategy there (a 100%
 * rollout, as a direct switch adds): shown, so reviewers see all that will happen.
 */
async function defaultChange(
  db: Db,
  targets: Targets,
  request: RequestRow,
  feature: string,
  changes: ChangeRow[],
) {
  const enabling = changes.find((change) => change.action === "updateEnabled");
  const payload = enabling?.payload as
    | { enabled?: boolean; shouldActivateDisabledStrategies?: boolean }
    | undefined;
  if (!payload?.enabled || changes.some((change) => change.action === "addStrategy")) return {};
  const strategies = (await targets.strategies.ofFlags(db, [feature])).filter(
    (entry) => entry.environment === request.environment,
  );
  const active = strategies.some(
    (entry) => !entry.strategy.disabled || payload.shouldActivateDisabledStrategies === true,
  );
  if (active) return {};
  return {
    defaultChange: {
      action: "addStrategy",
      payload: {
        name: "flexibleRollout",
        constraints: [],
        parameters: { rollout: "100", stickiness: "default", groupId: feature },
      },
    },
  };
}

export interface RequestParts {
  request: RequestRow;
  changes: ChangeRow[];
  approvals: ReviewRow[];
  rejections: ReviewRow[];
  comments: CommentRow[];
  reviewers: { user_id: number }[];
  schedule: ScheduleRow | undefined;
  people: People;
  conflicts: Conflicts;
}

/** The spec's change request entity. */
export async function requestView(db: Db, targets: Targets, parts: RequestParts): Promise<ChangeRequestView> {
  const { request, people, conflicts } = parts;
  const change = (row: ChangeRow): ChangeView => {
    const conflict = conflicts.changes.get(row.id);
    return {
      id: row.id,
      action: row.action,
      ...(conflict ? { conflict } : {}),
      payload: row.payload,
      createdBy: author(people, row.created_by),
      createdAt: row.created_at.toISOString(),
    };
  };
  const byFeature = new Map<string, ChangeRow[]>();
  const segments: ChangeRequestView["segments"] = [];
  for (const row of parts.changes) {
    if (ACTION_SPECS[row.action as Action].segment) {
      const payload = row.payload as { id: number; name?: string };
      const current = await targets.segments.find(db, payload.id);
      segments.push({ ...change(row), name: current?.name ?? payload.name ?? `segment ${payload.id}` });
    } else {
      byFeature.set(row.feature!, [...(byFeature.get(row.feature!) ?? []), row]);
    }
  }
  const features: ChangeRequestView["features"] = [];
  for (const [name, rows] of byFeature) {
    const conflict = conflicts.features.get(name);
    features.push({
      name,
      ...(conflict ? { conflict } : {}),
      changes: rows.map(change),
      ...(request.state === "Applied" ? {} : await defaultChange(db, targets, request, name, rows)),
    });
  }
  const review = (row: ReviewRow) => ({
    createdBy: reviewer(people, row.user_id),
    createdAt: row.created_at.toISOString(),
  });
  return {
    id: request.id,
    title: requestTitle(request),
    environment: request.environment,
    minApprovals: request.min_approvals,
    project: request.project,
    features,
    segments,
    approvals: parts.approvals.map(review),
    rejections: parts.rejections.map(review),
    comments: parts.comments.map((row) => ({
      id: row.id,
      text: row.text,
      createdBy: author(people, row.created_by),
      createdAt: row.created_at.toISOString(),
    })),
    reviewers: parts.reviewers.map((row) => reviewer(people, row.user_id)),
    createdBy: { id: request.created_by, ...author(people, request.created_by) },
    createdAt: request.created_at.toISOString(),
    state: request.state as State,
    ...scheduleView(parts.schedule, request.state),
  };
}

/** A request as a listing shows it: what it touches, not how. */
export async function summaryView(
  db: Db,
  segments: Targets["segments"],
  parts: {
    request: RequestRow;
    changes: ChangeRow[];
    approvals: number;
    schedule: ScheduleRow | undefined;
    people: People;
  },
): Promise<SearchResultView["changeRequests"][number]> {
  const { request, people } = parts;
  const segmentNames: string[] = [];
  for (const row of parts.changes) {
    if (!ACTION_SPECS[row.action as Action].segment) continue;
    const payload = row.payload as { id: number; name?: string };
    segmentNames.push((await segments.find(db, payload.id))?.name ?? payload.name ?? `segment ${payload.id}`);
  }
  return {
    id: request.id,
    title: requestTitle(request),
    project: request.project,
    environment: request.environment,
    state: request.state as State,
    createdBy: { id: request.created_by, ...author(people, request.created_by) },
    createdAt: request.created_at.toISOString(),
    features: [...new Set(parts.changes.flatMap((row) => (row.feature === null ? [] : [row.feature])))],
    segments: [...new Set(segmentNames)],
    approvals: parts.approvals,
    minApprovals: request.min_approvals,
    ...scheduleView(parts.schedule, request.state),
  };
}
