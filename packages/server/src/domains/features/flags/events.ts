declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-stale-on": { data: { stale: true } };
    "feature-stale-off": { data: { stale: false } };
    "feature-archived": Record<never, never>;
    /** preData (not in the reference): the environments it was on in, which reviving switches off. */
    "feature-revived": { preData?: { enabledIn: string[] } };
    "feature-project-change": { data: { oldProject: string; newProject: string } };
    "feature-environment-enabled": Record<never, never>;
    "feature-environment-disabled": Record<never, never>;
  }
}

export {};
