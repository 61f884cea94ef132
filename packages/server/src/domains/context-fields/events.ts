import type { ContextFieldView } from "./schemas.js";

declare module "../events/catalogue.js" {
  interface EventShapes {
    "context-field-created": { data: ContextFieldView };
    "context-field-updated": { data: ContextFieldView; preData: ContextFieldView };
    "context-field-deleted": { preData: ContextFieldView };
  }
}
