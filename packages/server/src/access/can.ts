import { noAccess } from "@signalbox/protocol";
import type { Actor } from "./actor.js";
import type { Permission } from "./permissions.js";

/** Where a permission is asked for: a project's permissions hold in that project only. */
export interface Scope {
  project?: string | undefined;
  environment?: string | undefined;
}

/**
 * The one answer to "may this actor do this here". Admin tokens and the system hold every
 * permission; SDK tokens hold only the permission of their kind, within their projects
 * and environment. Users and roles answer here too, once they exist.
 */
export function can(actor: Actor, permission: Permission, scope: Scope = {}): boolean {
  if (actor.kind === "system") return true;
  if (actor.type === "admin") return true;
  if (permission !== (actor.type === "client" ? "CLIENT" : "FRONTEND")) return false;
  const inProject =
    scope.project === undefined || actor.projects.includes("*") || actor.projects.includes(scope.project);
  const inEnvironment =
    scope.environment === undefined || actor.environment === "*" || actor.environment === scope.environment;
  return inProject && inEnvironment;
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

function refusal(actor: Actor, wanted: readonly Permission[], scope: Scope): string {
  const who = actor.kind === "token" ? `This ${actor.type} token` : "This caller";
  if (wanted.includes("NONE")) {
    return `${who} cannot use the admin API: it needs a person's login, a personal access token or an admin token (permission NONE).`;
  }
  const names = wanted.map((permission) => `"${permission}"`).join(" or ");
  const places = [
    scope.project === undefined ? undefined : `project "${scope.project}"`,
    scope.environment === undefined ? undefined : `environment "${scope.environment}"`,
  ].filter(Boolean);
  const where = places.length === 0 ? "" : ` in ${places.join(" and ")}`;
  return `${who} lacks the ${names} permission${wanted.length > 1 ? "s" : ""} needed here${where}.`;
}
