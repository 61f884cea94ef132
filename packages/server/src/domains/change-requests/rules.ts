import { conflict, noAccess, notFound } from "@signalbox/protocol";
import type { Actor, UserActor } from "../../access/actor.js";
import { canSee, requirePermission } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import type { ProjectService } from "../projects/service.js";
import { OPEN_STATES, type State } from "./schemas.js";
import { type RequestRow, changeRequestStore as store } from "./store.js";

/** What the rules ask of projects: whether one is active, and which environments it uses. */
export type Projects = Pick<ProjectService, "requireActive" | "environmentsOf">;

export const isAdmin = (actor: UserActor) => actor.grants.root.has("ADMIN");

/** Change requests are written and reviewed by people; API tokens have no one to name. */
export function person(actor: Actor): UserActor {
  if (actor.kind === "user") return actor;
  throw noAccess(
    "Change requests are made and reviewed by people: log in, or use a personal access token. API tokens have no user.",
  );
}

/** Where a request's permissions are checked and its events recorded. */
export const subject = (request: RequestRow) => ({
  project: request.project,
  environment: request.environment,
});

export const missing = (id: number, project: string) =>
  notFound(`Project ${project} has no change request ${id}`);

export async function requireProject(
  projects: Projects,
  db: Db,
  actor: Actor,
  project: string,
): Promise<void> {
  if (!canSee(actor, project)) throw notFound(`Active project with id ${project} does not exist`);
  await projects.requireActive(db, project);
}

export async function requireEnvironment(
  projects: Projects,
  db: Db,
  actor: Actor,
  project: string,
  environment: string,
): Promise<void> {
  await requireProject(projects, db, actor, project);
  if (!(await projects.environmentsOf(db, project)).includes(environment)) {
    throw notFound(`Environment ${environment} is not enabled in project ${project}`);
  }
}

/** The request, locked for the transaction, when it is in the project and the actor sees it. */
export async function lockedRequest(
  projects: Projects,
  db: Db,
  actor: Actor,
  project: string,
  id: number,
): Promise<RequestRow> {
  await requireProject(projects, db, actor, project);
  const request = await store.lock(db, id);
  if (!request || request.project !== project) throw missing(id, project);
  return request;
}

export function requireState(request: RequestRow, states: readonly State[], what: string): void {
  if (!states.includes(request.state as State)) {
    throw conflict(`Change request ${request.id} is ${request.state} and cannot be ${what}.`);
  }
}

export function requireOpen(request: RequestRow): void {
  requireState(request, OPEN_STATES, "changed");
}

export function requireAuthorOrAdmin(user: UserActor, request: RequestRow, what: string): void {
  if (request.created_by !== user.userId && !isAdmin(user))
    throw noAccess(`Only its author or an admin can ${what}.`);
}

/** Someone other than the author (an admin may review their own) holding the approve permission there. */
export function requireReviewer(user: UserActor, request: RequestRow, what: string): void {
  requirePermission(user, "APPROVE_CHANGE_REQUEST", subject(request));
  if (request.created_by === user.userId && !isAdmin(user)) {
    throw noAccess(`You cannot ${what} your own change request: someone else must review it.`);
  }
}

export function requireApplier(user: UserActor, request: RequestRow): void {
  requirePermission(user, "APPLY_CHANGE_REQUEST", subject(request));
}
