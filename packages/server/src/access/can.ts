import { noAccess } from "@signalbox/protocol";
import type { Actor } from "./actor.js";
import { userCan, userSees } from "./grants.js";
import { type Permission, ROOT_PERMISSIONS } from "./permissions.js";

/** Where a permission is asked for: a project's permissions hold in that project only. */
export interface Scope {
  project?: string | undefined;
  environment?: string | undefined;
}

const rootPermissions: ReadonlySet<Permission> = new Set(ROOT_PERMISSIONS);
const isRoot = (permission: Permission) => rootPermissions.has(permission);

/**
 * The one answer to "may this actor do this here". Admin tokens and the system hold every
 * permission; SDK tokens hold only the permission of their kind, within their projects
 * and environment; users hold what their roles give them (see grants.ts).
 */
export function can(actor: Actor, permission: Permission, scope: Scope = {}): boolean {
  if (actor.kind === "system") return true;
  if (actor.kind === "user") return userCan(actor.grants, permission, scope, isRoot);
  if (actor.type === "admin") return true;
  if (permission !== (actor.type === "client" ? "CLIENT" : "FRONTEND")) return false;
  const inProject =
    scope.project === undefined || actor.projects.includes("*") || actor.projects.includes(scope.project);
  const inEnvironment =
    scope.environment === undefined || actor.environment === "*" || actor.environment === scope.environment;
  return inProject && inEnvironment;
}

/** Whether the project exists for this actor: a private project is hidden from all but its members. */
export function canSee(actor: Actor, project: string): boolean {
  return actor.kind !== "user" || userSees(actor.grants, project);
}

/** The private projects hidden from the actor, for reads that filter in SQL (the event log). */
export function hiddenProjects(actor: Actor): string[] {
  if (actor.kind !== "user" || actor.grants.root.has("ADMIN")) return [];
  return [...actor.grants.modes]
    .filter(([project, mode]) => mode === "private" && !actor.grants.projects.has(project))
    .map(([project]) => project);
}

/** Refuses unless the actor holds at least one of the permissions; the refusal names them. */
export function requirePermission(
  actor: Actor,
  permissions: Permission | readonly Permission[],
  scope: Scope = {},
): void {
  const wanted = typeof permissions === "string" ? [permissions] : permissions;
  if (wanted.some((permission) => can(actor, permission, scope))) return;
  throw noAccess(refusal(actor, wanted, scope));
}

function who(actor: Actor): string {
  if (actor.kind === "token") return `This ${actor.type} token`;
  if (actor.kind === "user") return `User ${actor.name}`;
  return "This caller";
}

function refusal(actor: Actor, wanted: readonly Permission[], scope: Scope): string {
  if (wanted.includes("NONE")) {
    return `${who(actor)} cannot use the admin API: it needs a person's login, a personal access token or an admin token (permission NONE).`;
  }
  const names = wanted.map((permission) => `"${permission}"`).join(" or ");
  const places = [
    scope.project === undefined ? undefined : `project "${scope.project}"`,
    scope.environment === undefined ? undefined : `environment "${scope.environment}"`,
  ].filter(Boolean);
  const where = places.length === 0 ? "" : ` in ${places.join(" and ")}`;
  return `${who(actor)} lacks the ${names} permission${wanted.length > 1 ? "s" : ""} needed here${where}.`;
}
