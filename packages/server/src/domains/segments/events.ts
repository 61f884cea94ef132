import type { SegmentView } from "./schemas.js";

declare module "../events/catalogue.js" {
  interface EventShapes {
    "segment-created": { data: SegmentView };
    "segment-updated": { data: SegmentView; preData: SegmentView };
    "segment-deleted": { preData: SegmentView };
  }
}
