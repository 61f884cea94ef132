import type { StrategyInput } from "../../../shared/strategy.js";
import type { StrategyView } from "./schemas.js";

declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-strategy-add": { data: StrategyView };
    "feature-strategy-update": { data: StrategyView; preData: StrategyView };
    "feature-strategy-remove": { preData: StrategyView };
    "strategy-order-changed": { data: { id: string; sortOrder: number }[] };
    "default-strategy-updated": { data: StrategyInput; preData?: StrategyInput };
  }
}
