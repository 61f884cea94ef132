import { type Static, Type } from "typebox";
import { Nullable } from "../../../shared/schemas.js";

export const RoleId = Type.Object({ id: Type.Integer() });

export const Role = Type.Object({
  id: Type.Integer(),
  /** root and project: predefined; root-custom and custom: made by an admin. */
  type: Type.String(),
  name: Type.String(),
  description: Type.String(),
});
export type RoleView = Static<typeof Role>;

export const RoleList = Type.Object({ version: Type.Literal(1), roles: Type.Array(Role) });

export const Permission = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  displayName: Type.String(),
  /** root, project or environment. */
  type: Type.String(),
  /** The one environment an environment permission holds in; absent: every environment. */
  environment: Type.Optional(Type.String()),
});
export type PermissionView = Static<typeof Permission>;

export const RoleWithPermissions = Type.Object({ ...Role.properties, permissions: Type.Array(Permission) });
export type RoleWithPermissions = Static<typeof RoleWithPermissions>;

const PermissionRef = Type.Object({
  name: Type.String({ minLength: 1 }),
  environment: Type.Optional(Nullable(Type.String())),
});

export const NewRole = Type.Object({
  // Not blank: a name of spaces could not be told apart in a listing.
  name: Type.String({ minLength: 1, maxLength: 255, pattern: "\\S" }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  /** Left out: custom on creation, as clients written before custom root roles expect; unchanged on update. */
  type: Type.Optional(Type.Union([Type.Literal("root-custom"), Type.Literal("custom")])),
  permissions: Type.Optional(Type.Array(PermissionRef, { maxItems: 1000 })),
});
export type NewRole = Static<typeof NewRole>;

export const PermissionCatalogue = Type.Object({
  version: Type.Literal(1),
  permissions: Type.Object({
    root: Type.Array(Permission),
    project: Type.Array(Permission),
    environments: Type.Array(Type.Object({ name: Type.String(), permissions: Type.Array(Permission) })),
  }),
});
export type PermissionCatalogue = Static<typeof PermissionCatalogue>;
