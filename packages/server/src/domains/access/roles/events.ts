export interface RoleEventData {
  id: number;
  name: string;
  description: string;
  type: string;
  permissions?: { name: string; environment?: string }[];
}

declare module "../../events/catalogue.js" {
  interface EventShapes {
    "role-created": { data: RoleEventData };
    "role-updated": { data: RoleEventData; preData: RoleEventData };
    "role-deleted": { preData: RoleEventData };
  }
}
