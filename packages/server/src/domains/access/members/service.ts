import { ApiError, invalidField, noAccess, notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import { ROLE_IDS } from "../../../access/roles.js";
import type { Db } from "../../../db/connection.js";
import type { EventInput } from "../../events/catalogue.js";
import type { Change, EventService } from "../../events/service.js";
import type { ProjectService } from "../../projects/service.js";
import type { UserService } from "../../users/service.js";
import type { GroupService } from "../groups/service.js";
import type { RoleHolders, RoleService, RoleUse } from "../roles/service.js";
import type { ProjectAccessConfigurationData } from "./events.js";
import type { AccessConfiguration, NewAccess, ProjectAccess, ProjectOwner } from "./schemas.js";
import { type Holder, type Membership, memberStore } from "./store.js";

const OWNER = ROLE_IDS.Owner;

const describe = (holder: Holder) => `${holder.kind === "user" ? "User" : "Group"} ${holder.id}`;

/** Memberships by holder: the roles each holds, and when it was first given one. */
function byHolder(memberships: readonly Membership[]): Map<number, { roles: number[]; addedAt: Date }> {
  const holders = new Map<number, { roles: number[]; addedAt: Date }>();
  for (const { holder, role_id, created_at } of memberships) {
    const held = holders.get(holder) ?? { roles: [], addedAt: created_at };
    held.roles.push(role_id);
    if (created_at < held.addedAt) held.addedAt = created_at;
    holders.set(holder, held);
  }
  for (const held of holders.values()) held.roles.sort((a, b) => a - b);
  return holders;
}

/**
 * A project's access role by role, each role once, with the users and groups holding it
 * sorted: how a configuration is compared, written and recorded. A role no one holds is left out.
 */
function byRole(
  held: readonly { id: number; users: readonly number[]; groups: readonly number[] }[],
): ProjectAccessConfigurationData {
  const roles = new Map<number, { users: Set<number>; groups: Set<number> }>();
  for (const { id, users, groups } of held) {
    const role = roles.get(id) ?? { users: new Set(), groups: new Set() };
    for (const user of users) role.users.add(user);
    for (const group of groups) role.groups.add(group);
    roles.set(id, role);
  }
  const sorted = (ids: Set<number>) => [...ids].sort((a, b) => a - b);
  return {
    roles: [...roles]
      .filter(([, role]) => role.users.size + role.groups.size > 0)
      .sort(([a], [b]) => a - b)
      .map(([id, role]) => ({ id, users: sorted(role.users), groups: sorted(role.groups) })),
  };
}

/** The memberships of a project as a configuration. */
function configurationOf(users: readonly Membership[], groups: readonly Membership[]) {
  return byRole([
    ...users.map(({ role_id, holder }) => ({ id: role_id, users: [holder], groups: [] })),
    ...groups.map(({ role_id, holder }) => ({ id: role_id, users: [], groups: [holder] })),
  ]);
}

/** The roles each user (or group) holds in a configuration. */
function rolesByHolder(configuration: ProjectAccessConfigurationData, kind: "users" | "groups") {
  const holders = new Map<number, number[]>();
  for (const role of configuration.roles) {
    for (const holder of role[kind]) holders.set(holder, [...(holders.get(holder) ?? []), role.id]);
  }
  return holders;
}

function rolesSet(project: string, holder: Holder, before: number[], after: number[]): EventInput {
  return holder.kind === "user"
    ? {
        type: "project-access-user-roles-updated",
        project,
        data: { roles: after, userId: holder.id },
        preData: { roles: before, userId: holder.id },
      }
    : {
        type: "project-access-group-roles-updated",
        project,
        data: { roles: after, groupId: holder.id },
        preData: { roles: before, groupId: holder.id },
      };
}

function rolesDeleted(project: string, holder: Holder, before: number[]): EventInput {
  return holder.kind === "user"
    ? { type: "project-access-user-roles-deleted", project, preData: { roles: before, userId: holder.id } }
    : { type: "project-access-group-roles-deleted", project, preData: { roles: before, groupId: holder.id } };
}

function roleAdded(project: string, holder: Holder, roleId: number): EventInput {
  return holder.kind === "user"
    ? { type: "project-user-added", project, data: { userId: holder.id, roleId } }
    : { type: "project-group-added", project, data: { groupId: holder.id, roleId } };
}

function roleRemoved(project: string, holder: Holder, roleId: number): EventInput {
  return holder.kind === "user"
    ? { type: "project-user-removed", project, preData: { userId: holder.id, roleId } }
    : { type: "project-group-removed", project, preData: { groupId: holder.id, roleId } };
}

/**
 * Who may do what in a project: the project roles given to users and groups there. Every
 * change is an event, so the revision moves and everyone's permissions are read afresh.
 */
export class MemberService implements RoleHolders {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly projects: Pick<ProjectService, "missing">,
    private readonly roles: Pick<RoleService, "projectRoles" | "requireProjectRoles">,
    private readonly groups: Pick<GroupService, "missing" | "summaries" | "groupsOf" | "withRootRole">,
    private readonly users: Pick<UserService, "byIds" | "missing" | "withRootRole">,
  ) {}

  /** The project's users and groups with their roles, and the roles that can be given there. */
  async access(_actor: Actor, project: string): Promise<ProjectAccess> {
    await this.requireProject(this.db, project);
    const [userMemberships, groupMemberships, roles] = await Promise.all([
      memberStore.ofProjects(this.db, "user", [project]),
      memberStore.ofProjects(this.db, "group", [project]),
      this.roles.projectRoles(this.db),
    ]);
    const users = byHolder(userMemberships);
    const groups = byHolder(groupMemberships);
    const [persons, summaries] = await Promise.all([
      this.users.byIds(this.db, [...users.keys()]),
      this.groups.summaries(this.db, [...groups.keys()]),
    ]);
    return {
      users: persons.map((person) => {
        const held = users.get(person.id)!;
        return { ...person, addedAt: held.addedAt.toISOString(), roles: held.roles };
      }),
      groups: summaries.map(({ userIds, ...group }) => {
        const held = groups.get(group.id)!;
        return {
          ...group,
          userCount: userIds.length,
          addedAt: held.addedAt.toISOString(),
          roles: held.roles,
        };
      }),
      roles,
    };
  }

  /** Gives each user and each group each role. */
  async addAccess(actor: Actor, project: string, input: NewAccess): Promise<void> {
    const roles = [...new Set(input.roles)];
    const users = [...new Set(input.users)];
    const groups = [...new Set(input.groups)];
    if (roles.length === 0) throw invalidField("roles", "Name at least one role to give");
    if (users.length + groups.length === 0) throw invalidField("users", "Name at least one user or group");
    await this.events.change(actor, async (change) => {
      await this.requireProject(change.db, project);
      await this.roles.requireProjectRoles(change.db, roles, "roles");
      await this.requireKnown(change.db, users, groups, (kind) => kind);
      await this.requireGivable(change.db, actor, project, roles);
      await memberStore.add(change.db, project, "user", users, roles);
      await memberStore.add(change.db, project, "group", groups, roles);
      change.record({ type: "project-access-added", project, data: { roles, users, groups } });
    });
  }

  /**
   * Makes the project's access exactly this, role by role: each user and group holds the
   * roles that name them and no other. The reference's "set all project access", which its
   * Terraform provider uses; one event carries the whole access before and after.
   */
  async setAccess(actor: Actor, project: string, input: AccessConfiguration): Promise<void> {
    const entries = input.roles.map(({ id, users = [], groups = [] }) => ({ id, users, groups }));
    const after = byRole(entries);
    await this.events.change(actor, async (change) => {
      await this.requireProject(change.db, project);
      await this.roles.requireProjectRoles(change.db, [...new Set(entries.map((role) => role.id))], "roles");
      await this.requireKnown(
        change.db,
        [...new Set(entries.flatMap((role) => role.users))],
        [...new Set(entries.flatMap((role) => role.groups))],
        (kind, ids) =>
          `roles.${entries.findIndex((role) => role[kind].some((id) => ids.includes(id)))}.${kind}`,
      );
      const before = configurationOf(
        await memberStore.ofProjects(change.db, "user", [project]),
        await memberStore.ofProjects(change.db, "group", [project]),
      );
      // Only a role given to someone who did not hold it counts: access kept as it was gives nothing.
      const given = after.roles.filter(({ id, users, groups }) => {
        const held = before.roles.find((role) => role.id === id);
        return (
          users.some((user) => !held?.users.includes(user)) ||
          groups.some((group) => !held?.groups.includes(group))
        );
      });
      await this.requireGivable(
        change.db,
        actor,
        project,
        given.map((role) => role.id),
      );
      const owned = (configuration: ProjectAccessConfigurationData) =>
        configuration.roles.some((role) => role.id === OWNER);
      if (owned(before) && !owned(after)) {
        throw new ApiError(
          "ProjectWithoutOwnerError",
          `This would leave project ${project} without an owner: give the Owner role to a user or group`,
        );
      }
      for (const [kind, key] of [
        ["user", "users"],
        ["group", "groups"],
      ] as const) {
        const kept = rolesByHolder(after, key);
        for (const [id, roles] of rolesByHolder(before, key)) {
          const lost = roles.filter((role) => !kept.get(id)?.includes(role));
          await memberStore.remove(change.db, project, { kind, id }, lost);
        }
        for (const role of after.roles) await memberStore.add(change.db, project, kind, role[key], [role.id]);
      }
      change.record({ type: "project-access-updated", project, data: after, preData: before });
    });
  }

  /** Makes a user's or group's roles in the project exactly these. */
  async setRoles(actor: Actor, project: string, holder: Holder, requested: readonly number[]): Promise<void> {
    const roles = [...new Set(requested)].sort((a, b) => a - b);
    await this.events.change(actor, async (change) => {
      await this.requireHolder(change.db, project, holder);
      await this.roles.requireProjectRoles(change.db, roles, "roles");
      await this.requireGivable(change.db, actor, project, roles);
      const before = await memberStore.rolesOf(change.db, project, holder);
      await this.keepAnOwner(change.db, project, holder, before, roles);
      await memberStore.remove(
        change.db,
        project,
        holder,
        before.filter((role) => !roles.includes(role)),
      );
      await memberStore.add(change.db, project, holder.kind, [holder.id], roles);
      change.record(rolesSet(project, holder, before, roles));
    });
  }

  /** Takes every role in the project away from a user or group. */
  async removeAll(actor: Actor, project: string, holder: Holder): Promise<void> {
    await this.events.change(actor, async (change) => {
      await this.requireHolder(change.db, project, holder);
      const before = await memberStore.rolesOf(change.db, project, holder);
      if (before.length === 0) throw notFound(`${describe(holder)} has no roles in project ${project}`);
      await this.keepAnOwner(change.db, project, holder, before, []);
      await memberStore.remove(change.db, project, holder);
      change.record(rolesDeleted(project, holder, before));
    });
  }

  /** Gives one role; a role already held is left as it is, and records nothing. */
  async addRole(actor: Actor, project: string, holder: Holder, roleId: number): Promise<void> {
    await this.events.change(actor, async (change) => {
      await this.requireHolder(change.db, project, holder);
      await this.roles.requireProjectRoles(change.db, [roleId], "roleId");
      await this.requireGivable(change.db, actor, project, [roleId]);
      if ((await memberStore.rolesOf(change.db, project, holder)).includes(roleId)) return;
      await memberStore.add(change.db, project, holder.kind, [holder.id], [roleId]);
      change.record(roleAdded(project, holder, roleId));
    });
  }

  async removeRole(actor: Actor, project: string, holder: Holder, roleId: number): Promise<void> {
    await this.events.change(actor, async (change) => {
      await this.requireHolder(change.db, project, holder);
      const before = await memberStore.rolesOf(change.db, project, holder);
      if (!before.includes(roleId)) {
        throw notFound(`${describe(holder)} does not hold role ${roleId} in project ${project}`);
      }
      await this.keepAnOwner(
        change.db,
        project,
        holder,
        before,
        before.filter((role) => role !== roleId),
      );
      await memberStore.remove(change.db, project, holder, [roleId]);
      change.record(roleRemoved(project, holder, roleId));
    });
  }

  /** Makes the user who creates a project its Owner, inside the creation's transaction. */
  async addOwner(change: Change, projectId: string, userId: number): Promise<void> {
    await memberStore.add(change.db, projectId, "user", [userId], [OWNER]);
  }

  /** Each project's owners: the users and groups holding its Owner role (none: an empty list). */
  async owners(db: Db, projectIds: string[]): Promise<Map<string, ProjectOwner[]>> {
    const [userMemberships, groupMemberships] = await Promise.all([
      memberStore.ofProjects(db, "user", projectIds),
      memberStore.ofProjects(db, "group", projectIds),
    ]);
    const userOwners = userMemberships.filter((membership) => membership.role_id === OWNER);
    const groupOwners = groupMemberships.filter((membership) => membership.role_id === OWNER);
    const [persons, summaries] = await Promise.all([
      this.users.byIds(
        db,
        userOwners.map((membership) => membership.holder),
      ),
      this.groups.summaries(
        db,
        groupOwners.map((membership) => membership.holder),
      ),
    ]);
    const owners = new Map<string, ProjectOwner[]>(projectIds.map((id) => [id, []]));
    for (const { project, holder } of userOwners) {
      const person = persons.find((candidate) => candidate.id === holder);
      if (!person) continue;
      owners.get(project)?.push({
        ownerType: "user",
        name: person.name ?? person.username ?? person.email ?? `User ${person.id}`,
        imageUrl: person.imageUrl,
        email: person.email,
      });
    }
    for (const { project, holder } of groupOwners) {
      const group = summaries.find((candidate) => candidate.id === holder);
      if (group) owners.get(project)?.push({ ownerType: "group", name: group.name });
    }
    return owners;
  }

  /** How many users hold a role in each project, themselves or through a group, each counted once. */
  async memberCounts(db: Db, projectIds: string[]): Promise<Map<string, number>> {
    const [userMemberships, groupMemberships] = await Promise.all([
      memberStore.ofProjects(db, "user", projectIds),
      memberStore.ofProjects(db, "group", projectIds),
    ]);
    const summaries = await this.groups.summaries(db, [
      ...new Set(groupMemberships.map((membership) => membership.holder)),
    ]);
    const usersOf = new Map(summaries.map((group) => [group.id, group.userIds]));
    const members = new Map<string, Set<number>>(projectIds.map((id) => [id, new Set()]));
    for (const { project, holder } of userMemberships) members.get(project)?.add(holder);
    for (const { project, holder } of groupMemberships) {
      for (const user of usersOf.get(holder) ?? []) members.get(project)?.add(user);
    }
    return new Map([...members].map(([project, users]) => [project, users.size]));
  }

  /**
   * Who holds the role: users and groups as their root role, and project memberships of
   * either. Asked here, where all three are in sight, before roles delete or retype one.
   */
  async holding(db: Db, roleId: number): Promise<RoleUse> {
    const [byUsers, byGroups, memberships] = await Promise.all([
      this.users.withRootRole(db, roleId),
      this.groups.withRootRole(db, roleId),
      memberStore.holders(db, roleId),
    ]);
    return { byUsers, byGroups, memberships };
  }

  private async requireProject(db: Db, project: string): Promise<void> {
    const [missing] = await this.projects.missing(db, [project]);
    if (missing !== undefined) throw notFound(`Could not find project with id ${project}`);
  }

  /** The project and the user or group named in a path, which must both exist. */
  private async requireHolder(db: Db, project: string, holder: Holder): Promise<void> {
    await this.requireProject(db, project);
    const [missing] =
      holder.kind === "user"
        ? await this.users.missing(db, [holder.id])
        : await this.groups.missing(db, [holder.id]);
    if (missing !== undefined) throw notFound(`Could not find ${holder.kind} with id ${holder.id}`);
  }

  /** Refuses unknown users and groups, naming their ids at the field `where` says named them. */
  private async requireKnown(
    db: Db,
    users: readonly number[],
    groups: readonly number[],
    where: (kind: "users" | "groups", ids: readonly number[]) => string,
  ): Promise<void> {
    const unknownUsers = await this.users.missing(db, users);
    if (unknownUsers.length > 0) {
      throw invalidField(
        where("users", unknownUsers),
        `There are no users with the ids ${unknownUsers.join(", ")}`,
      );
    }
    const unknownGroups = await this.groups.missing(db, groups);
    if (unknownGroups.length > 0) {
      throw invalidField(
        where("groups", unknownGroups),
        `There are no groups with the ids ${unknownGroups.join(", ")}`,
      );
    }
  }

  /**
   * As in the reference, a user who is neither an admin nor the project's Owner gives only
   * roles they hold there themselves: access to the access settings is not a way up.
   */
  private async requireGivable(
    db: Db,
    actor: Actor,
    project: string,
    roles: readonly number[],
  ): Promise<void> {
    if (actor.kind !== "user" || actor.grants.root.has("ADMIN")) return;
    const [own, groups] = await Promise.all([
      memberStore.rolesOf(db, project, { kind: "user", id: actor.userId }),
      this.groups.groupsOf(db, actor.userId),
    ]);
    const held = new Set([...own, ...(await memberStore.rolesOfGroups(db, project, groups))]);
    if (held.has(OWNER)) return;
    const beyond = roles.filter((role) => !held.has(role));
    if (beyond.length > 0) {
      throw noAccess(
        `Only an admin or the project's Owner gives roles they do not hold: you do not hold the roles ${beyond.join(", ")} in project ${project}`,
      );
    }
  }

  /** Refuses to take the Owner role from its last holder in the project, as the reference does. */
  private async keepAnOwner(
    db: Db,
    project: string,
    holder: Holder,
    before: readonly number[],
    after: readonly number[],
  ): Promise<void> {
    if (!before.includes(OWNER) || after.includes(OWNER)) return;
    if ((await memberStore.holders(db, OWNER, project)) < 2) {
      throw new ApiError(
        "ProjectWithoutOwnerError",
        `${describe(holder)} is the last owner of project ${project}: give the Owner role to another user or group first`,
      );
    }
  }
}
