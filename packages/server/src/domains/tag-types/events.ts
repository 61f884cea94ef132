import type { TagTypeView } from "./schemas.js";

declare module "../events/catalogue.js" {
  interface EventShapes {
    "tag-type-created": { data: TagTypeView };
    "tag-type-updated": { data: TagTypeView; preData: TagTypeView };
    "tag-type-deleted": { preData: TagTypeView };
  }
}
