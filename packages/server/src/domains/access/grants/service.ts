import type { Grants } from "../../../access/grants.js";
import { ENVIRONMENT_PERMISSIONS, type Permission } from "../../../access/permissions.js";
import { isRootRole, PREDEFINED, type PredefinedRole } from "../../../access/roles.js";
import type { Db } from "../../../db/connection.js";
import type { EventService } from "../../events/service.js";
import type { ProjectService } from "../../projects/service.js";
import { grantsStore } from "./store.js";

interface Role {
  id: number;
  name: string;
  type: string;
}

const isPredefined = (role: Role) => role.type === "root" || role.type === "project";

/**
 * Gathers a user's grants. Every change to roles, memberships and modes is an event, which
 * advances the revision, so an answer is kept until the revision moves: an admin request
 * costs no SQL for permissions, and no instance acts on access older than one revision.
 */
export class GrantsService {
  private readonly cache = new Map<number, { revision: number; grants: Grants }>();

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly projects: Pick<ProjectService, "restrictedModes">,
  ) {}

  async of(userId: number): Promise<Grants> {
    const revision = this.events.currentRevision;
    const cached = this.cache.get(userId);
    if (cached?.revision === revision) return cached.grants;
    const grants = await this.load(this.db, userId);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(userId, { revision, grants });
    return grants;
  }

  private async load(db: Db, userId: number): Promise<Grants> {
    const [rootRoles, projectRoles, modes] = await Promise.all([
      grantsStore.rootRoles(db, userId),
      grantsStore.projectRoles(db, userId),
      this.projects.restrictedModes(db),
    ]);
    const custom = [...rootRoles, ...projectRoles].filter((role) => !isPredefined(role));
    const stored = await grantsStore.permissions(
      db,
      custom.map((role) => role.id),
    );
    const permissionsOf = (role: Role) => {
      if (isPredefined(role)) {
        const predefined = PREDEFINED[role.name as PredefinedRole];
        return { root: predefined.root, project: predefined.project.map((name) => projectGrant(name, "")) };
      }
      const rows = stored.filter((row) => row.role_id === role.id);
      return {
        root: isRootRole(role.type)
          ? rows.filter((row) => row.environment === "").map((row) => row.permission)
          : [],
        project: rows.map((row) => projectGrant(row.permission, row.environment)),
      };
    };
    const root = new Set<Permission>();
    const rootProject = new Set<string>();
    for (const role of rootRoles) {
      const { root: held, project } = permissionsOf(role);
      for (const permission of held) root.add(permission as Permission);
      for (const grant of project) rootProject.add(grant);
    }
    const projects = new Map<string, Set<string>>();
    for (const role of projectRoles) {
      const held = projects.get(role.project) ?? new Set<string>();
      for (const grant of permissionsOf(role).project) held.add(grant);
      projects.set(role.project, held);
    }
    return { root, rootProject, projects, modes };
  }
}

const environmentScoped: ReadonlySet<string> = new Set(ENVIRONMENT_PERMISSIONS);

/** Environment permissions without an environment hold in every environment. */
function projectGrant(permission: string, environment: string): string {
  return environmentScoped.has(permission) ? `${permission}@${environment || "*"}` : permission;
}
