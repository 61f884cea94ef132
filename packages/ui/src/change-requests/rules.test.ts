import { describe, expect, it } from "vitest";
import type { Scope, Verdict } from "../auth/session";
import type { ChangeRequest, State } from "./queries";
import { hasConflicts, requestActions, type Viewer } from "./rules";

const AUTHOR = 7;
const OTHER = 8;

function request(state: State, extra: Partial<ChangeRequest> = {}) {
  return {
    state,
    project: "web",
    environment: "production",
    createdBy: { id: AUTHOR, username: "ann", imageUrl: null },
    approvals: [],
    features: [
      {
        name: "checkout",
        changes: [
          {
            id: 1,
            action: "updateEnabled",
            payload: { enabled: true },
            createdBy: { username: "ann", imageUrl: null },
            createdAt: "2026-01-01T00:00:00.000Z",
          },
        ],
      },
    ],
    segments: [],
    ...extra,
  };
}

/** Someone holding exactly these permissions in web/production. */
function viewer(id: number, held: string[], admin = false): Viewer {
  return {
    id,
    admin,
    can: (permission: string, scope: Scope): Verdict =>
      admin || (held.includes(permission) && scope.project === "web" && scope.environment === "production")
        ? { allowed: true, reason: undefined }
        : { allowed: false, reason: `You need the ${permission} permission.` },
  };
}

const reviewer = viewer(OTHER, ["APPROVE_CHANGE_REQUEST", "APPLY_CHANGE_REQUEST"]);
const author = viewer(AUTHOR, ["APPROVE_CHANGE_REQUEST", "APPLY_CHANGE_REQUEST"]);
const offered = (actions: object) => Object.keys(actions).sort();

describe("requestActions", () => {
  it("offers a draft's author to submit or discard it, and no one else", () => {
    const mine = requestActions(request("Draft"), author);
    expect(offered(mine)).toEqual(["askReviewers", "discard", "editChanges", "editTitle", "submit"]);
    expect(mine.submit?.allowed).toBe(true);
    expect(mine.discard?.allowed).toBe(true);

    const theirs = requestActions(request("Draft"), reviewer);
    expect(theirs.submit).toEqual({ allowed: false, reason: "Only its author can send it for review." });
    expect(theirs.discard?.allowed).toBe(false);
    expect(theirs.askReviewers).toEqual({
      allowed: false,
      reason: "Only its author or an admin can choose whom to ask for a review.",
    });
    expect(theirs.approve).toBeUndefined();
  });

  it("keeps an empty draft from review", () => {
    const empty = requestActions(request("Draft", { features: [] }), author);
    expect(empty.submit).toEqual({ allowed: false, reason: "The draft holds no changes." });
  });

  it("lets someone else approve a request in review, but not its author, unless they are an admin", () => {
    expect(requestActions(request("In review"), reviewer).approve?.allowed).toBe(true);
    expect(requestActions(request("In review"), author).approve).toEqual({
      allowed: false,
      reason: "You cannot approve your own change request.",
    });
    expect(requestActions(request("In review"), author).reject?.reason).toBe(
      "You cannot reject your own change request.",
    );
    expect(requestActions(request("In review"), viewer(AUTHOR, [], true)).approve?.allowed).toBe(true);
  });

  it("needs the approve permission in the request's environment, and says so", () => {
    const member = viewer(OTHER, ["APPLY_CHANGE_REQUEST"]);
    expect(requestActions(request("In review"), member).approve).toEqual({
      allowed: false,
      reason: "You need the APPROVE_CHANGE_REQUEST permission.",
    });
  });

  it("does not offer a second approval from the same person", () => {
    const approvedOnce = request("In review", {
      approvals: [
        { createdBy: { id: OTHER, username: "raj", imageUrl: null }, createdAt: "2026-01-01T00:00:00.000Z" },
      ],
    });
    expect(requestActions(approvedOnce, reviewer).approve?.reason).toBe(
      "You have already approved this change request.",
    );
  });

  it("offers an approved request to be applied or scheduled by whoever may apply, its author included", () => {
    const actions = requestActions(request("Approved"), author);
    expect(offered(actions)).toEqual([
      "apply",
      "askReviewers",
      "cancel",
      "editChanges",
      "editTitle",
      "reject",
      "schedule",
    ]);
    expect(actions.apply?.allowed).toBe(true);
    expect(actions.schedule?.allowed).toBe(true);
    const without = requestActions(request("Approved"), viewer(OTHER, []));
    expect(without.apply?.reason).toBe("You need the APPLY_CHANGE_REQUEST permission.");
    expect(without.cancel?.reason).toBe("Only its author or an admin can cancel it.");
  });

  it("blocks applying while a change conflicts", () => {
    const conflicting = request("Approved", {
      features: [
        {
          name: "checkout",
          changes: [
            {
              id: 1,
              action: "deleteStrategy",
              conflict: "The strategy has been deleted since this change was made.",
              payload: { id: "s1" },
              createdBy: { username: "ann", imageUrl: null },
              createdAt: "2026-01-01T00:00:00.000Z",
            },
          ],
        },
      ],
    });
    expect(hasConflicts(conflicting)).toBe(true);
    expect(requestActions(conflicting, reviewer).apply?.allowed).toBe(false);
    expect(requestActions(conflicting, reviewer).schedule?.allowed).toBe(true);
  });

  it("offers a scheduled request to be applied now or rescheduled, never edited", () => {
    const actions = requestActions(request("Scheduled"), author);
    expect(offered(actions)).toEqual([
      "applyNow",
      "askReviewers",
      "cancel",
      "editChanges",
      "editTitle",
      "reject",
      "reschedule",
    ]);
    expect(actions.editChanges).toEqual({
      allowed: false,
      reason: "A scheduled change request cannot be edited: reject it, or apply it now.",
    });
  });

  it("offers nothing once a request is closed", () => {
    for (const state of ["Applied", "Cancelled", "Rejected"] as const) {
      expect(requestActions(request(state), viewer(AUTHOR, [], true))).toEqual({});
    }
  });
});
