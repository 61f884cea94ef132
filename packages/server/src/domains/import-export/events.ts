declare module "../events/catalogue.js" {
  interface EventShapes {
    "features-exported": { data: { environment: string; features: string[] } };
    "features-imported": Record<never, never>;
  }
}

export {};
