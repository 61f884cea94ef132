import { type Static, Type } from "typebox";
import { Nullable } from "../../../shared/schemas.js";
import type { ProjectOwner as ProjectsOwner } from "../../projects/schemas.js";
import { Person } from "../../users/schemas.js";
import { Role } from "../roles/schemas.js";

const DateTime = Type.String({ format: "date-time" });
const RoleIds = Type.Array(Type.Integer(), { maxItems: 1000 });

export const ProjectId = Type.Object({ projectId: Type.String() });
export const ProjectUser = Type.Object({ projectId: Type.String(), userId: Type.Integer() });
export const ProjectGroup = Type.Object({ projectId: Type.String(), groupId: Type.Integer() });
export const ProjectUserRole = Type.Object({ ...ProjectUser.properties, roleId: Type.Integer() });
export const ProjectGroupRole = Type.Object({ ...ProjectGroup.properties, roleId: Type.Integer() });

/** Each user and each group given each role. */
export const NewAccess = Type.Object({
  roles: RoleIds,
  users: Type.Array(Type.Integer(), { maxItems: 10_000 }),
  groups: Type.Array(Type.Integer(), { maxItems: 10_000 }),
});
export type NewAccess = Static<typeof NewAccess>;

/**
 * The whole of a project's access, role by role, as the reference's
 * projectAccessConfigurationSchema: a user or group no role names holds nothing.
 */
export const AccessConfiguration = Type.Object({
  roles: Type.Array(
    Type.Object({
      id: Type.Integer(),
      users: Type.Optional(Type.Array(Type.Integer(), { maxItems: 10_000 })),
      groups: Type.Optional(Type.Array(Type.Integer(), { maxItems: 10_000 })),
    }),
    { maxItems: 1000 },
  ),
});
export type AccessConfiguration = Static<typeof AccessConfiguration>;

/** The whole set of roles a user or group holds in the project: an empty list takes them all away. */
export const RoleAssignment = Type.Object({ roles: RoleIds });

export const ProjectAccess = Type.Object({
  users: Type.Array(
    Type.Object({
      ...Person.properties,
      /** When the user was first given a role in the project. */
      addedAt: DateTime,
      roles: Type.Array(Type.Integer()),
    }),
  ),
  groups: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      description: Nullable(Type.String()),
      rootRole: Nullable(Type.Integer()),
      userCount: Type.Integer(),
      addedAt: DateTime,
      roles: Type.Array(Type.Integer()),
    }),
  ),
  /** The roles that can be given in a project. */
  roles: Type.Array(Role),
});
export type ProjectAccess = Static<typeof ProjectAccess>;

/** A user or group owner, as the projects listing shows it. */
export type ProjectOwner = Exclude<ProjectsOwner, { ownerType: "system" }>;
