import type { StrategyInput } from "../../../shared/strategy.js";
import type { StrategyView } from "./schemas.js";

declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-strategy-add": { data: StrategyView };
    "feature-strategy-update": { data: StrategyView; preData: StrategyView };
    "feature-strategy-remove": { preData: StrategyView };
    /** preData: the position of every strategy of the flag in the environment before (not in the reference). */
    "strategy-order-changed": {
      data: { id: string; sortOrder: number }[];
      preData: { id: string; sortOrder: number }[];
    };
    "default-strategy-updated": { data: StrategyInput; preData?: StrategyInput };
  }
}
