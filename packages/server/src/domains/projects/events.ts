import type { ProjectSettings } from "./service.js";

declare module "../events/catalogue.js" {
  interface EventShapes {
    "project-created": { data: ProjectSettings };
    "project-updated": { data: ProjectSettings; preData: ProjectSettings };
    "project-archived": { preData: ProjectSettings };
    "project-revived": { preData: ProjectSettings };
    "project-deleted": { preData: ProjectSettings };
    "project-environment-added": { data: { environment: string } };
    "project-environment-removed": { preData: { environment: string } };
  }
}
