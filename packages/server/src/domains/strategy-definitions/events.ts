import type { StrategyDefinitionView } from "./schemas.js";

declare module "../events/catalogue.js" {
  interface EventShapes {
    "strategy-created": { data: StrategyDefinitionView };
    "strategy-updated": { data: StrategyDefinitionView; preData: StrategyDefinitionView };
    "strategy-deleted": { preData: StrategyDefinitionView };
    "strategy-deprecated": { data: { name: string } };
    "strategy-reactivated": { data: { name: string } };
  }
}
