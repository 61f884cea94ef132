import type { Db } from "../../../db/connection.js";

/** The roles a user holds: root roles (their own and their groups'), and project roles. */
export const grantsStore = {
  rootRoles(db: Db, userId: number) {
    return db
      .selectFrom("users")
      .innerJoin("roles", "roles.id", "users.root_role_id")
      .select(["roles.id", "roles.name", "roles.type"])
      .where("users.id", "=", userId)
      .union(
        db
          .selectFrom("group_users")
          .innerJoin("groups", "groups.id", "group_users.group_id")
          .innerJoin("roles", "roles.id", "groups.root_role_id")
          .select(["roles.id", "roles.name", "roles.type"])
          .where("group_users.user_id", "=", userId),
      )
      .execute();
  },

  projectRoles(db: Db, userId: number) {
    return db
      .selectFrom("project_user_roles")
      .innerJoin("roles", "roles.id", "project_user_roles.role_id")
      .select(["project_user_roles.project", "roles.id", "roles.name", "roles.type"])
      .where("project_user_roles.user_id", "=", userId)
      .union(
        db
          .selectFrom("project_group_roles")
          .innerJoin("group_users", "group_users.group_id", "project_group_roles.group_id")
          .innerJoin("roles", "roles.id", "project_group_roles.role_id")
          .select(["project_group_roles.project", "roles.id", "roles.name", "roles.type"])
          .where("group_users.user_id", "=", userId),
      )
      .execute();
  },

  permissions(db: Db, roleIds: readonly number[]) {
    if (roleIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("role_permissions")
      .select(["role_id", "permission", "environment"])
      .where("role_id", "in", roleIds)
      .execute();
  },
};
