declare module "../events/catalogue.js" {
  interface EventShapes {
    "application-created": { data: { appName: string; sdkVersion: string | null; clientIp: string } };
  }
}

export {};
