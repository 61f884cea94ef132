declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-tagged": { data: { type: string; value: string } };
    "feature-untagged": { preData: { type: string; value: string } };
    "tag-created": { data: { type: string; value: string } };
  }
}

export {};
