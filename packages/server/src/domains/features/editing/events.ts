import type { FeatureView } from "../view/schemas.js";

// The flag's events that carry its full view. A project deleted with its flags records their
// deletion too (FlagService.removeWithProject), without the view.
declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-created": { data: FeatureView };
    "feature-metadata-updated": { data: FeatureView; preData: FeatureView };
    "feature-deleted": { preData?: FeatureView };
  }
}
