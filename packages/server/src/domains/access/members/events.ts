/** Who was given which project roles. */
interface ProjectAccessData {
  roles: number[];
  users?: number[];
  groups?: number[];
  userId?: number;
  groupId?: number;
}

/** The whole of a project's access: who holds each role, as setting it all at once records it. */
export interface ProjectAccessConfigurationData {
  roles: { id: number; users: number[]; groups: number[] }[];
}

declare module "../../events/catalogue.js" {
  interface EventShapes {
    "project-access-added": { data: ProjectAccessData };
    "project-access-user-roles-updated": { data: ProjectAccessData; preData: ProjectAccessData };
    "project-access-group-roles-updated": { data: ProjectAccessData; preData: ProjectAccessData };
    "project-access-user-roles-deleted": { preData: ProjectAccessData };
    "project-access-group-roles-deleted": { preData: ProjectAccessData };
    "project-access-updated": {
      data: ProjectAccessConfigurationData;
      preData: ProjectAccessConfigurationData;
    };
    "project-user-added": { data: { userId: number; roleId: number } };
    "project-user-removed": { preData: { userId: number; roleId: number } };
    "project-user-role-changed": {
      data: { userId: number; roleId: number };
      preData: { userId: number; roleId: number };
    };
    "project-group-added": { data: { groupId: number; roleId: number } };
    "project-group-removed": { preData: { groupId: number; roleId: number } };
    "project-group-role-changed": {
      data: { groupId: number; roleId: number };
      preData: { groupId: number; roleId: number };
    };
  }
}
