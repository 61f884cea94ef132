export interface PersonalTokenEventData {
  id: number;
  description: string;
  expiresAt: string;
  userId: number;
}

declare module "../events/catalogue.js" {
  interface EventShapes {
    "pat-created": { data: PersonalTokenEventData };
    "pat-deleted": { preData: PersonalTokenEventData };
  }
}
