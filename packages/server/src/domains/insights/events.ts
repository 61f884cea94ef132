declare module "../events/catalogue.js" {
  interface EventShapes {
    "feature-potentially-stale-on": Record<never, never>;
  }
}

export {};
