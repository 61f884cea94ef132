import type { TokenView } from "./schemas.js";

declare module "../events/catalogue.js" {
  interface EventShapes {
    "api-token-created": { data: TokenView };
    "api-token-updated": { data: TokenView; preData: TokenView };
    "api-token-deleted": { preData: TokenView };
  }
}
