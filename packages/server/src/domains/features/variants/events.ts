import type { Static } from "typebox";
import type { StoredVariant } from "./schemas.js";

interface Variants {
  variants: Static<typeof StoredVariant>[];
}

declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-variants-updated": { data: Variants; preData: Variants };
    "feature-environment-variants-updated": { data: Variants; preData: Variants };
  }
}
