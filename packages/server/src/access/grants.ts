import type { Permission } from "./permissions.js";
import { ROOT_ROLES_PROJECT } from "./roles.js";

/**
 * What a user may do, gathered from their root role, their groups' root roles and the
 * project roles given to them or their groups. A project or environment permission is
 * held as `PERMISSION` or `PERMISSION@environment`, `@*` meaning every environment.
 */
export interface Grants {
  root: ReadonlySet<Permission>;
  /** The project permissions root roles give, which hold in `ROOT_ROLES_PROJECT` while it is open. */
  rootProject: ReadonlySet<string>;
  projects: ReadonlyMap<string, ReadonlySet<string>>;
  /** The mode of every project that is not open. */
  modes: ReadonlyMap<string, "protected" | "private">;
}

/** Whether a set of project grants holds a permission in an environment, or in any when none is named. */
function holds(
  grants: ReadonlySet<string>,
  permission: Permission,
  environment: string | undefined,
): boolean {
  if (grants.has(permission) || grants.has(`${permission}@*`)) return true;
  if (environment !== undefined) return grants.has(`${permission}@${environment}`);
  for (const grant of grants) if (grant.startsWith(`${permission}@`)) return true;
  return false;
}

/**
 * A project permission in one project: given there by a project role, or by the root role
 * in the default project while it is open (protected and private projects count members only).
 */
function inProject(grants: Grants, permission: Permission, project: string, environment?: string): boolean {
  const given = grants.projects.get(project);
  if (given && holds(given, permission, environment)) return true;
  return (
    project === ROOT_ROLES_PROJECT &&
    !grants.modes.has(project) &&
    holds(grants.rootProject, permission, environment)
  );
}

/**
 * A user's answer to `can`. Without a project, a project permission is asked as "held in some
 * project": the route's early check, which the service repeats once it knows the project.
 */
export function userCan(
  grants: Grants,
  permission: Permission,
  scope: { project?: string | undefined; environment?: string | undefined },
  isRoot: (permission: Permission) => boolean,
): boolean {
  if (grants.root.has("ADMIN") || permission === "NONE") return true;
  if (permission === "CLIENT" || permission === "FRONTEND") return false;
  if (isRoot(permission)) return grants.root.has(permission);
  if (scope.project !== undefined) return inProject(grants, permission, scope.project, scope.environment);
  if (holds(grants.rootProject, permission, scope.environment)) return true;
  for (const project of grants.projects.keys()) {
    if (inProject(grants, permission, project, scope.environment)) return true;
  }
  return false;
}

/** Private projects show themselves to their members (users or groups) and to admins only. */
export function userSees(grants: Grants, project: string): boolean {
  return grants.root.has("ADMIN") || grants.modes.get(project) !== "private" || grants.projects.has(project);
}
