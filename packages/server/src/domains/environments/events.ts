import type { EnvironmentView } from "./schemas.js";

declare module "../events/catalogue.js" {
  interface EventShapes {
    "environment-created": { data: EnvironmentView };
    "environment-updated": { data: EnvironmentView; preData: EnvironmentView };
    "environment-deleted": { preData: EnvironmentView };
  }
}
