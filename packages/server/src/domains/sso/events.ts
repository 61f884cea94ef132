declare module "../events/catalogue.js" {
  interface EventShapes {
    // Settings that hold secrets (sign-in settings) say which changed, never how, as the reference's do.
    "setting-created": { data: { id: string; hideEventDetails: true } };
    "setting-updated": { data: { id: string; hideEventDetails: true }; preData: { hideEventDetails: true } };
  }
}

export {};
