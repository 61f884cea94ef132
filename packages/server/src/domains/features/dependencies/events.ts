declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-dependency-added": { data: { feature: string; enabled: boolean; variants?: string[] } };
    "feature-dependency-removed": { data: { feature: string } };
    "feature-dependencies-removed": Record<never, never>;
  }
}

export {};
