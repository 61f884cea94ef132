import type { UserActor } from "../../../access/actor.js";
import { can, canSee } from "../../../access/can.js";
import type { Grants } from "../../../access/grants.js";
import { ENVIRONMENT_PERMISSIONS, type Permission } from "../../../access/permissions.js";
import { isRootRole, PREDEFINED, type PredefinedRole } from "../../../access/roles.js";
import type { Db } from "../../../db/connection.js";
import type { EventService } from "../../events/service.js";
import type { ProjectService } from "../../projects/service.js";
import { displayName, type UserRow, type UserService } from "../../users/service.js";
import { grantsStore } from "./store.js";

interface Role {
  id: number;
  name: string;
  type: string;
}

const isPredefined = (role: Role) => role.type === "root" || role.type === "project";

/**
 * Gathers a user's grants, and so makes a user an actor: who they are is the people's to say,
 * what they may do depends on projects, their modes and memberships, which sit above people.
 * Every change to roles, memberships and modes is an event, which advances the revision, so
 * an answer is kept until the revision moves: an admin request costs no SQL for permissions,
 * and no instance acts on access older than one revision.
 */
export class GrantsService {
  private readonly cache = new Map<number, { revision: number; grants: Grants }>();

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly others: {
      projects: Pick<ProjectService, "restrictedModes">;
      users: Pick<UserService, "acting" | "activePeople">;
    },
  ) {}

  /** The user as an actor, when they exist and are active: how a schedule acts for its author. */
  async actor(userId: number, via: UserActor["via"]): Promise<UserActor | undefined> {
    const user = await this.others.users.acting(userId);
    return user && this.actorOf(user, via);
  }

  /** An active user, as a session or personal access token found them, as an actor. */
  async actorOf(user: UserRow, via: UserActor["via"]): Promise<UserActor> {
    return { kind: "user", userId: user.id, name: displayName(user), via, grants: await this.of(user.id) };
  }

  /**
   * The active people (not service accounts) who may do something in a project and
   * environment, as `can` answers for each of them, and who see the project.
   */
  async peopleWho(
    permission: Permission,
    scope: { project: string; environment?: string },
  ): Promise<UserRow[]> {
    const able: UserRow[] = [];
    for (const row of await this.others.users.activePeople()) {
      const person = await this.actorOf(row, "session");
      if (canSee(person, scope.project) && can(person, permission, scope)) able.push(row);
    }
    return able;
  }

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
      this.others.projects.restrictedModes(db),
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
