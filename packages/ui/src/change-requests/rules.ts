import type { Scope, Verdict } from "../auth/session";
import type { ChangeRequest, State } from "./queries";

/** Who is looking at a request: their id, whether they are an admin, what they may do where. */
export interface Viewer {
  id: number | undefined;
  admin: boolean;
  can: (permission: string, scope: Scope) => Verdict;
}

/** What can be done to a request, each shown in the states where it applies. */
export type RequestAction =
  | "submit"
  | "approve"
  | "reject"
  | "apply"
  | "schedule"
  | "applyNow"
  | "reschedule"
  | "cancel"
  | "discard"
  | "editTitle"
  | "askReviewers"
  | "editChanges";

export const OPEN_STATES: readonly State[] = ["Draft", "In review", "Approved", "Scheduled"];

const ALLOWED: Verdict = { allowed: true, reason: undefined };
const refused = (reason: string): Verdict => ({ allowed: false, reason });

/** Which of the request's changes no longer fit what they change; Apply waits until none do. */
export function hasConflicts(request: Pick<ChangeRequest, "features" | "segments">): boolean {
  return (
    request.features.some(
      (feature) => feature.conflict || feature.changes.some((change) => change.conflict),
    ) || request.segments.some((change) => change.conflict)
  );
}

/**
 * The actions the request's state offers, each with whether this viewer may take it and
 * why not: the service's rules (only the author submits, edits and discards; someone else
 * reviews, unless they are an admin; applying needs its permission and no conflict).
 * Absent: not offered in this state at all.
 */
export function requestActions(
  request: Pick<
    ChangeRequest,
    "state" | "createdBy" | "project" | "environment" | "approvals" | "features" | "segments"
  >,
  viewer: Viewer,
): Partial<Record<RequestAction, Verdict>> {
  const scope = { project: request.project, environment: request.environment };
  const author = viewer.id !== undefined && request.createdBy.id === viewer.id;
  const authorOrAdmin = (what: string) =>
    author || viewer.admin ? ALLOWED : refused(`Only its author or an admin can ${what}.`);
  const authorOnly = (reason: string) => (author ? ALLOWED : refused(reason));
  const review = (what: "approve" | "reject") => {
    const permitted = viewer.can("APPROVE_CHANGE_REQUEST", scope);
    if (!permitted.allowed) return permitted;
    if (author && !viewer.admin) return refused(`You cannot ${what} your own change request.`);
    return ALLOWED;
  };
  const apply = () => {
    const permitted = viewer.can("APPLY_CHANGE_REQUEST", scope);
    if (!permitted.allowed) return permitted;
    if (hasConflicts(request)) {
      return refused("Some changes conflict with the flag as it is now: edit or discard them first.");
    }
    return ALLOWED;
  };
  const schedule = () => viewer.can("APPLY_CHANGE_REQUEST", scope);
  const empty = request.features.length === 0 && request.segments.length === 0;

  switch (request.state) {
    case "Draft":
      return {
        submit: author
          ? empty
            ? refused("The draft holds no changes.")
            : ALLOWED
          : refused("Only its author can send it for review."),
        discard: authorOnly("Only its author can discard a draft."),
        editTitle: authorOrAdmin("change its title"),
        askReviewers: authorOrAdmin("choose whom to ask for a review"),
        editChanges: authorOnly("Only its author can change what it holds."),
      };
    case "In review": {
      const approve = review("approve");
      const already = request.approvals.some((approval) => approval.createdBy.id === viewer.id);
      return {
        approve:
          approve.allowed && already ? refused("You have already approved this change request.") : approve,
        reject: review("reject"),
        cancel: authorOrAdmin("cancel it"),
        editTitle: authorOrAdmin("change its title"),
        askReviewers: authorOrAdmin("choose whom to ask for a review"),
        editChanges: authorOnly("Only its author can change what it holds."),
      };
    }
    case "Approved":
      return {
        apply: apply(),
        schedule: schedule(),
        reject: review("reject"),
        cancel: authorOrAdmin("cancel it"),
        editTitle: authorOrAdmin("change its title"),
        askReviewers: authorOrAdmin("choose whom to ask for a review"),
        editChanges: authorOnly("Only its author can change what it holds."),
      };
    case "Scheduled":
      return {
        applyNow: apply(),
        reschedule: schedule(),
        reject: review("reject"),
        cancel: authorOrAdmin("cancel it"),
        editTitle: authorOrAdmin("change its title"),
        askReviewers: authorOrAdmin("choose whom to ask for a review"),
        editChanges: refused("A scheduled change request cannot be edited: reject it, or apply it now."),
      };
    default:
      return {};
  }
}

/** How a state is shown. */
export const STATE_COLORS: Record<State, string> = {
  Draft: "gray",
  "In review": "yellow",
  Approved: "teal",
  Scheduled: "indigo",
  Applied: "green",
  Cancelled: "dark",
  Rejected: "red",
};
