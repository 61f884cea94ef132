/** An addon as its events carry it: without its parameters, which may hold secrets. */
export interface AddonEventData {
  id: number;
  provider: string;
  description: string | null;
  enabled: boolean;
  events: string[];
  projects: string[];
  environments: string[];
}

declare module "../events/catalogue.js" {
  interface EventShapes {
    "addon-config-created": { data: AddonEventData };
    "addon-config-updated": { data: AddonEventData; preData: AddonEventData };
    "addon-config-deleted": { preData: AddonEventData };
  }
}
