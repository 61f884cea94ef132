import type { Grants } from "../../access/grants.js";
import { ROOT_ROLES_PROJECT } from "../../access/roles.js";
import type { GrantedPermission } from "./schemas.js";

/**
 * A user's grants as the reference lists them for its UI: root permissions alone, project
 * permissions with their project, environment permissions with their project and each
 * environment they hold in (`@*`, every environment, is spelled out).
 */
export async function grantedPermissions(
  grants: Grants,
  environments: () => Promise<string[]>,
): Promise<GrantedPermission[]> {
  let all: string[] | undefined;
  // A permission held both through the root role and a project role is listed once.
  const list = new Map<string, GrantedPermission>();
  const add = (granted: GrantedPermission) =>
    list.set(`${granted.permission} ${granted.project} ${granted.environment}`, granted);
  for (const permission of grants.root) add({ permission });
  const inProject = async (project: string, held: ReadonlySet<string>) => {
    for (const grant of held) {
      const [permission, environment] = grant.split("@") as [string, string | undefined];
      if (environment === undefined) add({ permission, project });
      else {
        all ??= await environments();
        for (const name of environment === "*" ? all : [environment])
          add({ permission, project, environment: name });
      }
    }
  };
  // The root role's project permissions hold in the default project while it is open (see grants.ts).
  if (!grants.modes.has(ROOT_ROLES_PROJECT)) await inProject(ROOT_ROLES_PROJECT, grants.rootProject);
  for (const [project, held] of grants.projects) await inProject(project, held);
  return [...list.values()];
}
