declare module "../events/catalogue.js" {
  interface EventShapes {
    "feature-favorited": { data: { feature: string } };
    "feature-unfavorited": { data: { feature: string } };
    "project-favorited": { data: { project: string } };
    "project-unfavorited": { data: { project: string } };
  }
}

export {};
