export interface GroupEventData {
  id: number;
  name: string;
  description: string | null;
  rootRole: number | null;
  users: { id: number }[];
}

declare module "../../events/catalogue.js" {
  interface EventShapes {
    "group-created": { data: GroupEventData };
    "group-updated": { data: GroupEventData; preData: GroupEventData };
    "group-deleted": { preData: GroupEventData };
    "group-user-added": { data: { groupId: number; userId: number } };
    "group-user-removed": { preData: { groupId: number; userId: number } };
  }
}
