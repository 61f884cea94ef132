import { invalidField, nameExists, notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import { canSee } from "../../../access/can.js";
import type { Db } from "../../../db/connection.js";
import { resource } from "../../events/resource.js";
import type { Change, EventService } from "../../events/service.js";
import type { PersonView } from "../../users/schemas.js";
import type { UserService } from "../../users/service.js";
import type { RoleService } from "../roles/service.js";
import type { GroupEventData } from "./events.js";
import type { GroupView, NewGroup } from "./schemas.js";
import { type GroupRow, groupStore } from "./store.js";

const groups = resource<number, GroupEventData>({
  read: async (db, id) => {
    const row = await groupStore.byId(db, id);
    if (!row) return undefined;
    const users = await groupStore.users(db, [id]);
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      rootRole: row.root_role_id,
      users: users.map((user) => ({ id: user.user_id })),
    };
  },
  missing: (id) => notFound(`Could not find group with id ${id}`),
  events: { created: "group-created", updated: "group-updated", deleted: "group-deleted" },
});

/** One event for each user who joins or leaves a group, besides the group's own, as the reference records. */
function recordMembers(change: Change, groupId: number, before: readonly number[], after: readonly number[]) {
  for (const userId of after.filter((id) => !before.includes(id))) {
    change.record({ type: "group-user-added", data: { groupId, userId } });
  }
  for (const userId of before.filter((id) => !after.includes(id))) {
    change.record({ type: "group-user-removed", preData: { groupId, userId } });
  }
}

/** What group listings ask of project access: the projects a group holds roles in. */
export interface GroupProjects {
  projectsOfGroups(db: Db, groupIds: readonly number[]): Promise<Map<number, string[]>>;
}

/**
 * Groups of users. A group's root role gives each of its users that role's permissions, and
 * a project role given to a group gives them to each of its users in the project.
 */
export class GroupService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly roles: Pick<RoleService, "requireRootRole">,
    private readonly users: Pick<UserService, "byIds" | "missing">,
    private readonly members: GroupProjects,
  ) {}

  async list(actor: Actor): Promise<GroupView[]> {
    return (await this.views(this.db, await groupStore.list(this.db))).map((group) => seenBy(actor, group));
  }

  async get(actor: Actor, id: number): Promise<GroupView> {
    return seenBy(actor, await this.view(this.db, id));
  }

  create(actor: Actor, input: NewGroup): Promise<GroupView> {
    return this.events.change(actor, async (change) => {
      const { name } = input;
      const rootRole = input.rootRole ?? null;
      const userIds = await this.checked(change.db, rootRole, input.users ?? []);
      const created = await groups.create(change, async () => {
        const id = await groupStore.insert(change.db, {
          name,
          description: input.description ?? null,
          root_role_id: rootRole,
        });
        if (id === undefined) throw nameTakenError(name);
        await groupStore.setUsers(change.db, id, userIds);
        return id;
      });
      recordMembers(change, created.id, [], userIds);
      return this.view(change.db, created.id);
    });
  }

  /** Fields left out keep their value; `users`, when given, is the whole membership. */
  update(actor: Actor, id: number, input: NewGroup): Promise<GroupView> {
    return this.events.change(actor, async (change) => {
      let previous: number[] = [];
      const after = await groups.update(change, id, async (before) => {
        previous = before.users.map((user) => user.id);
        if (await groupStore.nameTaken(change.db, input.name, id)) throw nameTakenError(input.name);
        const rootRole = input.rootRole === undefined ? before.rootRole : input.rootRole;
        const userIds = await this.checked(
          change.db,
          rootRole,
          input.users ?? before.users.map((user) => ({ user })),
        );
        await groupStore.update(change.db, id, {
          name: input.name,
          description: input.description === undefined ? before.description : input.description,
          root_role_id: rootRole,
        });
        await groupStore.setUsers(change.db, id, userIds);
      });
      recordMembers(
        change,
        id,
        previous,
        after.users.map((user) => user.id),
      );
      return this.view(change.db, id);
    });
  }

  async remove(actor: Actor, id: number): Promise<void> {
    await this.events.change(actor, (change) =>
      groups.remove(change, id, () => groupStore.remove(change.db, id)),
    );
  }

  /** How many groups have the role as their root role. */
  withRootRole(db: Db, roleId: number): Promise<number> {
    return groupStore.withRootRole(db, roleId);
  }

  /** The ids among `ids` that are not groups. */
  async missing(db: Db, ids: readonly number[]): Promise<number[]> {
    const known = new Set(await groupStore.existing(db, ids));
    return ids.filter((id) => !known.has(id));
  }

  /** The groups a user belongs to. */
  groupsOf(db: Db, userId: number): Promise<number[]> {
    return groupStore.groupsOf(db, userId);
  }

  /** The groups among `ids`, by name, with the ids of their users. */
  async summaries(db: Db, ids: readonly number[]) {
    const [rows, users] = await Promise.all([groupStore.byIds(db, ids), groupStore.users(db, ids)]);
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      rootRole: row.root_role_id,
      userIds: users.filter((user) => user.group_id === row.id).map((user) => user.user_id),
    }));
  }

  /** Checks the root role, if any, and the users; answers the users' ids, each once. */
  private async checked(
    db: Db,
    rootRole: number | null,
    users: { user: { id: number } }[],
  ): Promise<number[]> {
    if (rootRole !== null) await this.roles.requireRootRole(db, rootRole, "rootRole");
    const ids = [...new Set(users.map(({ user }) => user.id))];
    const unknown = await this.users.missing(db, ids);
    if (unknown.length > 0)
      throw invalidField("users", `There are no users with the ids ${unknown.join(", ")}`);
    return ids;
  }

  private async view(db: Db, id: number): Promise<GroupView> {
    const row = await groupStore.byId(db, id);
    if (!row) throw notFound(`Could not find group with id ${id}`);
    const [view] = await this.views(db, [row]);
    return view!;
  }

  private async views(db: Db, rows: readonly GroupRow[]): Promise<GroupView[]> {
    const ids = rows.map((row) => row.id);
    const [members, projects] = await Promise.all([
      groupStore.users(db, ids),
      this.members.projectsOfGroups(db, ids),
    ]);
    const persons = new Map<number, PersonView>(
      (
        await this.users.byIds(
          db,
          members.map((member) => member.user_id),
        )
      ).map((person) => [person.id, person]),
    );
    return rows.map((row) => {
      const users = members
        .filter((member) => member.group_id === row.id)
        .map((member) => ({ joinedAt: member.created_at.toISOString(), user: persons.get(member.user_id)! }));
      return {
        id: row.id,
        name: row.name,
        description: row.description,
        rootRole: row.root_role_id,
        createdAt: row.created_at.toISOString(),
        users,
        userCount: users.length,
        projects: projects.get(row.id) ?? [],
      };
    });
  }
}

const nameTakenError = (name: string) => nameExists(`A group named ${name} already exists`);

/** A group as the actor may see it: the private projects hidden from them are left out of its projects. */
const seenBy = (actor: Actor, group: GroupView): GroupView => ({
  ...group,
  projects: group.projects.filter((project) => canSee(actor, project)),
});
