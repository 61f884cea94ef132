declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-stale-on": { data: { stale: true } };
    "feature-stale-off": { data: { stale: false } };
    "feature-archived": Record<never, never>;
    "feature-revived": Record<never, never>;
    "feature-project-change": { data: { oldProject: string; newProject: string } };
    "feature-environment-enabled": Record<never, never>;
    "feature-environment-disabled": Record<never, never>;
  }
}

export {};
