/** A person or service account as user events carry it: never a password or its hash. */
export interface UserEventData {
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
  rootRole: number;
  isActive?: boolean;
}

declare module "../events/catalogue.js" {
  interface EventShapes {
    "user-created": { data: UserEventData };
    "user-updated": { data: UserEventData; preData: UserEventData };
    "user-deleted": { preData: UserEventData };
    "service-account-created": { data: UserEventData };
    "service-account-updated": { data: UserEventData; preData: UserEventData };
    "service-account-deleted": { preData: UserEventData };
  }
}
