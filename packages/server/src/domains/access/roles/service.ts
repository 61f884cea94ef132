import { ApiError, invalidField, nameExists, noAccess, notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import { isRootRole, PREDEFINED, type PredefinedRole } from "../../../access/roles.js";
import type { Db } from "../../../db/connection.js";
import type { EnvironmentService } from "../../environments/service.js";
import { resource } from "../../events/resource.js";
import type { EventService } from "../../events/service.js";
import { type CataloguedPermission, catalogued, GRANTABLE, grantable } from "./catalogue.js";
import type { RoleEventData } from "./events.js";
import type {
  NewRole,
  PermissionCatalogue,
  PermissionView,
  RoleView,
  RoleWithPermissions,
} from "./schemas.js";
import { type RoleRow, roleStore, type StoredPermission } from "./store.js";

type CustomType = "root-custom" | "custom";

const isPredefined = (role: Pick<RoleRow, "type">) => role.type === "root" || role.type === "project";
const isProjectRole = (role: Pick<RoleRow, "type">) => !isRootRole(role.type);

const view = (row: RoleRow): RoleView => ({
  id: row.id,
  type: row.type,
  name: row.name,
  description: row.description,
});

const permissionView = (entry: CataloguedPermission, environment = ""): PermissionView => ({
  id: entry.id,
  name: entry.name,
  displayName: entry.displayName,
  type: entry.kind,
  ...(environment ? { environment } : {}),
});

/** What a role holds: the predefined roles' from code, custom roles' from the store. */
function permissionsOf(role: RoleEventData): PermissionView[] {
  const held: StoredPermission[] = isPredefined(role)
    ? [
        ...PREDEFINED[role.name as PredefinedRole].root,
        ...PREDEFINED[role.name as PredefinedRole].project,
      ].map((permission) => ({ permission, environment: "" }))
    : (role.permissions ?? []).map(({ name, environment }) => ({
        permission: name,
        environment: environment ?? "",
      }));
  return held.flatMap(({ permission, environment }) => {
    const entry = catalogued(permission);
    return entry ? [permissionView(entry, environment)] : [];
  });
}

const roles = resource<number, RoleEventData>({
  read: async (db, id) => {
    const row = await roleStore.byId(db, id);
    if (!row) return undefined;
    const stored = await roleStore.permissions(db, id);
    return {
      ...view(row),
      permissions: stored.map(({ permission, environment }) =>
        environment ? { name: permission, environment } : { name: permission },
      ),
    };
  },
  missing: (id) => notFound(`Could not find role with id ${id}`),
  events: { created: "role-created", updated: "role-updated", deleted: "role-deleted" },
});

/** How many hold a role: users and groups as their root role, and project memberships. */
export interface RoleUse {
  byUsers: number;
  byGroups: number;
  memberships: number;
}

/**
 * Who holds roles, asked before a role is deleted or retyped. Roles are given by the layers
 * above them (users, groups, project members), so the caller brings the answer's source.
 */
export interface RoleHolders {
  holding(db: Db, roleId: number): Promise<RoleUse>;
}

/** The predefined roles and the custom roles admins make, with the catalogue of permissions. */
export class RoleService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly environments: Pick<EnvironmentService, "list" | "missing">,
  ) {}

  async list(_actor: Actor): Promise<RoleView[]> {
    return (await roleStore.list(this.db)).map(view);
  }

  async get(_actor: Actor, id: number): Promise<RoleWithPermissions> {
    return this.withPermissions(await roles.require(this.db, id));
  }

  /** What custom roles may hold: environment permissions once for every environment. */
  async catalogue(actor: Actor): Promise<PermissionCatalogue["permissions"]> {
    const ofKind = (kind: CataloguedPermission["kind"]) => GRANTABLE.filter((entry) => entry.kind === kind);
    const environments = await this.environments.list(actor);
    return {
      root: ofKind("root").map((entry) => permissionView(entry)),
      project: ofKind("project").map((entry) => permissionView(entry)),
      environments: environments.map(({ name }) => ({
        name,
        permissions: ofKind("environment").map((entry) => permissionView(entry, name)),
      })),
    };
  }

  create(actor: Actor, input: NewRole): Promise<RoleWithPermissions> {
    return this.events.change(actor, async (change) => {
      const type = input.type ?? "custom";
      const { name } = input;
      const permissions = await this.checkPermissions(change.db, type, input.permissions ?? []);
      const created = await roles.create(change, async () => {
        const id = await roleStore.insert(change.db, { name, description: input.description ?? "", type });
        if (id === undefined) throw nameTakenError(name);
        await roleStore.setPermissions(change.db, id, permissions);
        return id;
      });
      return this.withPermissions(created);
    });
  }

  /** Changes a custom role; a description or permissions left out are kept. */
  update(actor: Actor, id: number, input: NewRole, holders: RoleHolders): Promise<RoleWithPermissions> {
    return this.events.change(actor, async (change) => {
      const updated = await roles.update(change, id, async (before) => {
        refusePredefined(before);
        const type = input.type ?? (before.type as CustomType);
        if (type !== before.type && Object.values(await holders.holding(change.db, id)).some(Boolean)) {
          throw invalidField(
            "type",
            `Role ${before.name} is in use, so it stays a ${before.type} role: a role given in projects cannot become a root role, nor the other way round`,
          );
        }
        const { name } = input;
        if (await roleStore.nameTaken(change.db, name, id)) throw nameTakenError(name);
        const permissions = await this.checkPermissions(
          change.db,
          type,
          input.permissions ?? before.permissions ?? [],
        );
        const description = input.description === undefined ? before.description : (input.description ?? "");
        await roleStore.update(change.db, id, { name, description, type });
        await roleStore.setPermissions(change.db, id, permissions);
      });
      return this.withPermissions(updated);
    });
  }

  async remove(actor: Actor, id: number, holders: RoleHolders): Promise<void> {
    await this.events.change(actor, (change) =>
      roles.remove(change, id, async (before) => {
        refusePredefined(before);
        const { byUsers, byGroups, memberships } = await holders.holding(change.db, id);
        if (byUsers + byGroups + memberships > 0) {
          throw new ApiError(
            "RoleInUseError",
            `Role ${before.name} is in use: it is the root role of ${byUsers} users and ${byGroups} groups, and is given in ${memberships} project memberships. Take it away from them before deleting it.`,
          );
        }
        await roleStore.remove(change.db, id);
      }),
    );
  }

  /** Answers whether a new role could be made as described. */
  async validate(_actor: Actor, input: NewRole): Promise<void> {
    if (await roleStore.nameTaken(this.db, input.name)) throw nameTakenError(input.name);
    await this.checkPermissions(this.db, input.type ?? "custom", input.permissions ?? []);
  }

  /** The roles that can be given in a project: Owner, Member and the custom project roles. */
  async projectRoles(db: Db): Promise<RoleView[]> {
    return (await roleStore.list(db)).filter(isProjectRole).map(view);
  }

  /** Refuses unless every id names a project role; `field` is what the refusal points at. */
  async requireProjectRoles(db: Db, ids: readonly number[], field: string): Promise<void> {
    const found = await roleStore.byIds(db, ids);
    const unknown = ids.filter((id) => !found.some((role) => role.id === id));
    if (unknown.length > 0)
      throw invalidField(field, `There are no roles with the ids ${unknown.join(", ")}`);
    const root = found.filter((role) => !isProjectRole(role));
    if (root.length > 0) {
      const names = root.map((role) => `${role.name} (${role.id})`).join(", ");
      throw invalidField(
        field,
        `Only project roles can be given in a project; these are root roles: ${names}`,
      );
    }
  }

  /** Refuses unless the id names a root role (predefined or custom). */
  async requireRootRole(db: Db, id: number, field: string): Promise<void> {
    const role = await roleStore.byId(db, id);
    if (!role) throw invalidField(field, `There is no role with the id ${id}`);
    if (!isRootRole(role.type)) {
      throw invalidField(field, `${role.name} (${role.id}) is a project role, not a root role`);
    }
  }

  /**
   * The permissions a custom role of a type may hold: root permissions for a root role;
   * project and environment permissions for a project role, an environment permission in
   * an environment that exists or, without one, in every environment.
   */
  private async checkPermissions(
    db: Db,
    type: CustomType,
    requested: NonNullable<NewRole["permissions"]>,
  ): Promise<StoredPermission[]> {
    const held = new Map<string, StoredPermission>();
    requested.forEach(({ name, environment }, index) => {
      const field = `permissions.${index}`;
      const entry = grantable(name);
      if (!entry) throw invalidField(`${field}.name`, `${name} is not a permission a custom role can hold`);
      if (type === "root-custom" && entry.kind !== "root") {
        throw invalidField(
          field,
          `${name} is a ${entry.kind} permission: a custom root role holds root permissions only`,
        );
      }
      if (type === "custom" && entry.kind === "root") {
        throw invalidField(
          field,
          `${name} is a root permission: a custom project role holds project and environment permissions only`,
        );
      }
      if (environment && entry.kind !== "environment") {
        throw invalidField(
          `${field}.environment`,
          `${name} is a ${entry.kind} permission and takes no environment`,
        );
      }
      const stored = { permission: name, environment: environment ?? "" };
      held.set(`${stored.permission}@${stored.environment}`, stored);
    });
    const named = [...new Set([...held.values()].map(({ environment }) => environment).filter(Boolean))];
    const [unknown] = await this.environments.missing(db, named);
    if (unknown !== undefined) {
      const index = requested.findIndex(({ environment }) => environment === unknown);
      throw invalidField(`permissions.${index}.environment`, `Environment ${unknown} does not exist`);
    }
    return [...held.values()];
  }

  private withPermissions(role: RoleEventData): RoleWithPermissions {
    const { permissions: _, ...rest } = role;
    return { ...rest, permissions: permissionsOf(role) };
  }
}

const nameTakenError = (name: string) => nameExists(`There already exists a role with the name ${name}`);

function refusePredefined(role: Pick<RoleEventData, "type" | "name">): void {
  if (isPredefined(role)) {
    throw noAccess(`${role.name} is a predefined role: it cannot be changed or deleted`);
  }
}
